#include "metrics/metrics.h"

#include <map>
#include <set>

#include <algorithm>

#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

template <typename T>
T require(const nlohmann::json& j, const char* key, const std::string& filename) {
  if (!j.contains(key)) throw InputError(filename, 0, std::string("missing key '") + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(filename, 0, std::string("key '") + key + "' has the wrong type");
  }
}

std::string require_name(const nlohmann::json& j, const char* key, const std::string& filename) {
  auto value = require<std::string>(j, key, filename);
  std::string problem = std::string(key) == "arch" ? arch_problem(value) : name_problem(value);
  if (!problem.empty()) throw InputError(filename, 0, std::string("key '") + key + "': " + problem);
  return value;
}

std::string field_value(const std::map<std::string, std::string>& signature, const std::string& key) {
  auto it = signature.find(key);
  return it == signature.end() ? std::string("(none)") : it->second;
}

// "parameters[3].value" -> "parameters[3]"; "" for any other field.
std::string constant_parameter(const std::string& key) {
  static const std::string suffix = ".value";
  if (key.rfind("parameters[", 0) != 0 || key.size() <= suffix.size() ||
      key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return "";
  }
  return key.substr(0, key.size() - suffix.size());
}

bool is_tuning_field(const Metrics& baseline, const Metrics& current, const std::string& key) {
  if (key.rfind("hints.", 0) == 0) return true;
  std::string parameter = constant_parameter(key);
  if (parameter.empty()) return false;
  const std::string kind = parameter + ".kind", constant = "ConstantConstraint";
  return field_value(baseline.signature, kind) == constant && field_value(current.signature, kind) == constant;
}

}  // namespace

std::int64_t Metrics::get(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? 0 : it->second;
}

std::optional<TestId> parse_test_name(const std::string& name) {
  auto parts = split(name, '.');
  if (parts.size() != 4 || parts[0] != "perf") return std::nullopt;
  return TestId{parts[1], parts[2], parts[3]};
}

void validate_test_id(const TestId& id) {
  if (!name_problem(id.kernel).empty()) {
    throw UsageError("kernel name '" + id.kernel + "' must match [A-Za-z0-9_]+");
  }
  if (!name_problem(id.config).empty()) {
    throw UsageError("config name '" + id.config + "' must match [A-Za-z0-9_]+");
  }
  if (!arch_problem(id.arch).empty()) {
    throw UsageError("architecture '" + id.arch + "' must look like sm_120");
  }
}

std::vector<std::string> signature_changes(const Metrics& baseline, const Metrics& current) {
  std::set<std::string> keys;
  for (const auto& [k, v] : baseline.signature) keys.insert(k);
  for (const auto& [k, v] : current.signature) keys.insert(k);
  std::vector<std::string> changes;
  for (const auto& k : keys) {
    std::string was = field_value(baseline.signature, k), now = field_value(current.signature, k);
    if (was != now) changes.push_back(k + ": " + was + " -> " + now);
  }
  return changes;
}

SignatureChange classify_signature(const Metrics& baseline, const Metrics& current) {
  if (baseline.signature == current.signature) return SignatureChange::kNone;
  std::set<std::string> keys;
  for (const auto& [k, v] : baseline.signature) keys.insert(k);
  for (const auto& [k, v] : current.signature) keys.insert(k);
  for (const auto& k : keys) {
    if (field_value(baseline.signature, k) != field_value(current.signature, k) &&
        !is_tuning_field(baseline, current, k)) {
      return SignatureChange::kIdentity;
    }
  }
  return SignatureChange::kTuning;
}

// What differs between two toolchains: "tileiras 13.4.92 -> 13.5.37", one
// entry per tool (a tool only one side names: "none"), then the flags.
std::vector<std::string> toolchain_changes(const Metrics& old, const Metrics& now) {
  std::vector<std::string> out;
  std::map<std::string, std::pair<std::string, std::string>> tools;
  for (const auto& [tool, version] : old.toolchain) tools[tool].first = version;
  for (const auto& [tool, version] : now.toolchain) tools[tool].second = version;
  for (const auto& [tool, v] : tools) {
    if (v.first == v.second) continue;
    out.push_back(tool + " " + (v.first.empty() ? "none" : v.first) + " -> " + (v.second.empty() ? "none" : v.second));
  }
  if (old.flags != now.flags) out.push_back("flags " + old.flags.dump() + " -> " + now.flags.dump());
  return out;
}

