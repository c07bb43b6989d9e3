#define BOOST_TEST_MODULE toolchain_preview
#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>

#include "diffs.h"
#include "fixtures.h"
#include "metrics/variance.h"
#include "report/toolchain_preview.h"
#include "results/run_record.h"
#include "support/text.h"

using namespace tileperf;

namespace {

MetricDiff diff(const std::string& name, std::int64_t base, std::int64_t cur, Verdict v,
                Direction dir = Direction::kLower) {
  return testing::metric_diff(name, base, cur, dir, v);
}

TestResult bumped(const std::string& kernel, const std::string& arch, std::vector<MetricDiff> diffs, State compared) {
  TestResult r;
  r.id = {kernel, "f16", arch};
  r.state = State::kToolchainChanged;
  r.compared = compared;
  r.toolchain_change = {"tileiras 13.4.92 -> 13.5.37"};
  r.diff = std::move(diffs);
  return r;
}

std::vector<const TestResult*> pointers(const std::vector<TestResult>& results) {
  std::vector<const TestResult*> out;
  for (const auto& r : results) out.push_back(&r);
  return out;
}

// Three toolchain changed tests (one regresses MUFU and regs, one improves,
// one stays within limits) and one that passed.
std::vector<TestResult> bump() {
  std::vector<TestResult> rs;
  rs.push_back(bumped("softmax", "sm_90",
                      {diff("sass.mufu.RCP", 4, 7, Verdict::kRegressed), diff("sass.mufu", 13, 15, Verdict::kRegressed),
                       diff("sass.instructions", 423, 389, Verdict::kImproved)},
                      State::kRegressed));
  rs.push_back(bumped("transpose", "sm_120",
                      {diff("regs", 24, 32, Verdict::kRegressed), diff("sass.mufu", 1, 2, Verdict::kRegressed)},
                      State::kRegressed));
  rs.push_back(bumped("gelu", "sm_120",
                      {diff("sass.instructions", 143, 120, Verdict::kImproved),
                       diff("sass.opcode.FFMA", 10, 2, Verdict::kInfo, Direction::kInfo)},
                      State::kImproved));
  rs.push_back(bumped("rope", "sm_90", {diff("sass.instructions", 100, 101, Verdict::kOk)}, State::kPass));
  TestResult pass;
  pass.id = {"matmul", "f16", "sm_90"};
  rs.push_back(pass);
  return rs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(preview_state_is_what_the_check_judged_under_the_new_toolchain) {
  auto rs = bump();
  BOOST_TEST(state_name(preview_state(rs[0])) == std::string("regressed"));
  BOOST_TEST(state_name(preview_state(rs[2])) == std::string("improved"));
  BOOST_TEST(state_name(preview_state(rs[3])) == std::string("pass"));
  // Another kernel under the new toolchain would fail too, and says why.
  rs[3].compared = State::kSignatureChanged;
  ToolchainPreview p = make_toolchain_preview(pointers(rs));
  BOOST_TEST(preview_counts_text(p) == "3 would regress, 1 would improve, 0 within limits");
  BOOST_TEST(preview_markdown(p, "UPDATE").find("would regress (signature changed)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(totals_per_verdict_and_metric_by_impact) {
  auto rs = bump();
  ToolchainPreview p = make_toolchain_preview(pointers(rs));
  BOOST_TEST(p.tests.size() == 4u);
  BOOST_TEST(p.other == 1u);
  BOOST_TEST(preview_counts_text(p) == "2 would regress, 1 would improve, 1 within limits");
  BOOST_REQUIRE(p.changes.size() == 1u);
  BOOST_TEST(p.changes[0] == "tileiras 13.4.92 -> 13.5.37");
  // sass.mufu regressed in two tests: first; then the larger regression of one.
  BOOST_REQUIRE(p.metrics.size() == 4u);
  BOOST_TEST(p.metrics[0].metric == "sass.mufu");
  BOOST_TEST(p.metrics[0].regressed == 2u);
  BOOST_TEST(p.metrics[0].total_delta == 3);
  BOOST_TEST(p.metrics[0].worst_test == "perf.transpose.f16.sm_120");
  BOOST_TEST(p.metrics[0].worst_text == "1 -> 2 (+100.0%)");
  BOOST_TEST(p.metrics[1].metric == "sass.mufu.RCP");  // +75%
  BOOST_TEST(p.metrics[2].metric == "regs");           // +33.3%
  BOOST_TEST(p.metrics[3].metric == "sass.instructions");
  BOOST_TEST(p.metrics[3].improved == 2u);
  BOOST_TEST(p.metrics[3].ok == 1u);
  // Tests: regressions first, the largest first.
  BOOST_TEST(p.tests[0].result->id.kernel == "transpose");
  BOOST_TEST(p.tests[1].result->id.kernel == "softmax");
  BOOST_TEST(p.tests[2].result->id.kernel == "gelu");
}

BOOST_AUTO_TEST_CASE(text_gives_one_command) {
  auto rs = bump();
  std::string text = preview_text(make_toolchain_preview(pointers(rs)), "UPDATE", 0, "PREVIEW");
  BOOST_TEST(text ==
             "toolchain changed in 4 test(s) (tileiras 13.4.92 -> 13.5.37); compared under the usual "
             "policies, nothing written: 2 would regress, 1 would improve, 1 within limits\n"
             "  per metric and per test: PREVIEW\n"
             "  accept them all with: UPDATE\n");
}

BOOST_AUTO_TEST_CASE(markdown_holds_every_test_and_fits_its_limit) {
  auto rs = bump();
  auto p = make_toolchain_preview(pointers(rs));
  std::string full = preview_markdown(p, "UPDATE", 0);
  BOOST_TEST(full.find("**2 would regress, 1 would improve, 1 within limits** (1 other test(s)") != std::string::npos);
  BOOST_TEST(full.find("| `sass.mufu` | 2 | 0 | 0 | +3 | perf.transpose.f16.sm_120 1 -> 2 (+100.0%) |") !=
             std::string::npos);
  BOOST_TEST(full.find("<details><summary><b>perf.transpose.f16.sm_120</b>: would regress: regs 24 -> 32 "
                       "(+33.3%), sass.mufu 1 -> 2 (+100.0%)</summary>") != std::string::npos);
  BOOST_TEST(full.find("Accept them all with: `UPDATE`") != std::string::npos);
  // Smaller limits: details give way to one line per test, then tests are cut.
  std::size_t head = full.find("#### Tests");
  std::string shorter = preview_markdown(p, "UPDATE", head + 600);
  BOOST_TEST(shorter.size() <= head + 600);
  BOOST_TEST(shorter.find("- **perf.rope.f16.sm_90**: within limits") != std::string::npos);
  std::string cut = preview_markdown(p, "UPDATE", head + 250);
  BOOST_TEST(cut.size() <= head + 250);
  BOOST_TEST(cut.find("more test(s) left out to stay under") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_update_command_is_the_one_the_run_record_keeps) {
  testing::TempFolder folder("preview-test");
  std::string results = (folder.root / "build" / "tileperf").string();
  std::filesystem::create_directories(results);
  BOOST_TEST(recorded_update_command({results}) == "cmake --build <build-dir> --target update_baselines");
  write_run_record(
      results + "/run.json",
      {.id = "r1", .checks = "/src/checks", .update_command = "cmake --build /b --target update_baselines"});
  for (const auto& dir : {results, (folder.root / "build").string(), results + "/gelu"}) {
    BOOST_TEST(recorded_update_command({"/nonexistent/tileperf", dir}) == "cmake --build /b --target update_baselines");
  }
}

// A bump's preview lists the configurations whose compilation varies under
// the new toolchain, from what `tileperf variance` measured for the run, or
// says how to measure it.
BOOST_AUTO_TEST_CASE(the_preview_says_which_compilations_vary) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("tileperf-preview-variance-{}", ::getpid());
  fs::create_directories(dir);
  std::string file = (dir / "variance.json").string();
  BOOST_TEST(variance_summary(file, "build/tileperf/run.json") ==
             "whether a compilation varies under this toolchain is not measured for this run: tileperf variance "
             "--run-file build/tileperf/run.json (then this preview lists what varies)\n");
  write_file_atomic(file, R"json({"format": "tileperf-variance/1", "configurations": [
    {"test": "perf.a.b.sm_100", "variants": [{"runs_randomized": 8, "runs_fixed": 11}, {"runs_randomized": 3, "runs_fixed": 0}],
     "differing": ["loop.main.loads 208 / 287 (+38.0%)"]},
    {"test": "perf.a.c.sm_100", "variants": [{"runs_randomized": 11, "runs_fixed": 11}]}]})json");
  BOOST_TEST(variance_summary(file, "run.json") ==
             "compilations that vary under this toolchain (" + file +
                 "): 1 of 2 configuration(s)\n"
                 "  perf.a.b.sm_100: 2 variants (runs with the randomisation on+off: 8+11, 3+0); loop.main.loads 208 / "
                 "287 (+38.0%)\n");
  fs::remove_all(dir);
}
