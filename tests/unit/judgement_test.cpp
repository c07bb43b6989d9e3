// The one decision: judge() gives a comparison's final state, and every
// caller (the check, `tileperf compare`, the merge-request review, the diff
// of two builds, the toolchain preview and bisect) ends in that state, on
// the same inputs, with the exit code of the states table.
#define BOOST_TEST_MODULE judgement
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "check/bisect_run.h"
#include "check/kernel_check.h"
#include "cli/commands.h"
#include "fixtures.h"
#include "gate/baseline.h"
#include "gate/judgement.h"
#include "gate/policy.h"
#include "inspect/build_diff.h"
#include "metrics/metrics.h"
#include "inspect/merge_review.h"
#include "report/build_diff_text.h"
#include "report/toolchain_preview.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

const std::string kChecks = std::string(TILEPERF_SOURCE_DIR) + "/checks";

Metrics base_metrics() {
  Metrics m;
  m.id = {"gelu", "f16_1024", "sm_120"};
  m.values = {{"sass.instructions", 1000}, {"regs", 32}, {"local.bytes", 0}, {"cost.time_ns", 10000}};
  m.signature = {{"parameters[0].kind", "ConstantConstraint"},
                 {"parameters[0].value", "1024"},
                 {"parameters[1].dtype", "float16"}};
  m.toolchain = {{"tileiras", "13.5.37"}};
  m.flags = {"-O3"};
  m.generator = "tileperf test";
  m.model = "1";
  return m;
}

struct Case {
  const char* name;
  Metrics current;
  State state, compared;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  auto with = [](auto edit) {
    Metrics m = base_metrics();
    edit(m);
    return m;
  };
  out.push_back(
      {"within limits", with([](Metrics& m) { m.values["sass.instructions"] = 1005; }), State::kPass, State::kPass});
  out.push_back({"regressed", with([](Metrics& m) { m.values["sass.instructions"] = 1500; }), State::kRegressed,
                 State::kRegressed});
  out.push_back(
      {"improved", with([](Metrics& m) { m.values["sass.instructions"] = 500; }), State::kImproved, State::kImproved});
  // Only a constant moved: judged by the launch estimate, 10% faster,
  // whatever the instructions did.
  out.push_back({"tuning", with([](Metrics& m) {
                   m.signature["parameters[0].value"] = "2048";
                   m.values["sass.instructions"] = 1500;
                   m.values["cost.time_ns"] = 9000;
                 }),
                 State::kImproved, State::kImproved});
  out.push_back({"another kernel", with([](Metrics& m) {
                   m.signature["parameters[1].dtype"] = "float32";
                   m.values["sass.instructions"] = 500;
                 }),
                 State::kSignatureChanged, State::kSignatureChanged});
  // Only the estimate moved, under another version of the model.
  out.push_back({"another model", with([](Metrics& m) {
                   m.model = "2";
                   m.values["cost.time_ns"] = 14000;
                 }),
                 State::kModelChanged, State::kModelChanged});
  // Another signature, and no gated metric moved: the same code.
  out.push_back({"another signature, same code",
                 with([](Metrics& m) { m.signature["parameters[2].kind"] = "ConstantConstraint"; }),
                 State::kSignatureChanged, State::kSignatureChanged});
  // Another toolchain first; what it compares to is kept for the preview and
  // bisect.
  out.push_back({"another toolchain", with([](Metrics& m) {
                   m.toolchain["tileiras"] = "13.6.1";
                   m.values["sass.instructions"] = 1500;
                 }),
                 State::kToolchainChanged, State::kRegressed});
  return out;
}

