#include "gate/policy.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/error.h"
#include "metrics/metrics.h"
#include "support/text.h"

namespace tileperf {

namespace {

constexpr std::size_t kMaxDigits = 9;  // of a percentage, each side of the point

bool is_pattern_char(char c) {
  return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '*';
}

// "sass.mufu.*", "loop.*.ii": words of [A-Za-z0-9_*] joined by single dots.
bool valid_pattern(const std::string& p) {
  if (p.empty() || p.size() > 200) return false;
  for (const auto& word : split(p, '.')) {
    if (word.empty() || !std::all_of(word.begin(), word.end(), is_pattern_char)) return false;
  }
  return true;
}

// "5%", "2.5%": the fraction (0.05, 0.025), or nothing.
std::optional<double> relative_tolerance(const std::string& p) {
  if (p.size() < 2 || p.back() != '%') return std::nullopt;
  auto v = parse_decimal(std::string_view(p).substr(0, p.size() - 1), kMaxDigits);
  if (!v) return std::nullopt;
  return *v / 100.0;
}

// The comparison operator at the front of `s`, or "".
std::string comparison_at(std::string_view s) {
  for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
    if (s.substr(0, std::string_view(op).size()) == op) return op;
  }
  return "";
}

Direction parse_direction(const std::string& s) {
  if (s == "lower") return Direction::kLower;
  if (s == "higher") return Direction::kHigher;
  if (s == "exact") return Direction::kExact;
  if (s == "info") return Direction::kInfo;
  throw UsageError("direction must be one of lower, higher, exact, info; got '" + s + "'");
}

// Parses each entry of the list `where` with `parse`, which throws UsageError
// or a JSON type error for a bad entry; both become an InputError naming the
// file and the entry's key ("rules[3]"). `type_error` says what the fields
// must be.
template <typename T, typename Parse>
void append_entries(const nlohmann::json& list, const std::string& file, const std::string& where, const char* what,
                    const char* type_error, std::vector<T>& out, Parse parse) {
  if (!list.is_array()) {
    throw InputError(file, 0, fmt::format("key '{}' must be a list of {}", where, what));
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string key = fmt::format("{}[{}]", where, i);
    try {
      T item = parse(list[i]);
      item.origin = file + ": " + key;
      out.push_back(std::move(item));
    } catch (const nlohmann::json::exception&) {
      throw InputError(file, 0, "key '" + key + "': " + type_error);
    } catch (const UsageError& e) {
      throw InputError(file, 0, "key '" + key + "': " + e.what());
    }
  }
}

void check_fields(const nlohmann::json& entry, std::initializer_list<const char*> allowed) {
  for (const auto& [k, v] : entry.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) throw UsageError("unknown field '" + k + "'");
  }
}

Rule parse_rule(const nlohmann::json& r) {
  if (!r.is_object()) throw UsageError("must be an object");
  check_fields(r, {"metric", "direction", "tolerance", "why"});
  Rule rule;
  rule.pattern = r.at("metric").get<std::string>();
  if (!valid_pattern(rule.pattern)) {
    throw UsageError("metric pattern '" + rule.pattern +
                     "' must be words of [A-Za-z0-9_] joined by '.', with '*' for any run");
  }
  rule.direction = parse_direction(r.value("direction", "lower"));
  rule.tolerance = parse_tolerance(r.value("tolerance", "0"));
  return rule;
}

Invariant parse_invariant_entry(const nlohmann::json& r) {
  if (!r.is_object() || !r.contains("require")) throw UsageError("needs a 'require' string");
  check_fields(r, {"require", "why"});
  Invariant inv = parse_invariant(r.at("require").get<std::string>());
  inv.why = r.value("why", "");
  return inv;
}

void append_rules(const nlohmann::json& list, const std::string& file, const std::string& where,
                  std::vector<Rule>& out) {
  append_entries(list, file, where, "rules", "needs a string 'metric' and string fields", out, parse_rule);
}

