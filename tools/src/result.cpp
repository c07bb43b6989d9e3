#include "result.h"

#include "metrics.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "error.h"
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
    broken.push_back({{"require", b.invariant->text}, {"why", b.invariant->why},
                      {"origin", b.invariant->origin}, {"found", b.found}});
  }
}

nlohmann::json to_json(const TestResult& r) {
  return {{"format", kResultFormat},  {"test", r.id.name()},       {"kernel", r.id.kernel},
          {"config", r.id.config},    {"arch", r.id.arch},         {"state", r.state},
          {"exit_code", r.exit_code}, {"message", r.message},      {"key_metrics", r.key_metrics},
          {"seconds", r.seconds},     {"diff", r.diff},            {"broken", r.broken},
          {"notes", r.notes}};
}

TestResult result_from_json(const nlohmann::json& j, const std::string& filename) {
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

const char* state_for_exit(int code) {
  switch (code) {
    case kExitOk: return "pass";
    case kExitBadInput: return "bad input";
    case kExitRegression: return "regressed";
    case kExitToolchain: return "toolchain failure";
    case kExitNew: return "new";
    case kExitToolchainChanged: return "toolchain changed";
    case kExitSkipped: return "skipped";
    default: return "error";
  }
}

}  // namespace tileperf