struct Folders : testing::TempFolder {
  Folders() : TempFolder("judgement-test") {}
  std::string path(const std::string& name) const { return (root / name).string(); }
  // `m` as a baseline under `dir` (and its detail file).
  std::string baseline(const std::string& dir, const Metrics& m) const {
    std::string file =
        (fs::path(path(dir)) / relative_path({FileKind::kBaseline, m.id.kernel, m.id.config, m.id.arch, ""})).string();
    write_baseline(file, m, load_policy(kChecks, m.id.kernel, m.id.config));
    return file;
  }
  // `m` as a build's metrics file under `dir`.
  std::string measured(const std::string& dir, const Metrics& m) const {
    std::string prefix = test_prefix((fs::path(path(dir)) / m.id.kernel).string(), m.id.config, m.id.arch);
    fs::create_directories(fs::path(prefix).parent_path());
    write_file_atomic(prefixed_file(prefix, FileKind::kMetrics), to_json_text(m), Durability::kRenamed);
    return prefixed_file(prefix, FileKind::kMetrics);
  }
};

// What a call prints on standard output, and its return value.
template <typename F>
std::pair<int, std::string> printed(const std::string& file, F&& f) {
  std::fflush(stdout);
  int saved = ::dup(1);
  std::FILE* out = std::fopen(file.c_str(), "w");
  ::dup2(::fileno(out), 1);
  int code = f();
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  std::fclose(out);
  return {code, read_file(file)};
}

// The diff's shown state back as a state: a pass is "changed" or "unchanged".
State diff_state(const std::string& shown) {
  return shown == "changed" || shown == "unchanged" ? State::kPass : state_from_name(shown, "diff");
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_caller_ends_in_the_state_judge_gives) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  for (const auto& c : cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      Folders f;
      Metrics base = base_metrics();
      std::string base_file = f.baseline("base", base);
      std::string head_file = f.baseline("head", c.current);
      Judgement j = judge(read_baseline(base_file), read_baseline(head_file), policy);
      BOOST_TEST(state_name(j.state) == state_name(c.state));
      BOOST_TEST(state_name(j.compared) == state_name(c.compared));

      // tileperf check.
      CheckOptions o;
      o.id = base.id;
      o.baseline = base_file;
      o.work_dir = f.path("work/gelu");
      TestResult checked;
      checked.id = base.id;
      std::string report;
      int code = compare_with_baseline(o, policy, read_baseline(head_file), CheckSeen{}, checked, report);
      BOOST_TEST(state_name(checked.state) == state_name(j.state));
      BOOST_TEST(code == j.exit_code());
      BOOST_TEST(code == state_info(j.state).exit_code);

      // tileperf compare.
      auto [compare_code, text] = printed(f.path("compare.txt"), [&] {
        return run_compare({base_file, head_file, "--checks", kChecks});
      });
      BOOST_TEST(compare_code == j.exit_code());
      BOOST_TEST(text.rfind(base.id.name() + ": " + state_name(j.state) + "\n", 0) == 0, text);

      // The merge-request review of a branch that rewrote the baseline.
      ReviewInputs in{f.path("base"), f.path("head"), kChecks};
      Review review = make_review({}, in);
      BOOST_REQUIRE_EQUAL(review.accepted.size(), 1u);
      BOOST_TEST(state_name(review.accepted[0].state) == state_name(j.state));

      // The diff of two builds.
      DiffOptions d;
      d.base = f.path("build-base");
      d.head = f.path("build-head");
      d.checks = kChecks;
      f.measured("build-base", base);
      f.measured("build-head", c.current);
      BuildDiff built = diff_builds(d);
      nlohmann::json diff = build_diff_json(built, d);
      BOOST_TEST(state_name(diff_state(diff.at("tests").at(0).at("state"))) == state_name(j.state));
      BOOST_TEST(built.exit_code() == j.exit_code());

      // The toolchain preview and bisect: the state under the new tools.
      BOOST_TEST(state_name(preview_state(checked)) == state_name(j.compared));
      BOOST_TEST(bisect_verdict(read_baseline(base_file), read_baseline(head_file), policy) == state_name(j.compared));
    }
  }
}

