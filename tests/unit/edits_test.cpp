// Verdicts on checks of edited kernels: exact metric names, set invariants
// by their prefix, no-op edits clean only when nothing moved.
#define BOOST_TEST_MODULE edits
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "results/edits.h"
#include "gate/judgement.h"
#include "support/error.h"
#include "fixtures.h"
#include "metrics/metrics.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

EditExpectation mutant(std::vector<std::string> metrics) {
  return {"m", EditKind::kMutant, std::move(metrics), {"f16_1024"}, {}, "", ""};
}

MetricDiff over_limit(const std::string& metric) {
  MetricDiff d;
  d.name = metric;
  d.verdict = Verdict::kRegressed;
  return d;
}

TestResult regressed(std::vector<std::string> over, std::vector<std::string> broken_metrics = {}) {
  TestResult r;
  r.state = State::kRegressed;
  r.exit_code = kExitRegression;
  for (const auto& m : over) r.diff.push_back(over_limit(m));
  for (const auto& m : broken_metrics) r.broken.push_back({m + " == 0", m, "", "", ""});
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_mutant_is_caught_by_each_expected_metric_exactly) {
  auto r = regressed({"sass.mufu.RCP", "sass.instructions"});
  BOOST_TEST(judge_edit(mutant({"sass.mufu.RCP"}), &r).as_expected);
  BOOST_TEST(judge_edit(mutant({"sass.mufu.RCP", "sass.instructions"}), &r).text == "caught");
}

BOOST_AUTO_TEST_CASE(a_metric_under_a_regressed_prefix_is_not_caught) {
  // Only sass.mufu and sass.mufu.EX2 regressed: an expected sass.mufu.RCP escaped.
  auto r = regressed({"sass.mufu", "sass.mufu.EX2"});
  auto v = judge_edit(mutant({"sass.mufu.RCP"}), &r);
  BOOST_TEST(!v.as_expected);
  BOOST_TEST(v.text ==
             "escaped (sass.mufu.RCP neither over its limit nor in a broken invariant; "
             "state regressed)");
  BOOST_TEST(!judge_edit(mutant({"sass"}), &r).as_expected);  // nor a prefix of one
}

BOOST_AUTO_TEST_CASE(a_broken_invariant_names_its_metric_or_its_set_prefix) {
  auto r = regressed({}, {"remarks.load.tma_shape"});
  BOOST_TEST(judge_edit(mutant({"remarks.load.tma_shape"}), &r).as_expected);
  BOOST_TEST(!judge_edit(mutant({"remarks.load.tma_shape.64x64"}), &r).as_expected);
  BOOST_TEST(!judge_edit(mutant({"remarks.load"}), &r).as_expected);
}

BOOST_AUTO_TEST_CASE(a_mutant_that_did_not_regress_escaped) {
  TestResult pass;
  pass.state = State::kPass;
  BOOST_TEST(judge_edit(mutant({"sass.instructions"}), &pass).text == "escaped (state pass, exit 0)");
  TestResult failure;
  failure.state = State::kToolchainFailure;
  failure.exit_code = kExitToolchain;
  BOOST_TEST(!judge_edit(mutant({"sass.instructions"}), &failure).as_expected);
  BOOST_TEST(judge_edit(mutant({"x"}), nullptr).text == "not run (no result file)");
}

BOOST_AUTO_TEST_CASE(a_mutant_expecting_its_signature_must_end_as_signature_changed) {
  TestResult changed;
  changed.state = State::kSignatureChanged;
  changed.exit_code = kExitSignatureChanged;
  BOOST_TEST(judge_edit(mutant({"signature"}), &changed).as_expected);
  auto r = regressed({"sass.instructions"});
  BOOST_TEST(judge_edit(mutant({"signature"}), &r).text == "escaped (state regressed, not signature changed)");
  BOOST_TEST(!judge_edit(mutant({"sass.instructions"}), &changed).as_expected);
  // A mutant of the configuration: another signature, and the metric moved.
  changed.diff.push_back(over_limit("sass.instructions"));
  BOOST_TEST(judge_edit(mutant({"sass.instructions"}), &changed).as_expected);
}

BOOST_AUTO_TEST_CASE(a_noop_edit_is_clean_only_when_its_exact_check_passed) {
  EditExpectation noop{"n", EditKind::kNoop, {}, {"f16_1024"}, {}, "", ""};
  TestResult pass;
  pass.state = State::kPass;
  BOOST_TEST(judge_edit(noop, &pass).text == "clean");
  auto moved = regressed({"sass.opcode.FFMA"});
  BOOST_TEST(judge_edit(noop, &moved).text == "moved (state regressed)");
}

BOOST_AUTO_TEST_CASE(a_tuning_mutant_must_be_a_tuning_change_ending_in_its_state) {
  EditExpectation edit = mutant({kTuningExpectation, "pass"});
  TestResult r;
  r.state = State::kPass;
  BOOST_TEST(judge_edit(edit, &r).text == "not a tuning change (state pass)");
  r.tuning = {"parameters[4].value: 64 -> 32"};
  BOOST_TEST(judge_edit(edit, &r).text == "caught");
  r.state = State::kRegressed;
  BOOST_TEST(judge_edit(edit, &r).text == "judged regressed by the launch estimate, not pass");
}