void append_invariants(const nlohmann::json& list, const std::string& file, const std::string& where,
                       std::vector<Invariant>& out) {
  append_entries(list, file, where, "invariants", "'require' and 'why' must be strings", out, parse_invariant_entry);
}

void check_keys(const nlohmann::json& j, const std::string& file, const std::string& where,
                std::initializer_list<const char*> allowed) {
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) throw InputError(file, 0, "unknown key '" + where + k + "'");
  }
}

void load_text(const std::string& text, const std::string& file, const std::string& config, Policy& out) {
  auto j = parse_json(text, file);
  if (!j.is_object()) throw InputError(file, 0, "expected a JSON object");
  check_keys(j, file, "", {"rules", "invariants", "configs", "why"});
  if (j.contains("configs")) {
    const auto& configs = j["configs"];
    if (!configs.is_object()) throw InputError(file, 0, "key 'configs' must be an object");
    for (const auto& [name, c] : configs.items()) {
      if (!c.is_object()) throw InputError(file, 0, "key 'configs." + name + "' must be an object");
      check_keys(c, file, "configs." + name + ".", {"rules", "invariants", "why"});
    }
    if (configs.contains(config)) {
      const auto& c = configs[config];
      std::string where = "configs." + config + ".";
      if (c.contains("rules")) append_rules(c["rules"], file, where + "rules", out.rules);
      if (c.contains("invariants")) {
        append_invariants(c["invariants"], file, where + "invariants", out.invariants);
      }
    }
  }
  if (j.contains("rules")) append_rules(j["rules"], file, "rules", out.rules);
  if (j.contains("invariants")) append_invariants(j["invariants"], file, "invariants", out.invariants);
}

void load_file(const std::string& file, const std::string& config, Policy& out) {
  load_text(read_file(file), file, config, out);
}

}  // namespace

double Tolerance::limit(std::int64_t baseline) const {
  return std::max(relative * std::fabs(static_cast<double>(baseline)), static_cast<double>(absolute));
}

Tolerance parse_tolerance(const std::string& text) {
  Tolerance t;
  auto parts = split(text, '|');
  if (parts.size() > 2) throw UsageError("tolerance '" + text + "' has more than two parts");
  bool seen_rel = false, seen_abs = false;
  for (const auto& raw : parts) {
    std::string p = trim(raw);
    auto relative = relative_tolerance(p);
    auto absolute = parse_count(p, kMaxCount);
    if (relative && !seen_rel) {
      t.relative = *relative;
      seen_rel = true;
    } else if (absolute && !seen_abs) {
      t.absolute = *absolute;
      seen_abs = true;
    } else {
      throw UsageError("tolerance '" + text + "' must look like '5%', '10' or '5% | 10'");
    }
  }
  return t;
}

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::kLower:
      return "lower";
    case Direction::kHigher:
      return "higher";
    case Direction::kExact:
      return "exact";
    case Direction::kInfo:
      return "info";
  }
  return "?";
}