BOOST_AUTO_TEST_CASE(strict_mode_makes_an_improvement_stale_for_check_and_compare_alike) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Folders f;
  Metrics base = base_metrics(), better = base_metrics();
  better.values["sass.instructions"] = 500;
  std::string base_file = f.baseline("base", base), head_file = f.baseline("head", better);
  Judgement j = judge(base, better, policy, {.exact = false, .strict = true});
  BOOST_TEST(state_name(j.state) == std::string("stale"));
  BOOST_TEST(j.exit_code() == kExitRegression);
  BOOST_TEST(judgement_message(j, "UPDATE") ==
             "improved beyond tolerance, and strict mode fails on a stale baseline; tighten it with: UPDATE");
  CheckOptions o;
  o.id = base.id;
  o.baseline = base_file;
  o.work_dir = f.path("work/gelu");
  o.strict = true;
  o.update_command = "UPDATE";
  TestResult checked;
  std::string report;
  BOOST_TEST(compare_with_baseline(o, policy, better, CheckSeen{}, checked, report) == kExitRegression);
  BOOST_TEST(state_name(checked.state) == std::string("stale"));
  BOOST_TEST(checked.message == judgement_message(j, "UPDATE"));
  auto [code, text] = printed(f.path("compare.txt"), [&] {
    return run_compare({base_file, head_file, "--checks", kChecks, "--strict"});
  });
  BOOST_TEST(code == kExitRegression);
  BOOST_TEST(text.rfind("perf.gelu.f16_1024.sm_120: stale\n", 0) == 0, text);
}

BOOST_AUTO_TEST_CASE(an_error_carries_its_state_and_the_states_exit_code) {
  BOOST_TEST(state_name(UsageError("x").state()) == std::string("bad input"));
  BOOST_TEST(state_name(InputError("f", 1, "x").state()) == std::string("bad input"));
  BOOST_TEST(state_name(ToolError("x").state()) == std::string("toolchain failure"));
  BOOST_TEST(state_name(SkipError("x").state()) == std::string("skipped"));
  for (const Error& e : {Error(State::kIoFailure, "x"), Error(State::kError, "x"), Error(State::kNotRun, "x")}) {
    BOOST_TEST(e.code() == state_info(e.state()).exit_code);
  }
}

// A configuration whose compilation varies: its baseline records each
// variant (a cubin and its metrics) and the bytecode they came from.
BOOST_AUTO_TEST_CASE(a_varying_compilation_passes_on_a_known_variant_and_fails_on_a_new_one) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics baseline = base_metrics();
  baseline.bytecode = "b1";
  baseline.cubin = "c1";
  auto other = baseline.values;
  other["sass.instructions"] = 1300;  // 30% more: past every limit
  other["regs"] = 40;
  baseline.variants.push_back({"c2", other, std::nullopt});

  Metrics first = base_metrics();
  first.bytecode = "b1";
  first.cubin = "c1";
  Judgement a = judge(baseline, first, policy);
  BOOST_TEST(state_name(a.state) == "pass");
  BOOST_TEST((a.variant == 1 && a.variants == 2));

  Metrics second = first;
  second.cubin = "c2";
  second.values = other;
  Judgement b = judge(baseline, second, policy);
  BOOST_TEST(state_name(b.state) == "pass");
  BOOST_TEST(b.variant == 2);
  BOOST_TEST(judgement_message(b) ==
             "the compilation of this configuration varies: this is variant 2 of the 2 its baseline records");

  // The same bytecode, a cubin no variant is, with metrics of its own: the compiler varies.
  Metrics third = second;
  third.cubin = "c3";
  third.values["sass.instructions"] = 1600;
  Judgement c = judge(baseline, third, policy);
  BOOST_TEST(state_name(c.state) == "compiler varies");
  BOOST_TEST(c.exit_code() == 11);
  BOOST_TEST(judgement_message(c, "update") ==
             "the compiler varies: the bytecode its 2 recorded variants were compiled from gave another cubin "
             "(SHA-256 c3), whose metrics are none of theirs; against the nearest, variant 2: sass.instructions "
             "1300 -> 1600; if it is another variant of the same code, record it with: "
             "TILEPERF_RECORD_VARIANT=1 update");

  // A new cubin whose metrics are exactly a variant's: that variant, as far as any metric goes.
  Metrics same_metrics = second;
  same_metrics.cubin = "c4";
  BOOST_TEST(state_name(judge(baseline, same_metrics, policy).state) == "pass");

  // Other bytecode: the code changed, judged against the nearest variant as usual.
  Metrics edited = third;
  edited.bytecode = "b2";
  Judgement d = judge(baseline, edited, policy);
  BOOST_TEST(state_name(d.state) == "regressed");
  BOOST_TEST(d.compared_with == 2);

  // A baseline without variants is judged as ever: a deterministic configuration gets no looser.
  Metrics plain = base_metrics();
  BOOST_TEST(state_name(judge(plain, second, policy).state) == "regressed");
}

