#include "results/result.h"

#include "metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "support/error.h"
#include "support/json_input.h"
#include "results/run_record.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

void TestResult::set_diff(const Comparison& c) {
  diff.clear();
  for (const auto& d : c.diffs) {
    if (d.delta() != 0 || d.verdict == Verdict::kRegressed) diff.push_back(d);
  }
  broken.clear();
  for (const auto& b : c.broken) {
    broken.push_back({b.invariant->text, b.invariant->metric, b.invariant->why, b.invariant->origin, b.found});
  }
}

void TestResult::set_lines(std::vector<LineMove> moves, const std::map<std::string, std::string>& paths) {
  if (moves.size() > kMaxLines) moves.resize(kMaxLines);
  for (auto& m : moves) {
    if (m.text.empty()) m.text = source_text(m.line, paths);
  }
  lines = std::move(moves);
}

namespace {

nlohmann::json line_json(const LineMove& m) {
  nlohmann::json j = {{"line", m.line}, {"baseline", m.baseline}, {"current", m.current}, {"text", m.text}};
  if (m.share >= 0) {
    j["share"] = std::round(m.share * 1e4) / 1e4;
    j["ns"] = std::llround(m.ns);
  }
  return j;
}

nlohmann::json diff_json(const MetricDiff& d) {
  return {{"metric", d.name},
          {"baseline", d.baseline},
          {"current", d.current},
          {"delta", d.delta()},
          {"limit", d.limit},
          {"direction", direction_name(d.direction)},
          {"verdict", verdict_name(d.verdict)},
          {"change", change_name(d.change)}};
}

nlohmann::json broken_json(const BrokenInvariantRecord& b) {
  return {{"require", b.require}, {"metric", b.metric}, {"why", b.why}, {"origin", b.origin}, {"found", b.found}};
}

}  // namespace

nlohmann::json to_json(const TestResult& r) {
  nlohmann::json diff = nlohmann::json::array(), broken = nlohmann::json::array();
  for (const auto& d : r.diff) diff.push_back(diff_json(d));
  for (const auto& b : r.broken) broken.push_back(broken_json(b));
  nlohmann::json j = {{"format", kResultFormat},  {"test", r.id.name()},  {"kernel", r.id.kernel},
                      {"config", r.id.config},    {"arch", r.id.arch},    {"state", state_name(r.state)},
                      {"exit_code", r.exit_code}, {"message", r.message}, {"key_metrics", r.key_metrics},
                      {"seconds", r.seconds},     {"diff", diff},         {"broken", broken},
                      {"notes", r.notes}};
  if (!r.run.empty()) j["run"] = r.run;
  if (r.compared && *r.compared != r.state) j["compared"] = state_name(*r.compared);
  if (!r.toolchain_change.empty()) j["toolchain_change"] = r.toolchain_change;
  if (!r.tuning.empty()) j["tuning"] = r.tuning;
  if (!r.library.empty()) j["library"] = r.library;
  if (!r.library_change.empty()) j["library_change"] = r.library_change;
  if (!r.model_change.empty()) j["model_change"] = r.model_change;
  if (r.unmoved) j["unmoved"] = true;
  if (!r.launch.empty()) j["launch"] = r.launch;
  if (!r.lines.empty()) {
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& m : r.lines) lines.push_back(line_json(m));
    j["lines"] = lines;
  }
  return j;
}

namespace {

[[noreturn]] void malformed(const std::string& filename, const std::string& key, const char* what) {
  throw InputError(filename, 0, "malformed result: key '" + key + "' " + what);
}

void check_strings(const nlohmann::json& j, std::initializer_list<const char*> keys, const std::string& filename,
                   const std::string& where) {
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
  check_strings(d, {"metric", "direction", "verdict", "change"}, filename, where);
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
  check_strings(j, {"format", "test", "kernel", "config", "arch", "state", "compared", "message", "launch"}, filename,
                "");
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
  check_list(j, "diff", filename,
             [&](const nlohmann::json& d, const std::string& where) { check_diff_entry(d, where, filename); });
  check_list(j, "broken", filename, [&](const nlohmann::json& b, const std::string& where) {
    check_strings(b, {"require", "metric", "why", "origin", "found"}, filename, where);
  });
  check_list(j, "lines", filename, [&](const nlohmann::json& l, const std::string& where) {
    check_strings(l, {"line", "text"}, filename, where);
    for (const char* k : {"baseline", "current"}) {
      if (l.contains(k)) json_count(l.at(k), filename, where + k);
    }
  });
  if (j.contains("library") &&
      (!j.at("library").is_object() ||
       !std::all_of(j.at("library").begin(), j.at("library").end(), [](const auto& v) { return v.is_string(); }))) {
    malformed(filename, "library", "must be an object of strings");
  }
  if (j.contains("model_change") && !j.at("model_change").is_string()) {
    malformed(filename, "model_change", "must be a string");
  }
  if (j.contains("unmoved") && !j.at("unmoved").is_boolean()) malformed(filename, "unmoved", "must be true or false");
  for (const char* k : {"notes", "toolchain_change", "tuning", "library_change"}) {
    if (j.contains(k) && (!j.at(k).is_array() ||
                          !std::all_of(j.at(k).begin(), j.at(k).end(), [](const auto& n) { return n.is_string(); }))) {
      malformed(filename, k, "must be a list of strings");
    }
  }
}

}  // namespace

