// The CI templates in ci/ are valid YAML and run the commands that the
// consumer tests exercise (ctest -I shards, tileperf report merging them).
#define BOOST_TEST_MODULE ci_templates
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <string>

namespace {

const std::string kCi = std::string(TILEPERF_FIXTURES) + "/../../ci";

bool any_step_runs(const YAML::Node& steps, const std::string& text) {
  for (const auto& step : steps) {
    if (step["run"] && step["run"].as<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

bool script_has(const YAML::Node& script, const std::string& text) {
  for (const auto& line : script) {
    if (line.as<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(github_actions) {
  YAML::Node wf = YAML::LoadFile(kCi + "/github/tileperf.yml");
  const auto gate = wf["jobs"]["gate"];
  BOOST_TEST(gate["strategy"]["matrix"]["shard"].size() == 3u);
  BOOST_TEST(any_step_runs(gate["steps"], "tools/run setup"));
  BOOST_TEST(any_step_runs(gate["steps"], "ctest --preset perf -I ${{ matrix.shard }},,3"));
  const auto report = wf["jobs"]["report"];
  BOOST_TEST(report["needs"].as<std::string>() == "gate");
  BOOST_TEST(report["if"].as<std::string>() == "always()");
  BOOST_TEST(any_step_runs(report["steps"], "build/tools/tileperf report shards/* --markdown report.md"));
}

BOOST_AUTO_TEST_CASE(gitlab_ci) {
  YAML::Node ci = YAML::LoadFile(kCi + "/gitlab/tileperf.gitlab-ci.yml");
  const auto gate = ci["tileperf:gate"];
  BOOST_TEST(gate["parallel"].as<int>() == 3);
  BOOST_TEST(script_has(gate["script"], "ctest --preset perf -I ${CI_NODE_INDEX},,${CI_NODE_TOTAL}"));
  BOOST_TEST(script_has(ci[".tileperf-setup"]["before_script"], "tools/run setup"));
  const auto report = ci["tileperf:report"];
  BOOST_TEST(report["needs"][0].as<std::string>() == "tileperf:gate");
  BOOST_TEST(script_has(report["script"], "build/tools/tileperf report build/tileperf --markdown report.md"));
  BOOST_TEST(script_has(report["script"], "merge_requests/$CI_MERGE_REQUEST_IID/notes"));
}