BOOST_AUTO_TEST_CASE(a_baseline_keeps_what_was_compiled_only_where_it_varies) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics m = base_metrics();
  m.bytecode = "b1";
  m.cubin = "c1";
  BaselineTexts plain = baseline_texts("x/f16_1024.sm_120.json", m, policy);
  BOOST_TEST(plain.main.find("compiled") == std::string::npos);
  m.variants.push_back({"c2", m.values, std::nullopt});
  BaselineTexts varying = baseline_texts("x/f16_1024.sm_120.json", m, policy);
  BOOST_TEST(varying.main.find("\"cubin\": \"c1\"") != std::string::npos);
  Metrics back = parse_baseline("x/f16_1024.sm_120.json", varying.main,
                                [&](const std::string&) { return std::optional<std::string>(varying.detail); });
  BOOST_TEST(back.variants.size() == 1);
  BOOST_TEST(back.variants[0].cubin == "c2");
  BOOST_TEST(back.cubin == "c1");
}

// An update under a new model meets one variant; the other keeps the
// estimate it was measured with, and the model that measured it, so that
// meeting it later is the model's change, not a regression.
BOOST_AUTO_TEST_CASE(a_variant_keeps_the_model_its_estimate_was_measured_under) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics baseline = base_metrics();  // model 1
  baseline.bytecode = "b1";
  baseline.cubin = "c1";
  baseline.model = "2";
  baseline.variants.push_back({"c2", base_metrics().values, std::string("1")});
  BaselineTexts texts = baseline_texts("x/f16_1024.sm_120.json", baseline, policy);
  Metrics back = parse_baseline("x/f16_1024.sm_120.json", texts.main,
                                [&](const std::string&) { return std::optional<std::string>(texts.detail); });
  BOOST_TEST((back.variants.at(0).model == std::optional<std::string>("1")));
  std::vector<Metrics> known = known_variants(back);
  BOOST_TEST(known.at(0).model == "2");
  BOOST_TEST(known.at(1).model == "1");

  Metrics second = base_metrics();
  second.model = "2";
  second.bytecode = "b1";
  second.cubin = "c2";
  second.values["cost.time_ns"] = second.values["cost.time_ns"] * 3 / 2;
  Judgement j = judge(back, second, policy);
  BOOST_TEST(state_name(j.state) == "model changed");
  BOOST_TEST(j.variant == 2);
}

namespace {

// A kernel whose estimate rose 41.5% while its counts fell.
Metrics counts_fell(Metrics m) {
  m.values["sass.instructions"] = 800;
  m.values["sass.mufu"] = 5;
  m.values["loop.main.ii"] = 80;
  m.values["cost.time_ns"] = 14150;
  return m;
}

Metrics with_counts(Metrics m) {
  m.values["sass.mufu"] = 10;
  m.values["loop.main.ii"] = 100;
  m.values["loop.main.trips"] = 4;
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_estimate_every_count_contradicts_says_so_and_names_the_inputs_that_moved) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics base = with_counts(base_metrics());
  Metrics trips = counts_fell(base);
  trips.values["loop.main.trips"] = 64;
  Judgement j = judge(base, trips, policy);
  BOOST_TEST(state_name(j.state) == "regressed");
  BOOST_TEST(judgement_message(j, "UPDATE") ==
             "the estimate and the counts disagree: cost.time_ns +41.5% while sass.instructions -20.0%, "
             "sass.mufu -50.0%, loop.main.ii -20.0%; the model's inputs that moved: trips (loop.main.trips 4 -> 64): "
             "1 metric(s) over the limit; if intended, accept with: UPDATE");