std::vector<std::string> library_changes(const Metrics& old, const Metrics& now) {
  std::map<std::string, std::pair<std::string, std::string>> libraries;
  for (const auto& [name, version] : old.library) libraries[name].first = version;
  for (const auto& [name, version] : now.library) libraries[name].second = version;
  std::vector<std::string> out;
  for (const auto& [name, v] : libraries) {
    if (v.first == v.second) continue;
    out.push_back(name + " " + (v.first.empty() ? "none" : v.first) + " -> " + (v.second.empty() ? "none" : v.second));
  }
  return out;
}

nlohmann::json to_json(const Metrics& m) {
  nlohmann::json j = {
      {"format", kMetricsFormat}, {"test", m.id.name()},      {"kernel", m.id.kernel}, {"config", m.id.config},
      {"arch", m.id.arch},        {"toolchain", m.toolchain}, {"flags", m.flags},      {"generator", m.generator},
      {"signature", m.signature}, {"metrics", m.values},
  };
  if (!m.library.empty()) j["library"] = m.library;
  if (!m.model.empty()) j["model"] = m.model;
  if (!m.lines.empty()) j["lines"] = m.lines;
  if (!m.line_text.empty()) j["line_text"] = m.line_text;
  if (!m.bytecode.empty() || !m.cubin.empty()) j["compiled"] = {{"bytecode", m.bytecode}, {"cubin", m.cubin}};
  if (!m.variants.empty()) {
    j["variants"] = nlohmann::json::array();
    for (const auto& v : m.variants) {
      nlohmann::json variant = {{"cubin", v.cubin}, {"metrics", v.values}};
      if (v.model) variant["model"] = *v.model;
      j["variants"].push_back(std::move(variant));
    }
  }
  return j;
}

std::vector<Metrics> known_variants(const Metrics& baseline) {
  std::vector<Metrics> out{baseline};
  out.front().variants.clear();
  for (const auto& v : baseline.variants) {
    Metrics m = out.front();
    m.cubin = v.cubin;
    m.values = v.values;
    if (v.model) m.model = *v.model;
    out.push_back(std::move(m));
  }
  return out;
}

std::string to_json_text(const Metrics& m) { return to_json(m).dump(2) + "\n"; }

Metrics metrics_from_json(const nlohmann::json& j, const std::string& filename) {
  if (!j.is_object()) throw InputError(filename, 0, "expected a JSON object");
  auto format = require<std::string>(j, "format", filename);
  if (format != kMetricsFormat) {
    throw InputError(filename, 0, "unknown format '" + format + "', expected " + kMetricsFormat);
  }
  Metrics m;
  m.id.kernel = require_name(j, "kernel", filename);
  m.id.config = require_name(j, "config", filename);
  m.id.arch = require_name(j, "arch", filename);
  m.toolchain = require<std::map<std::string, std::string>>(j, "toolchain", filename);
  m.flags = j.contains("flags") ? j.at("flags") : nlohmann::json::object();
  m.generator = j.contains("generator") ? require<std::string>(j, "generator", filename) : "";
  // Written by later releases than the first: a baseline without them loads.
  if (j.contains("library")) m.library = require<std::map<std::string, std::string>>(j, "library", filename);
  if (j.contains("model")) m.model = require<std::string>(j, "model", filename);
  if (!j.contains("metrics")) throw InputError(filename, 0, "missing key 'metrics'");
  m.values = json_counts(j.at("metrics"), filename, "metrics");
  if (j.contains("lines")) m.lines = json_counts(j.at("lines"), filename, "lines");
  if (j.contains("line_text")) m.line_text = require<std::map<std::string, std::string>>(j, "line_text", filename);
  if (j.contains("signature")) {
    m.signature = require<std::map<std::string, std::string>>(j, "signature", filename);
  }
  if (j.contains("compiled")) {
    const auto& c = j.at("compiled");
    if (!c.is_object()) throw InputError(filename, 0, "key 'compiled' must be an object");
    m.bytecode = require<std::string>(c, "bytecode", filename);
    m.cubin = require<std::string>(c, "cubin", filename);
  }
  if (j.contains("variants")) {
    const auto& vs = j.at("variants");
    if (!vs.is_array()) throw InputError(filename, 0, "key 'variants' must be a list");
    for (const auto& v : vs) {
      if (!v.is_object() || !v.contains("metrics")) {
        throw InputError(filename, 0, "each of 'variants' must be an object with 'cubin' and 'metrics'");
      }
      CompileVariantMetrics variant{require<std::string>(v, "cubin", filename),
                                    json_counts(v.at("metrics"), filename, "variants"), std::nullopt};
      if (v.contains("model")) variant.model = require<std::string>(v, "model", filename);
      m.variants.push_back(std::move(variant));
    }
  }
  return m;
}

Metrics read_metrics(const std::string& path) { return metrics_from_json(parse_json(read_file(path), path), path); }

}  // namespace tileperf