BOOST_AUTO_TEST_CASE(a_validation_edit_is_judged_against_its_measured_change) {
  EditExpectation edit{"v", EditKind::kValidation, {}, {"a", "b", "c"}, {}, "a=+12.0% b=-30.5% c=+2.0%", ""};
  TestResult r;
  r.state = State::kPass;
  r.id.config = "a";  // 12% slower: must fail
  BOOST_TEST(judge_edit(edit, &r).text == "runs +12.0% slower but passed (state pass)");
  r.state = State::kRegressed;
  BOOST_TEST(judge_edit(edit, &r).as_expected);
  r.id.config = "b";  // 30% faster: must not regress
  BOOST_TEST(judge_edit(edit, &r).text == "runs -30.5% faster but was gated as regressed");
  // A code change whose counts regress while the estimate calls it faster:
  // it fails by its counts, and the estimate got it right.
  MetricDiff estimate;
  estimate.name = kLaunchEstimate;
  estimate.verdict = Verdict::kImproved;
  r.diff.push_back(estimate);
  BOOST_TEST(judge_edit(edit, &r).text ==
             "measured -30.5%, state regressed: the estimate calls it faster, the counts regress");
  r.tuning = {"parameters[4].value: 64 -> 32"};  // a tuning change is judged by the estimate alone
  BOOST_TEST(!judge_edit(edit, &r).as_expected);
  r.tuning.clear();
  r.diff.clear();
  r.state = State::kImproved;
  BOOST_TEST(judge_edit(edit, &r).as_expected);
  r.id.config = "c";  // within the noise: either verdict
  r.state = State::kRegressed;
  BOOST_TEST(judge_edit(edit, &r).as_expected);
  r.id.config = "d";  // not timed
  BOOST_TEST(judge_edit(edit, &r).text == "untimed, state regressed");
  r.state = State::kToolchainChanged;
  BOOST_TEST(!judge_edit(edit, &r).as_expected);
}

BOOST_AUTO_TEST_CASE(a_known_miss_must_keep_missing) {
  EditExpectation edit{"v", EditKind::kValidation, {}, {"a"}, {}, "a=+31.1%", "no per-SM receive limit"};
  TestResult r;
  r.id.config = "a";
  r.state = State::kPass;
  auto v = judge_edit(edit, &r);
  BOOST_TEST(v.as_expected);
  BOOST_TEST(v.text.rfind("known miss (no per-SM receive limit): runs +31.1% slower", 0) == 0);
  r.state = State::kRegressed;
  v = judge_edit(edit, &r);
  BOOST_TEST(!v.as_expected);
  BOOST_TEST(v.text.find("remove the patch's 'miss:' line") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(measured_changes_are_read_per_configuration) {
  BOOST_TEST(*measured_change("f16_1024=-69.7% bf16_4096=+2.5%", "bf16_4096") == 2.5);
  BOOST_TEST(!measured_change("untimed", "f16_1024").has_value());
  BOOST_TEST(!measured_change("f16_1024=-69.7%", "f16_4096").has_value());
  BOOST_TEST(valid_measured("untimed"));
  BOOST_TEST(valid_measured("a=+1.0% b=-2.5%"));
  BOOST_TEST(!valid_measured("a=fast"));
  BOOST_TEST(!valid_measured("a=+1.0"));
}

BOOST_AUTO_TEST_CASE(the_manifest_is_validated) {
  auto bad = [](const char* text) {
    return error_message([&] { edits_from_json(parse_json(text, "e.json"), "e.json"); });
  };
  BOOST_TEST(bad(R"([{"name": "m", "kind": "mutant", "expect": [], "configs": ["a"]}])") ==
             "tileperf: error: e.json: edits[0]: a mutant must expect at least one metric\n");
  BOOST_TEST(bad(R"([{"name": "m", "kind": "other", "expect": [], "configs": []}])") ==
             "tileperf: error: e.json: edits[0]: 'kind' must be \"mutant\", \"noop\" or \"validation\"\n");
  BOOST_TEST(bad(R"([{"name": "m", "kind": "noop", "expect": [], "configs": [1]}])") ==
             "tileperf: error: e.json: edits[0]: 'configs' must be a list of strings\n");
}

BOOST_AUTO_TEST_CASE(the_report_counts_every_check_and_fails_on_a_wrong_expectation) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("edits_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "m");
  TestResult r = regressed({"sass.instructions"});
  r.id = {"k", "f16_1024", "sm_90"};
  r.key_metrics = {};
  std::ofstream(dir / "m" / "f16_1024.sm_90.result.json") << to_json(r).dump();
  std::string report;
  BOOST_TEST(report_edits({mutant({"sass.instructions"})}, dir.string(), {"sass_90"}, report) == false);
  report.clear();
  BOOST_TEST(report_edits({mutant({"sass.instructions"})}, dir.string(), {"sm_90"}, report));
  BOOST_TEST(report.find("mutant catch rate: 1/1 mutants caught") != std::string::npos);
  report.clear();
  // The same result judged against a wrong expectation fails the report.
  BOOST_TEST(!report_edits({mutant({"sass.mufu"})}, dir.string(), {"sm_90"}, report));
  BOOST_TEST(report.find("FAIL mutant m (expect: sass.mufu)") != std::string::npos);
  fs::remove_all(dir);
}