  Metrics occupancy = counts_fell(base);
  occupancy.values["launch.blocks_per_sm"] = 1;
  base.values["launch.blocks_per_sm"] = 2;
  j = judge(base, occupancy, policy);
  BOOST_TEST(j.disagreement.find("the model's inputs that moved: occupancy (launch.blocks_per_sm 2 -> 1)") !=
                 std::string::npos,
             j.disagreement);

  // Nothing the baseline records moved: the loops or their warps did.
  base.values.erase("launch.blocks_per_sm");
  j = judge(base, counts_fell(base), policy);
  BOOST_TEST(j.disagreement.find("none of the model's inputs the baseline records moved") != std::string::npos,
             j.disagreement);

  // An estimate that fell while the counts rose, the trade-off's mirror.
  Metrics faster = base;
  faster.values["sass.instructions"] = 1005;
  faster.values["cost.time_ns"] = 8000;
  j = judge(base, faster, policy);
  BOOST_TEST(state_name(j.state) == "improved");
  BOOST_TEST(judgement_message(j).rfind("the estimate and the counts disagree: cost.time_ns -20.0% while "
                                        "sass.instructions +0.5%; ",
                                        0) == 0,
             judgement_message(j));
}

BOOST_AUTO_TEST_CASE(an_estimate_a_count_follows_is_judged_as_before) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics base = with_counts(base_metrics());
  Metrics slower = counts_fell(base);
  slower.values["loop.main.ii"] = 120;  // the loop got longer: the estimate follows it
  Judgement j = judge(base, slower, policy);
  BOOST_TEST(state_name(j.state) == "regressed");
  BOOST_TEST(j.disagreement == "");
  // Only the estimate moved: nothing contradicts it.
  Metrics only = base;
  only.values["cost.time_ns"] = 14150;
  BOOST_TEST(judge(base, only, policy).disagreement == "");
}

BOOST_AUTO_TEST_CASE(a_signature_change_that_moves_nothing_says_so_in_one_line) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics base = base_metrics();
  Metrics added = base;
  added.signature["parameters[2].kind"] = "ConstantConstraint";
  added.signature["parameters[2].value"] = "0";
  added.values["tileir.ops"] = 3;  // informational: moves nothing gated
  Judgement j = judge(base, added, policy);
  BOOST_TEST(state_name(j.state) == "signature changed");
  BOOST_TEST(j.unmoved);
  BOOST_TEST(judgement_message(j, "UPDATE") ==
             "the signature changed (parameters[2].kind: (none) -> ConstantConstraint; parameters[2].value: (none) "
             "-> 0) and no gated metric or opcode moved: the same code; accept with: UPDATE");
  Metrics opcodes = added;  // another instruction for one: another dtype, say
  opcodes.values["sass.opcode.HFMA2.BF16"] = 8;
  BOOST_TEST(!judge(base, opcodes, policy).unmoved);
  added.values["sass.instructions"] = 1001;  // within its limit, but moved
  BOOST_TEST(!judge(base, added, policy).unmoved);
}

