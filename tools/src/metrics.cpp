#include "metrics.h"

#include <regex>

#include "error.h"
#include "text.h"

namespace tileperf {

namespace {

const std::regex kName(R"([A-Za-z0-9_]+)");
const std::regex kArch(R"(sm_[0-9]+[a-z]?)");

int line_of_offset(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

std::string line_at(const std::string& text, int line) {
  auto lines = split(text, '\n');
  return line >= 1 && line <= static_cast<int>(lines.size()) ? lines[line - 1] : "";
}

template <typename T>
T require(const nlohmann::json& j, const char* key, const std::string& filename) {
  if (!j.contains(key)) throw InputError(filename, 0, std::string("missing key '") + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(filename, 0, std::string("key '") + key + "' has the wrong type");
  }
}

}  // namespace

std::int64_t Metrics::get(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? 0 : it->second;
}

void validate_test_id(const TestId& id) {
  if (!std::regex_match(id.kernel, kName)) {
    throw UsageError("kernel name '" + id.kernel + "' must match [A-Za-z0-9_]+");
  }
  if (!std::regex_match(id.config, kName)) {
    throw UsageError("config name '" + id.config + "' must match [A-Za-z0-9_]+");
  }
  if (!std::regex_match(id.arch, kArch)) {
    throw UsageError("architecture '" + id.arch + "' must look like sm_120");
  }
}

nlohmann::json to_json(const Metrics& m) {
  return {
      {"format", kMetricsFormat},
      {"test", m.id.name()},
      {"kernel", m.id.kernel},
      {"config", m.id.config},
      {"arch", m.id.arch},
      {"toolchain", m.toolchain},
      {"flags", m.flags},
      {"generator", m.generator},
      {"metrics", m.values},
  };
}

std::string to_json_text(const Metrics& m) { return to_json(m).dump(2) + "\n"; }

nlohmann::json parse_json(const std::string& text, const std::string& filename) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    int line = line_of_offset(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    auto colon = what.find("syntax error");
    throw InputError(filename, line,
                     "invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon)),
                     line_at(text, line));
  }
}

Metrics metrics_from_json(const nlohmann::json& j, const std::string& filename) {
  if (!j.is_object()) throw InputError(filename, 0, "expected a JSON object");
  auto format = require<std::string>(j, "format", filename);
  if (format != kMetricsFormat) {
    throw InputError(filename, 0, "unknown format '" + format + "', expected " + kMetricsFormat);
  }
  Metrics m;
  m.id.kernel = require<std::string>(j, "kernel", filename);
  m.id.config = require<std::string>(j, "config", filename);
  m.id.arch = require<std::string>(j, "arch", filename);
  m.toolchain = require<std::map<std::string, std::string>>(j, "toolchain", filename);
  m.flags = j.value("flags", nlohmann::json::object());
  m.generator = j.value("generator", "");
  m.values = require<std::map<std::string, std::int64_t>>(j, "metrics", filename);
  return m;
}

Metrics read_metrics(const std::string& path) {
  return metrics_from_json(parse_json(read_file(path), path), path);
}

}  // namespace tileperf
