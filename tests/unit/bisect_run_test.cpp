// tileperf bisect's work as the command line reaches it: the test it
// follows, the ctest selection of that test, the options read back from a
// test's command, and the located errors before any step runs.
#define BOOST_TEST_MODULE bisect_run
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "check/bisect_run.h"
#include "fixtures.h"
#include "support/error.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

std::string usage_error(const BisectOptions& o) {
  try {
    bisect(o);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_bisected_test_is_a_perf_tests_name) {
  TestId id = bisected_test("perf.gelu.f16_1024.sm_90");
  BOOST_TEST(id.kernel == "gelu");
  BOOST_TEST(id.config == "f16_1024");
  BOOST_TEST(id.arch == "sm_90");
  try {
    bisected_test("gelu.f16_1024");
    BOOST_FAIL("a name that is no perf test's was taken");
  } catch (const UsageError& e) {
    BOOST_TEST(std::string(e.what()) ==
               "bisect: --test 'gelu.f16_1024' must be a perf test's name: perf.<kernel>.<config>.<arch>");
  }
}

BOOST_AUTO_TEST_CASE(ctest_selects_exactly_the_test) {
  BOOST_TEST(ctest_regex({"gelu", "f16_1024", "sm_90"}) == "^perf\\.gelu\\.f16_1024\\.sm_90$");
}

BOOST_AUTO_TEST_CASE(an_option_is_read_back_from_a_tests_command) {
  nlohmann::json command = {"tileperf", "check", "--work-dir", "/w/gelu", "--arch", "sm_90", "--last"};
  BOOST_TEST(option_value(command, "--work-dir") == "/w/gelu");
  BOOST_TEST(option_value(command, "--arch") == "sm_90");
  BOOST_TEST(option_value(command, "--missing") == "");
  BOOST_TEST(option_value(command, "--last") == "");  // no value after it
}

BOOST_AUTO_TEST_CASE(bad_options_stop_before_any_step) {
  BisectOptions o;
  o.good = "HEAD~1";
  o.bad = "HEAD";
  o.test = "perf.gelu.f16_1024.sm_90";
  o.timeout = 0;
  BOOST_TEST(usage_error(o) == "bisect: --timeout must be a positive number of seconds");
  o.timeout = 10;
  o.test = "perf.gelu";
  BOOST_TEST(usage_error(o) == "bisect: --test 'perf.gelu' must be a perf test's name: perf.<kernel>.<config>.<arch>");
}

BOOST_AUTO_TEST_CASE(a_folder_outside_git_is_named) {
  testing::TempFolder dir("bisect_run_test");
  BisectOptions o;
  o.good = "HEAD~1";
  o.bad = "HEAD";
  o.test = "perf.gelu.f16_1024.sm_90";
  o.repo = dir.root.string();
  std::string error = usage_error(o);
  BOOST_TEST(error.rfind(o.repo + ": not in a git work tree (", 0) == 0, error);
}