namespace {

MetricDiff diff_from_json(const nlohmann::json& d) {
  MetricDiff m;
  m.name = d.value("metric", "");
  m.baseline = d.value("baseline", std::int64_t(0));
  m.current = d.value("current", std::int64_t(0));
  m.limit = d.value("limit", 0.0);
  m.direction = direction_from_name(d.value("direction", "info"));
  m.verdict = verdict_from_name(d.value("verdict", "info"));
  m.change = d.contains("change")                ? change_from_name(d.value("change", ""))
             : m.baseline == 0 && m.current != 0 ? Change::kNew
             : m.current == 0 && m.baseline != 0 ? Change::kRemoved
                                                 : Change::kChanged;
  return m;
}

}  // namespace

TestResult result_from_json(const nlohmann::json& j, const std::string& filename) {
  check_result(j, filename);
  try {
    if (j.at("format").get<std::string>() != kResultFormat) {
      throw InputError(filename, 0, std::string("not a ") + kResultFormat + " file");
    }
    TestResult r;
    r.id = {.kernel = j.at("kernel"), .config = j.at("config"), .arch = j.at("arch")};
    r.state = state_from_name(j.at("state"), filename);
    if (j.contains("compared")) r.compared = state_from_name(j.at("compared"), filename);
    if (r.state == State::kToolchainChanged && !r.compared) {
      malformed(filename, "compared", "a toolchain changed result must say what its comparison found");
    }
    r.exit_code = j.at("exit_code");
    r.message = j.value("message", "");
    r.run = j.value("run", "");
    r.key_metrics = j.at("key_metrics").get<std::map<std::string, std::int64_t>>();
    r.seconds = j.at("seconds").get<std::map<std::string, double>>();
    for (const auto& d : j.value("diff", nlohmann::json::array())) r.diff.push_back(diff_from_json(d));
    for (const auto& b : j.value("broken", nlohmann::json::array())) {
      r.broken.push_back({b.value("require", ""), b.value("metric", ""), b.value("why", ""), b.value("origin", ""),
                          b.value("found", "")});
    }
    for (const auto& l : j.value("lines", nlohmann::json::array())) {
      r.lines.push_back({l.value("line", ""), l.value("baseline", std::int64_t(0)), l.value("current", std::int64_t(0)),
                         l.value("text", ""), l.value("share", -1.0), l.value("ns", 0.0)});
    }
    r.notes = j.value("notes", std::vector<std::string>{});
    r.toolchain_change = j.value("toolchain_change", std::vector<std::string>{});
    r.tuning = j.value("tuning", std::vector<std::string>{});
    r.library = j.value("library", std::map<std::string, std::string>{});
    r.library_change = j.value("library_change", std::vector<std::string>{});
    r.model_change = j.value("model_change", std::string());
    r.unmoved = j.value("unmoved", false);
    r.launch = j.value("launch", std::string());
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(filename, 0, std::string("malformed result: ") + e.what());
  }
}

std::vector<TestResult> collect_results(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::vector<TestResult> results;
  std::map<std::string, std::string> seen;                          // test -> file
  std::map<std::string, std::optional<std::string>> run_of_folder;  // folder -> id of its nearest run.json
  for (const auto& dir : dirs) {
    if (!fs::is_directory(dir)) throw InputError(dir, 0, "not a folder");
    std::vector<std::string> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string path = it->path().string();
      std::error_code type_ec;
      if (it->is_regular_file(type_ec) && prefix_of(path, FileKind::kResult)) files.push_back(path);
    }
    if (ec) {
      throw InputError(dir, 0, "cannot read this folder or one under it: " + ec.message());
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      TestResult r = result_from_json(parse_json(read_file(path), path), path);
      // Results share their folders: each folder's run record is looked up once.
      std::string folder = fs::path(path).parent_path().string();
      auto cached = run_of_folder.find(folder);
      if (cached == run_of_folder.end()) cached = run_of_folder.emplace(folder, nearest_run_id(path, dir)).first;
      const auto& run = cached->second;
      r.earlier_run = run && *run != r.run;
      r.file = path;
      auto [it, fresh] = seen.emplace(r.id.name(), path);
      if (!fresh) throw InputError(path, 0, r.id.name() + " was already read from " + it->second);
      results.push_back(std::move(r));
    }
  }
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.id.name() < b.id.name(); });
  return results;
}

bool every_test_must_run() {
  const char* ci = std::getenv("CI");
  if (!ci) return false;
  std::string v = ci;
  return !v.empty() && v != "0" && v != "false";
}

nlohmann::json record_beside(const std::string& result_file, FileKind kind, const std::string& format,
                             std::string& problem) {
  auto prefix = prefix_of(result_file, FileKind::kResult);
  if (!prefix) return nullptr;
  std::string path = prefixed_file(*prefix, kind);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return nullptr;
  try {
    auto j = nlohmann::json::parse(read_file(path));
    if (j.is_object() && j.value("format", "") == format) return j;
    problem = path + ": not a " + format + " record";
  } catch (const std::exception& e) {
    problem = path + ": " + e.what();
  }
  return nullptr;
}

}  // namespace tileperf
