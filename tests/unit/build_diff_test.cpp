// The diff of two builds: what it prints and exits with, and where it finds
// the head build's policy folder and update command (its run record).
#define BOOST_TEST_MODULE build_diff
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>

#include "fixtures.h"
#include "inspect/build_diff.h"
#include "metrics/metrics.h"
#include "report/build_diff_text.h"
#include "results/run_record.h"
#include "support/error.h"
#include "support/text.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

struct Scratch : tileperf::testing::TempFolder {
  Scratch() : TempFolder("build-diff-test") {}
  std::string file(const std::string& name) const { return (root / name).string(); }
};

const std::string kChecks = std::string(TILEPERF_SOURCE_DIR) + "/checks";

// A side's results: one gelu test with `instructions` SASS instructions.
std::string write_side(const Scratch& s, const std::string& name, std::int64_t instructions) {
  Metrics m;
  m.id = {"gelu", "f16_1024", "sm_120"};
  m.toolchain = {{"tileiras", "1.2.3"}};
  m.generator = "tileperf test";
  m.values = {{"sass.instructions", instructions}, {"regs", 27}, {"local.bytes", 0}};
  std::string dir = s.file(name);
  fs::create_directories(fs::path(dir) / "gelu");
  write_file_atomic(dir + "/gelu/f16_1024.sm_120.metrics.json", to_json_text(m));
  return dir;
}

std::string diff_text(const DiffOptions& o, int want_exit) {
  BuildDiff d = diff_builds(o);
  BOOST_TEST(d.exit_code() == want_exit);
  return build_diff_text(d, o);
}

std::string last_line(const std::string& text) {
  std::size_t end = text.size() - 1, begin = text.rfind('\n', end - 1);
  return text.substr(begin + 1);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_side_against_itself_prints_only_the_count) {
  Scratch s;
  std::string base = write_side(s, "base", 143);
  DiffOptions o;
  o.base = o.head = base;
  o.checks = kChecks;
  BOOST_TEST(diff_text(o, kExitOk) ==
             "1 test(s) in both: 1 unchanged; 0 added, 0 removed (base " + base + ", head " + base + ")\n");
}

BOOST_AUTO_TEST_CASE(a_regression_exits_3_and_names_the_recorded_update_command) {
  Scratch s;
  std::string base = write_side(s, "base", 143), head = write_side(s, "head", 200);
  write_run_record(head + "/run.json",
                   {.id = "run-1", .checks = kChecks, .update_command = "cmake --build b --target update_baselines"});
  DiffOptions o;
  o.base = base;
  o.head = head;
  std::string text = diff_text(o, kExitRegression);
  BOOST_TEST(text.starts_with("perf.gelu.f16_1024.sm_120: regressed\n"));
  BOOST_TEST(last_line(text) ==
             "if intended, update the head build's baselines with: "
             "cmake --build b --target update_baselines\n");
}

BOOST_AUTO_TEST_CASE(the_policy_folder_comes_from_the_run_record_unless_given) {
  Scratch s;
  std::string results = s.file("results");
  fs::create_directories(results + "/gelu");
  BuildFacts none = recorded_build_facts(results, "");
  BOOST_TEST(none.checks == "checks");
  BOOST_TEST(none.update_command == "");

  write_run_record(results + "/run.json", {.id = "run-1", .checks = "/src/checks", .update_command = "make update"});
  BuildFacts here = recorded_build_facts(results, "");
  BOOST_TEST(here.checks == "/src/checks");
  BOOST_TEST(here.update_command == "make update");
  BOOST_TEST(recorded_build_facts(results, "mine").checks == "mine");
  // One kernel's folder: the record of the folder around it.
  BOOST_TEST(recorded_build_facts(results + "/gelu", "").checks == "/src/checks");
}

BOOST_AUTO_TEST_CASE(a_record_without_a_policy_folder_is_an_error_naming_it_unless_checks_are_given) {
  Scratch s;
  std::string results = s.file("results");
  write_run_record(results + "/run.json", {.id = "run-1"});
  try {
    recorded_build_facts(results, "");
    BOOST_FAIL("no error");
  } catch (const InputError& e) {
    BOOST_TEST(e.file() == results + "/run.json");
    BOOST_TEST(std::string(e.what()).find("no policy folder") != std::string::npos);
  }
  BuildFacts given = recorded_build_facts(results, "mine");
  BOOST_TEST(given.checks == "mine");
  BOOST_TEST(given.update_command == "");
}
