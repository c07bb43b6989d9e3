// A library's or the model's bump reviewed once: the tests grouped by what
// moved in each, and the one command that accepts them.
#define BOOST_TEST_MODULE bump
#include <boost/test/unit_test.hpp>

#include <regex>

#include "report/bump_text.h"
#include "results/bump.h"

using namespace tileperf;

namespace {

TestResult result(const std::string& config, State state, std::vector<std::string> moved = {}) {
  TestResult r;
  r.id = {"moe_fp8", config, "sm_100"};
  r.state = state;
  r.library = {{"flashinfer-python", "0.7.4"}};
  if (state != State::kNew) r.library_change = {"flashinfer-python 0.7.2.post1 -> 0.7.4"};
  for (const auto& name : moved) {
    MetricDiff d;
    d.name = name;
    d.baseline = 1;
    d.current = 2;
    d.change = Change::kChanged;
    r.diff.push_back(d);
  }
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_library_bump_is_shown_once_by_what_moved) {
  std::vector<TestResult> results = {
      result("quantize", State::kRegressed, {"cost.time_ns", "sass.instructions"}),
      result("gemm1", State::kSignatureChanged, {"sass.opcode.MOV"}),
      result("gemm2", State::kSignatureChanged),
      result("gemm3", State::kImproved, {"cost.time_ns", "launch.waves"}),
      result("gemm4", State::kPass),
      result("pack", State::kNew),
  };
  results[1].unmoved = results[2].unmoved = true;
  TestResult own;  // a project's own kernel, not of the library
  own.id = {"gelu", "f16_1024", "sm_120"};
  own.state = State::kNew;
  std::vector<const TestResult*> shown;
  for (const auto& r : results) shown.push_back(&r);
  shown.push_back(&own);

  auto bumps = make_bumps(shown);
  BOOST_REQUIRE_EQUAL(bumps.size(), 1u);
  BOOST_TEST(bumps[0].tests.size() == 6u);
  BOOST_TEST(bump_text(bumps[0], "ACCEPT") ==
             "flashinfer-python 0.7.2.post1 -> 0.7.4: 6 test(s)\n"
             "  code changed (the counts moved): 1: 1 regressed\n"
             "  the estimate alone moved (cost.*, loop.*, launch.*): 1: 1 improved\n"
             "  signature changed: 2: 2 signature changed, 2 with no gated metric or opcode moved\n"
             "  new (no baseline): 1: 1 new\n"
             "  nothing moved: 1: 1 pass\n"
             "  accept the whole bump with: ACCEPT\n");

  auto same = unmoved_signatures(shown);
  BOOST_TEST(unmoved_signatures_text(same, "ACCEPT") ==
             "signature changed and no gated metric or opcode moved (the same code) in 2 test(s): "
             "perf.moe_fp8.gemm1.sm_100, perf.moe_fp8.gemm2.sm_100\n"
             "  accept them all with: ACCEPT\n");
  BOOST_TEST(unmoved_signatures_text({}, "ACCEPT") == "");
}

BOOST_AUTO_TEST_CASE(a_model_bump_is_a_group_of_its_own) {
  TestResult r = result("gemm", State::kModelChanged, {"cost.time_ns"});
  r.library_change.clear();
  r.model_change = "1 -> 2";
  auto bumps = make_bumps({&r});
  BOOST_REQUIRE_EQUAL(bumps.size(), 1u);
  BOOST_TEST(bumps[0].what == "tileperf's model 1 -> 2");
  BOOST_TEST(bumps[0].moved(BumpMove::kEstimate, State::kModelChanged) == 1u);
  BOOST_TEST(make_bumps({}).empty());
}

BOOST_AUTO_TEST_CASE(the_filter_selects_exactly_the_tests) {
  TestResult a = result("gemm1", State::kPass), b = result("gemm12", State::kPass);
  TestResult c = result("gemm1", State::kPass);
  c.id.kernel = "moe";
  std::string filter = tests_filter({&b, &a, &c});
  BOOST_TEST(filter == "^perf\\.(moe\\.gemm1\\.sm_100|moe_fp8\\.(gemm12\\.sm_100|gemm1\\.sm_100))$");
  BOOST_TEST(tests_filter({&a}) == "^perf\\.(moe_fp8\\.gemm1\\.sm_100)$");
  std::regex re(filter, std::regex::extended);
  BOOST_TEST(std::regex_search("perf.moe_fp8.gemm1.sm_100", re));
  BOOST_TEST(!std::regex_search("perf.moe_fp8.gemm1.sm_1000", re));
  BOOST_TEST(!std::regex_search("perf.moe_fp8xgemm1.sm_100", re));
  BOOST_TEST(!std::regex_search("perf.moe_fp8.gemm123.sm_100", re));
  BOOST_TEST(std::regex_search("perf.moe_fp8.gemm12.sm_100", re));
  BOOST_TEST(std::regex_search("perf.moe.gemm1.sm_100", re));
  BOOST_TEST(!std::regex_search("perf.moe.gemm12.sm_100", re));
}
