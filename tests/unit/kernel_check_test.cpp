// One kernel check's verdict, messages and result file, against baselines
// written in a temporary folder; and the located error of a bad dump record.
#define BOOST_TEST_MODULE kernel_check
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "check/kernel_check.h"
#include "fixtures.h"
#include "gate/baseline.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

Policy instructions_policy() {
  Policy p;
  p.rules = {{"*", Direction::kLower, parse_tolerance("1%"), ""}};
  return p;
}

Metrics metrics(std::int64_t instructions) {
  Metrics m;
  m.id = {"gelu", "f16", "sm_120"};
  m.values = {{"sass.instructions", instructions}, {"regs", 32}};
  m.toolchain = {{"tileiras", "13.4.92"}};
  m.flags = {"-arch", "sm_120"};
  m.generator = "tileperf test";
  return m;
}

CheckOptions options(const testing::TempFolder& f) {
  CheckOptions o;
  o.id = {"gelu", "f16", "sm_120"};
  o.work_dir = (f.root / "work").string();
  o.baseline = (f.root / "baselines" / "f16.sm_120.json").string();
  o.update_command = "make update";
  fs::create_directories(o.work_dir);
  fs::create_directories(f.root / "baselines");
  return o;
}

TestResult result_for(const CheckOptions& o) {
  TestResult r;
  r.id = o.id;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(no_baseline_is_new_and_names_the_update_command) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  TestResult r = result_for(o);
  std::string report;
  BOOST_TEST(compare_with_baseline(o, instructions_policy(), metrics(100), {}, r, report) == kExitNew);
  BOOST_TEST(std::string(state_name(r.state)) == "new");
  BOOST_TEST(r.message == "no baseline at " + o.baseline + "; create it with: make update");
}

BOOST_AUTO_TEST_CASE(a_regression_fails_and_its_result_file_reads_back) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  write_baseline(o.baseline, metrics(100), instructions_policy());
  TestResult r = result_for(o);
  std::string report;
  BOOST_TEST(compare_with_baseline(o, instructions_policy(), metrics(110), {}, r, report) == kExitRegression);
  BOOST_TEST(std::string(state_name(r.state)) == "regressed");
  BOOST_TEST(r.message == "1 metric(s) over the limit; if intended, accept with: make update");
  BOOST_TEST(report.find("sass.instructions") != std::string::npos);
  BOOST_TEST(report.find("  listing: " + prefixed_file(o.prefix(), FileKind::kSass)) != std::string::npos);

  r.exit_code = kExitRegression;
  std::string printed = finish_check(o, r, report);
  BOOST_TEST(printed.rfind("perf.gelu.f16.sm_120: regressed", 0) == 0);
  std::string file = prefixed_file(o.prefix(), FileKind::kResult);
  TestResult back = result_from_json(parse_json(read_file(file), file), file);
  BOOST_TEST(std::string(state_name(back.state)) == "regressed");
  BOOST_TEST(back.exit_code == kExitRegression);
  BOOST_REQUIRE(back.diff.size() == 1u);
  BOOST_TEST(back.diff[0].name == "sass.instructions");
  BOOST_TEST(back.diff[0].current == 110);
}

BOOST_AUTO_TEST_CASE(within_the_limit_passes) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  write_baseline(o.baseline, metrics(1000), instructions_policy());
  TestResult r = result_for(o);
  std::string report;
  BOOST_TEST(compare_with_baseline(o, instructions_policy(), metrics(1005), {}, r, report) == kExitOk);
  BOOST_TEST(std::string(state_name(r.state)) == "pass");
  BOOST_TEST(r.message.empty());
  o.exact = true;
  r = result_for(o);
  BOOST_TEST(compare_with_baseline(o, instructions_policy(), metrics(1005), {}, r, report) == kExitRegression);
}

BOOST_AUTO_TEST_CASE(strict_mode_fails_an_improvement_as_stale) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  o.strict = true;
  write_baseline(o.baseline, metrics(1000), instructions_policy());
  TestResult r = result_for(o);
  std::string report;
  BOOST_TEST(compare_with_baseline(o, instructions_policy(), metrics(900), {}, r, report) == kExitRegression);
  BOOST_TEST(std::string(state_name(r.state)) == "stale");
}

BOOST_AUTO_TEST_CASE(update_creates_then_leaves_an_unchanged_baseline_alone) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  TestResult r = result_for(o);
  std::string report;
  BOOST_TEST(update_baseline(o, instructions_policy(), metrics(100), r, report) == kExitOk);
  BOOST_TEST(std::string(state_name(r.state)) == "created");
  std::string written = read_file(o.baseline);
  BOOST_TEST(read_baseline(o.baseline).values.at("sass.instructions") == 100);

  r = result_for(o);
  BOOST_TEST(update_baseline(o, instructions_policy(), metrics(100), r, report) == kExitOk);
  BOOST_TEST(std::string(state_name(r.state)) == "unchanged");
  BOOST_TEST(read_file(o.baseline) == written);

  r = result_for(o);
  BOOST_TEST(update_baseline(o, instructions_policy(), metrics(120), r, report) == kExitOk);
  BOOST_TEST(std::string(state_name(r.state)) == "updated");
  BOOST_TEST(r.message == "1 metric(s) moved");
  BOOST_TEST(read_baseline(o.baseline).values.at("sass.instructions") == 120);
}

BOOST_AUTO_TEST_CASE(another_toolchain_fails_and_writes_nothing) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  write_baseline(o.baseline, metrics(100), instructions_policy());
  std::string written = read_file(o.baseline);
  Metrics current = metrics(100);
  current.toolchain["tileiras"] = "13.5.37";
  TestResult r = result_for(o);
  std::string report;
  BOOST_TEST(compare_with_baseline(o, instructions_policy(), current, {}, r, report) == kExitToolchainChanged);
  BOOST_TEST(std::string(state_name(r.state)) == "toolchain changed");
  BOOST_REQUIRE(r.toolchain_change.size() == 1u);
  BOOST_TEST(r.toolchain_change[0] == "tileiras 13.4.92 -> 13.5.37");
  BOOST_TEST(read_file(o.baseline) == written);
}

BOOST_AUTO_TEST_CASE(options_without_tools_are_a_usage_error) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  o.bytecode = (f.root / "k.tileirbc").string();
  BOOST_CHECK_EXCEPTION(check_kernel(o, {}), UsageError, [](const UsageError& e) {
    return std::string(e.what()) == "check: give --toolchain, or --tileiras and --cuobjdump";
  });
}

BOOST_AUTO_TEST_CASE(a_damaged_dump_record_is_located_and_its_result_written) {
  testing::TempFolder f("kernel-check");
  CheckOptions o = options(f);
  o.bytecode = (f.root / "k.tileirbc").string();
  o.dump_info = (f.root / "k.json").string();
  o.tc.tileiras = "/bin/false";
  o.tc.cuobjdump = "/bin/false";
  o.cache_dir = "off";
  write_file_atomic(o.dump_info, "{\n  \"seconds\": ,\n}\n", Durability::kRenamed);
  std::string message;
  try {
    check_kernel(o, {});
  } catch (const InputError& e) {
    message = format_error(e);
  }
  BOOST_TEST(message.rfind("tileperf: error: " + o.dump_info + ":2: ", 0) == 0, message);
  std::string file = prefixed_file(o.prefix(), FileKind::kResult);
  TestResult back = result_from_json(parse_json(read_file(file), file), file);
  BOOST_TEST(back.exit_code == kExitBadInput);
  BOOST_TEST(std::string(state_name(back.state)) == "bad input");
}
