#include "policy.h"

#include <cmath>
#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "error.h"
#include "metrics.h"
#include "text.h"

namespace tileperf {

namespace {

const std::regex kRelative(R"(^([0-9]+(\.[0-9]+)?)%$)");
const std::regex kAbsolute(R"(^[0-9]+$)");

Direction parse_direction(const std::string& s) {
  if (s == "lower") return Direction::kLower;
  if (s == "higher") return Direction::kHigher;
  if (s == "exact") return Direction::kExact;
  if (s == "info") return Direction::kInfo;
  throw UsageError("direction must be one of lower, higher, exact, info; got '" + s + "'");
}

void append_rules(const nlohmann::json& rules, const std::string& file, const std::string& where,
                  std::vector<Rule>& out) {
  if (!rules.is_array()) throw InputError(file, 0, "key '" + where + "' must be a list of rules");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    std::string key = fmt::format("{}[{}]", where, i);
    const auto& r = rules[i];
    try {
      if (!r.is_object()) throw UsageError("must be an object");
      for (const auto& [k, v] : r.items()) {
        if (k != "metric" && k != "direction" && k != "tolerance" && k != "why") {
          throw UsageError("unknown field '" + k + "'");
        }
      }
      Rule rule;
      rule.pattern = r.at("metric").get<std::string>();
      rule.direction = parse_direction(r.value("direction", "lower"));
      rule.tolerance = parse_tolerance(r.value("tolerance", "0"));
      rule.origin = file + ": " + key;
      out.push_back(std::move(rule));
    } catch (const nlohmann::json::exception&) {
      throw InputError(file, 0, "key '" + key + "': needs a string 'metric' and string fields");
    } catch (const UsageError& e) {
      throw InputError(file, 0, "key '" + key + "': " + e.what());
    }
  }
}

void load_file(const std::string& file, const std::string& config, std::vector<Rule>& out) {
  auto j = parse_json(read_file(file), file);
  if (!j.is_object()) throw InputError(file, 0, "expected a JSON object");
  for (const auto& [k, v] : j.items()) {
    if (k != "rules" && k != "configs" && k != "why") {
      throw InputError(file, 0, "unknown key '" + k + "'");
    }
  }
  if (j.contains("configs")) {
    const auto& configs = j["configs"];
    if (!configs.is_object()) throw InputError(file, 0, "key 'configs' must be an object");
    if (configs.contains(config)) {
      const auto& c = configs[config];
      if (!c.is_object() || !c.contains("rules")) {
        throw InputError(file, 0, "key 'configs." + config + "' must hold 'rules'");
      }
      append_rules(c["rules"], file, "configs." + config + ".rules", out);
    }
  }
  if (j.contains("rules")) append_rules(j["rules"], file, "rules", out);
}

}  // namespace

double Tolerance::limit(std::int64_t baseline) const {
  return std::max(relative * std::fabs(static_cast<double>(baseline)),
                  static_cast<double>(absolute));
}

Tolerance parse_tolerance(const std::string& text) {
  Tolerance t;
  auto parts = split(text, '|');
  if (parts.size() > 2) throw UsageError("tolerance '" + text + "' has more than two parts");
  bool seen_rel = false, seen_abs = false;
  for (const auto& raw : parts) {
    std::string p = trim(raw);
    std::smatch m;
    if (std::regex_match(p, m, kRelative) && !seen_rel) {
      t.relative = std::stod(m[1]) / 100.0;
      seen_rel = true;
    } else if (std::regex_match(p, kAbsolute) && !seen_abs) {
      t.absolute = std::stoll(p);
      seen_abs = true;
    } else {
      throw UsageError("tolerance '" + text + "' must look like '5%', '10' or '5% | 10'");
    }
  }
  return t;
}

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::kLower: return "lower";
    case Direction::kHigher: return "higher";
    case Direction::kExact: return "exact";
    case Direction::kInfo: return "info";
  }
  return "?";
}

bool glob_match(const std::string& pattern, const std::string& text) {
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

const Rule* Policy::find(const std::string& metric) const {
  for (const auto& r : rules) {
    if (glob_match(r.pattern, metric)) return &r;
  }
  return nullptr;
}

Policy load_policy(const std::string& checks_dir, const std::string& kernel,
                   const std::string& config) {
  namespace fs = std::filesystem;
  Policy policy;
  fs::path kernel_file = fs::path(checks_dir) / (kernel + ".json");
  if (fs::exists(kernel_file)) load_file(kernel_file.string(), config, policy.rules);
  fs::path default_file = fs::path(checks_dir) / "default.json";
  if (!fs::exists(default_file)) {
    throw InputError(default_file.string(), 0, "default policy file is missing");
  }
  load_file(default_file.string(), config, policy.rules);
  return policy;
}

}  // namespace tileperf