BOOST_AUTO_TEST_CASE(an_estimate_moved_by_the_model_alone_is_model_changed_and_never_regressed) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics base = with_counts(base_metrics());
  Metrics now = base;
  now.model = "2";
  now.values["cost.time_ns"] = 14150;
  now.values["loop.main.trips"] = 64;
  Judgement j = judge(base, now, policy);
  BOOST_TEST(state_name(j.state) == "model changed");
  BOOST_TEST(j.exit_code() == 12);
  BOOST_TEST(judgement_message(j, "UPDATE") ==
             "only the model's metrics moved, under another version of tileperf's model (1 -> 2): "
             "cost.time_ns +41.5%; every count is the baseline's; accept the model's estimates with: UPDATE");
  // A count moved as well: judged as usual, with a note.
  now.values["sass.instructions"] = 1500;
  j = judge(base, now, policy);
  BOOST_TEST(state_name(j.state) == "regressed");
  BOOST_REQUIRE_EQUAL(j.notes.size(), 1u);
  BOOST_TEST(j.notes[0].rfind("the model changed too (version 1 -> 2)", 0) == 0);
  // A baseline that does not record the model's version: judged as before.
  base.model.clear();
  now.values["sass.instructions"] = 1000;
  BOOST_TEST(state_name(judge(base, now, policy).state) == "regressed");
  // Nothing past its limit: a pass.
  base.model = "1";
  now.values["cost.time_ns"] = 10100;
  BOOST_TEST(state_name(judge(base, now, policy).state) == "pass");
}

BOOST_AUTO_TEST_CASE(a_library_release_is_provenance_not_a_toolchain) {
  Policy policy = load_policy(kChecks, "gelu", "f16_1024");
  Metrics base = base_metrics();
  base.library = {{"flashinfer-python", "0.7.2.post1"}};
  Metrics now = base;
  now.library = {{"flashinfer-python", "0.7.4"}};
  Judgement j = judge(base, now, policy);
  BOOST_TEST(state_name(j.state) == "pass");
  BOOST_TEST(j.toolchain.empty());
  BOOST_REQUIRE_EQUAL(j.library.size(), 1u);
  BOOST_TEST(j.library[0] == "flashinfer-python 0.7.2.post1 -> 0.7.4");
  // A baseline written before the library was recorded is no bump.
  base.library.clear();
  BOOST_TEST(judge(base, now, policy).library.empty());
}

BOOST_AUTO_TEST_CASE(a_tuning_change_is_judged_by_the_launch_estimate_alone) {
  Metrics base, tuned;
  base.id = tuned.id = {"k", "c", "sm_90"};
  base.signature = {
      {"parameters[0].kind", "ConstantConstraint"}, {"parameters[0].value", "64"}, {"hints.occupancy", "None"}};
  tuned.signature = {
      {"parameters[0].kind", "ConstantConstraint"}, {"parameters[0].value", "128"}, {"hints.occupancy", "None"}};
  base.values = {{"cost.time_ns", 1000}, {"sass.instructions", 100}};
  tuned.values = {{"cost.time_ns", 900}, {"sass.instructions", 300}};
  Policy policy = parse_policy(R"({"rules": [{"metric": "cost.time_ns", "direction": "lower", "tolerance": "2%"},
                                            {"metric": "*", "direction": "lower", "tolerance": "1%"}]})",
                               "policy.json", "c");
  BOOST_TEST((classify_signature(base, tuned) == SignatureChange::kTuning));
  Judgement j = judge(base, tuned, policy);
  BOOST_TEST(j.tuning());
  BOOST_TEST((j.state == State::kImproved));  // 3x the instructions, but 10% faster
  tuned.values["cost.time_ns"] = 1100;
  BOOST_TEST((judge(base, tuned, policy).state == State::kRegressed));
  // The same values as a code change (no signature moved): the instructions decide.
  Metrics code = tuned;
  code.signature = base.signature;
  code.values["cost.time_ns"] = 900;
  BOOST_TEST((judge(base, code, policy).state == State::kRegressed));
  // An identity change (a dtype) is another kernel whatever moved.
  Metrics other = tuned;
  other.signature["parameters[1].dtype"] = "float16";
  BOOST_TEST((classify_signature(base, other) == SignatureChange::kIdentity));
  BOOST_TEST((judge(base, other, policy).state == State::kSignatureChanged));
  // And another toolchain comes first.
  other.toolchain = {{"tileiras", "13.5.37"}};
  BOOST_TEST((judge(base, other, policy).state == State::kToolchainChanged));
}