Direction direction_from_name(const std::string& name) {
  for (Direction d : {Direction::kLower, Direction::kHigher, Direction::kExact, Direction::kInfo}) {
    if (name == direction_name(d)) return d;
  }
  return Direction::kInfo;
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

Policy parse_policy(const std::string& text, const std::string& file, const std::string& config) {
  Policy policy;
  load_text(text, file, config, policy);
  return policy;
}

Policy load_policy(const std::string& checks_dir, const std::string& kernel, const std::string& config) {
  namespace fs = std::filesystem;
  // The names become file names: nothing outside checks_dir may be read.
  if (!name_problem(kernel).empty()) throw UsageError("kernel name '" + kernel + "' must match [A-Za-z0-9_]+");
  if (!name_problem(config).empty()) throw UsageError("config name '" + config + "' must match [A-Za-z0-9_]+");
  Policy policy;
  fs::path kernel_file = fs::path(checks_dir) / (kernel + ".json");
  if (fs::exists(kernel_file)) load_file(kernel_file.string(), config, policy);
  fs::path default_file = fs::path(checks_dir) / "default.json";
  if (!fs::exists(default_file)) {
    throw InputError(default_file.string(), 0, "default policy file is missing");
  }
  load_file(default_file.string(), config, policy);
  return policy;
}

namespace {

[[noreturn]] void bad_require(const std::string& text) {
  throw UsageError("require '" + text +
                   "' must look like 'local.bytes == 0' or "
                   "'remarks.load.tma_shape.* == {64x64, 64x128}'");
}

// Splits "<metric> <op> <rhs>" into its three parts (spaces optional).
Invariant split_require(const std::string& text) {
  std::string t = trim(text);
  std::size_t end = 0;
  while (end < t.size() && (is_pattern_char(t[end]) || t[end] == '.')) ++end;
  Invariant inv;
  inv.text = text;
  inv.metric = t.substr(0, end);
  std::string rest = trim(std::string_view(t).substr(end));
  inv.op = comparison_at(rest);
  if (inv.metric.empty() || inv.op.empty()) bad_require(text);
  inv.set.push_back(trim(std::string_view(rest).substr(inv.op.size())));  // the right-hand side, for now
  return inv;
}

void parse_set(Invariant& inv, const std::string& rhs) {
  if (rhs.size() < 2 || rhs.back() != '}' || rhs.find('}') != rhs.size() - 1) bad_require(inv.text);
  if (inv.op != "==" || inv.metric.size() < 3 || inv.metric.substr(inv.metric.size() - 2) != ".*") {
    throw UsageError("require '" + inv.text + "': a set needs '<prefix>.* == {...}'");
  }
  inv.is_set = true;
  inv.metric = inv.metric.substr(0, inv.metric.size() - 2);
  for (const auto& item : split(rhs.substr(1, rhs.size() - 2), ',')) {
    if (!trim(item).empty()) inv.set.push_back(trim(item));
  }
  std::sort(inv.set.begin(), inv.set.end());
}

}  // namespace

Invariant parse_invariant(const std::string& text) {
  Invariant inv = split_require(text);
  std::string rhs = inv.set.front();
  inv.set.clear();
  if (!valid_pattern(inv.metric)) bad_require(text);
  if (!rhs.empty() && rhs.front() == '{') {
    parse_set(inv, rhs);
    return inv;
  }
  if (inv.metric.find('*') != std::string::npos) {
    throw UsageError("require '" + text + "': only a set comparison may use '*'");
  }
  bool negative = !rhs.empty() && rhs.front() == '-';
  auto value = parse_count(std::string_view(rhs).substr(negative ? 1 : 0), kMaxCount);
  if (!value) bad_require(text);
  inv.value = negative ? -*value : *value;
  return inv;
}

namespace {

bool compare_int(std::int64_t a, const std::string& op, std::int64_t b) {
  if (op == "==") return a == b;
  if (op == "!=") return a != b;
  if (op == "<=") return a <= b;
  if (op == ">=") return a >= b;
  if (op == "<") return a < b;
  return a > b;
}

}  // namespace

std::vector<BrokenInvariant> check_invariants(const Policy& policy, const Metrics& current) {
  std::vector<BrokenInvariant> broken;
  for (const auto& inv : policy.invariants) {
    if (inv.is_set) {
      std::vector<std::string> found;
      std::string prefix = inv.metric + ".";
      for (const auto& [name, value] : current.values) {
        if (name.rfind(prefix, 0) == 0 && value != 0) found.push_back(name.substr(prefix.size()));
      }
      if (found != inv.set) {
        broken.push_back({&inv, fmt::format("{{{}}}", fmt::join(found, ", "))});
      }
    } else if (!current.values.count(inv.metric)) {
      broken.push_back({&inv, "not measured"});
    } else if (!compare_int(current.get(inv.metric), inv.op, inv.value)) {
      broken.push_back({&inv, fmt::format("{} = {}", inv.metric, current.get(inv.metric))});
    }
  }
  return broken;
}

}  // namespace tileperf
