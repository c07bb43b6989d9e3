#include "result.h"

#include "metrics.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "error.h"
#include "json_input.h"
#include "text.h"

namespace tileperf {

void TestResult::set_diff(const Comparison& c) {
  diff = nlohmann::json::array();
  for (const auto& d : c.diffs) {
    if (d.delta() == 0 && d.verdict != Verdict::kRegressed) continue;
    diff.push_back({{"metric", d.name},
                    {"baseline", d.baseline},
                    {"current", d.current},
                    {"delta", d.delta()},
                    {"limit", d.limit},
                    {"direction", direction_name(d.direction)},
                    {"verdict", d.verdict == Verdict::kRegressed  ? "regressed"
                                : d.verdict == Verdict::kImproved ? "improved"
                                : d.verdict == Verdict::kOk       ? "ok"
                                                                  : "info"}});
  }
  broken = nlohmann::json::array();
  for (const auto& b : c.broken) {
    broken.push_back({{"require", b.invariant->text}, {"metric", b.invariant->metric},
                      {"why", b.invariant->why}, {"origin", b.invariant->origin},
                      {"found", b.found}});
  }
}

nlohmann::json to_json(const TestResult& r) {
  return {{"format", kResultFormat},  {"test", r.id.name()},       {"kernel", r.id.kernel},
          {"config", r.id.config},    {"arch", r.id.arch},         {"state", r.state},
          {"exit_code", r.exit_code}, {"message", r.message},      {"key_metrics", r.key_metrics},
          {"seconds", r.seconds},     {"diff", r.diff},            {"broken", r.broken},
          {"notes", r.notes}};
}

namespace {

[[noreturn]] void malformed(const std::string& filename, const std::string& key, const char* what) {
  throw InputError(filename, 0, "malformed result: key '" + key + "' " + what);
}

void check_strings(const nlohmann::json& j, std::initializer_list<const char*> keys,
                   const std::string& filename, const std::string& where) {
  for (const char* k : keys) {
    if (j.contains(k) && !j.at(k).is_string()) malformed(filename, where + k, "must be a string");
  }
}

// A list of objects whose fields are checked by `check(entry, key)`.
template <typename Check>
void check_list(const nlohmann::json& j, const char* key, const std::string& filename, Check check) {
  if (!j.contains(key)) return;
  if (!j.at(key).is_array()) malformed(filename, key, "must be a list");
  for (std::size_t i = 0; i < j.at(key).size(); ++i) {
    std::string where = fmt::format("{}[{}]", key, i);
    if (!j.at(key)[i].is_object()) malformed(filename, where, "must be an object");
    check(j.at(key)[i], where + ".");
  }
}

void check_diff_entry(const nlohmann::json& d, const std::string& where, const std::string& filename) {
  check_strings(d, {"metric", "direction", "verdict"}, filename, where);
  for (const char* k : {"baseline", "current"}) {
    if (d.contains(k)) json_count(d.at(k), filename, where + k);
  }
  if (d.contains("delta")) {
    const auto& delta = d.at("delta");
    bool exact = delta.is_number_integer() && !delta.is_number_unsigned() && delta.get<std::int64_t>() >= -kMaxCount;
    if (!exact && !(delta.is_number_unsigned() && delta.get<std::uint64_t>() <= std::uint64_t(kMaxCount))) {
      malformed(filename, where + "delta", "must be an integer difference of two counts");
    }
  }
  if (d.contains("limit") && !d.at("limit").is_number()) malformed(filename, where + "limit", "must be a number");
}

// Everything the summary and the reports read, before they read it.
void check_result(const nlohmann::json& j, const std::string& filename) {
  if (!j.is_object()) throw InputError(filename, 0, "malformed result: expected a JSON object");
  for (const char* k : {"format", "kernel", "config", "arch", "state", "key_metrics", "seconds", "exit_code"}) {
    if (!j.contains(k)) malformed(filename, k, "is missing");
  }
  check_strings(j, {"format", "test", "kernel", "config", "arch", "state", "message"}, filename, "");
  for (const char* k : {"kernel", "config"}) {
    if (!name_problem(j.at(k).get<std::string>()).empty()) malformed(filename, k, "must match [A-Za-z0-9_]+");
  }
  if (!arch_problem(j.at("arch").get<std::string>()).empty()) malformed(filename, "arch", "must look like sm_120");
  const auto& code = j.at("exit_code");
  bool code_ok = code.is_number_unsigned() ? code.get<std::uint64_t>() <= 255
                                           : code.is_number_integer() && code.get<std::int64_t>() >= -255;
  if (!code_ok) malformed(filename, "exit_code", "must be an exit code");
  json_counts(j.at("key_metrics"), filename, "key_metrics");
  if (!j.at("seconds").is_object()) malformed(filename, "seconds", "must be an object");
  for (const auto& [step, s] : j.at("seconds").items()) {
    if (!s.is_number()) malformed(filename, "seconds." + step, "must be a number");
  }
  check_list(j, "diff", filename, [&](const nlohmann::json& d, const std::string& where) {
    check_diff_entry(d, where, filename);
  });
  check_list(j, "broken", filename, [&](const nlohmann::json& b, const std::string& where) {
    check_strings(b, {"require", "metric", "why", "origin", "found"}, filename, where);
  });
  if (j.contains("notes") && (!j.at("notes").is_array() ||
                              !std::all_of(j.at("notes").begin(), j.at("notes").end(),
                                           [](const auto& n) { return n.is_string(); }))) {
    malformed(filename, "notes", "must be a list of strings");
  }
}

}  // namespace

TestResult result_from_json(const nlohmann::json& j, const std::string& filename) {
  check_result(j, filename);
  try {
    if (j.at("format").get<std::string>() != kResultFormat) {
      throw InputError(filename, 0, std::string("not a ") + kResultFormat + " file");
    }
    TestResult r;
    r.id = {j.at("kernel"), j.at("config"), j.at("arch")};
    r.state = j.at("state");
    r.exit_code = j.at("exit_code");
    r.message = j.value("message", "");
    r.key_metrics = j.at("key_metrics").get<std::map<std::string, std::int64_t>>();
    r.seconds = j.at("seconds").get<std::map<std::string, double>>();
    r.diff = j.value("diff", nlohmann::json::array());
    r.broken = j.value("broken", nlohmann::json::array());
    r.notes = j.value("notes", std::vector<std::string>{});
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(filename, 0, std::string("malformed result: ") + e.what());
  }
}

std::vector<TestResult> collect_results(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::vector<TestResult> results;
  std::map<std::string, std::string> seen;  // test -> file
  for (const auto& dir : dirs) {
    if (!fs::is_directory(dir)) throw InputError(dir, 0, "not a folder");
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const std::string path = entry.path().string();
      if (entry.is_regular_file() && path.ends_with(".result.json")) files.push_back(path);
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      TestResult r = result_from_json(parse_json(read_file(path), path), path);
      auto [it, fresh] = seen.emplace(r.id.name(), path);
      if (!fresh) throw InputError(path, 0, r.id.name() + " was already read from " + it->second);
      results.push_back(std::move(r));
    }
  }
  std::sort(results.begin(), results.end(),
            [](const auto& a, const auto& b) { return a.id.name() < b.id.name(); });
  return results;
}

bool every_test_must_run() {
  const char* ci = std::getenv("CI");
  if (!ci) return false;
  std::string v = ci;
  return !v.empty() && v != "0" && v != "false";
}

const char* state_for_exit(int code) {
  switch (code) {
    case kExitOk: return "pass";
    case kExitBadInput: return "bad input";
    case kExitRegression: return "regressed";
    case kExitToolchain: return "toolchain failure";
    case kExitNew: return "new";
    case kExitToolchainChanged: return "toolchain changed";
    case kExitSignatureChanged: return "signature changed";
    case kExitNotRun: return "not run";
    case kExitSkipped: return "skipped";
    default: return "error";
  }
}

}  // namespace tileperf
