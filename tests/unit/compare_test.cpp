#define BOOST_TEST_MODULE compare
#include <boost/test/unit_test.hpp>

#include <limits>

#include "gate/compare.h"
#include "gate/judgement.h"
#include "report/comparison_text.h"

using namespace tileperf;

namespace {

Policy default_like() {
  Policy p;
  p.rules = {
      {"local.bytes", Direction::kLower, parse_tolerance("0"), ""},
      {"sass.mufu*", Direction::kLower, parse_tolerance("0"), ""},
      {"sass.opcode.*", Direction::kInfo, {}, ""},
      {"tensor_core", Direction::kHigher, parse_tolerance("0"), ""},
      {"ii", Direction::kExact, {}, ""},
      {"*", Direction::kLower, parse_tolerance("1%"), ""},
  };
  return p;
}

Metrics metrics(std::map<std::string, std::int64_t> values) {
  Metrics m;
  m.id = {"gelu", "f16", "sm_120"};
  m.values = std::move(values);
  return m;
}

const MetricDiff& find(const Comparison& c, const std::string& name) {
  for (const auto& d : c.diffs) {
    if (d.name == name) return d;
  }
  throw std::runtime_error("no diff for " + name);
}

}  // namespace

namespace tileperf {
std::ostream& operator<<(std::ostream& os, State s) { return os << state_name(s); }
}  // namespace tileperf

BOOST_AUTO_TEST_CASE(within_tolerance_passes) {
  auto c =
      compare_metrics(metrics({{"sass.instructions", 1000}}), metrics({{"sass.instructions", 1010}}), default_like());
  BOOST_TEST(c.state == State::kPass);
  BOOST_TEST(find(c, "sass.instructions").limit == 10.0);
  BOOST_TEST(c.changed() == 1u);
}

BOOST_AUTO_TEST_CASE(over_tolerance_regresses) {
  auto c = compare_metrics(metrics({{"sass.instructions", 1000}, {"sass.mufu.EX2", 8}}),
                           metrics({{"sass.instructions", 1011}, {"sass.mufu.EX2", 9}}), default_like());
  BOOST_TEST(c.state == State::kRegressed);
  auto regressed = c.with_verdict(Verdict::kRegressed);
  BOOST_REQUIRE(regressed.size() == 2u);
  BOOST_TEST(regressed[0]->name == "sass.mufu.EX2");  // +12.5% sorts before +1.1%
  BOOST_TEST(regressed[1]->name == "sass.instructions");
}

BOOST_AUTO_TEST_CASE(new_and_removed_metrics) {
  auto c = compare_metrics(metrics({{"sass.mufu.TANH", 8}}), metrics({{"sass.mufu.EX2", 8}}), default_like());
  BOOST_TEST((find(c, "sass.mufu.EX2").change == Change::kNew));
  BOOST_TEST((find(c, "sass.mufu.EX2").verdict == Verdict::kRegressed));
  BOOST_TEST(std::isinf(find(c, "sass.mufu.EX2").percent()));
  BOOST_TEST((find(c, "sass.mufu.TANH").change == Change::kRemoved));
  BOOST_TEST((find(c, "sass.mufu.TANH").verdict == Verdict::kImproved));
}

BOOST_AUTO_TEST_CASE(improvement_and_directions) {
  auto c = compare_metrics(metrics({{"cubin.bytes", 1000}, {"tensor_core", 2}, {"ii", 40}}),
                           metrics({{"cubin.bytes", 900}, {"tensor_core", 2}, {"ii", 40}}), default_like());
  BOOST_TEST(c.state == State::kImproved);
  auto fewer_mma = compare_metrics(metrics({{"tensor_core", 2}}), metrics({{"tensor_core", 1}}), default_like());
  BOOST_TEST(fewer_mma.state == State::kRegressed);
  auto lower_ii = compare_metrics(metrics({{"ii", 40}}), metrics({{"ii", 39}}), default_like());
  BOOST_TEST(lower_ii.state == State::kRegressed);  // exact: any change counts
}

BOOST_AUTO_TEST_CASE(info_metrics_never_gate_unless_exact) {
  auto base = metrics({{"sass.opcode.FADD", 8}});
  auto cur = metrics({{"sass.opcode.FADD", 80}});
  BOOST_TEST(compare_metrics(base, cur, default_like()).state == State::kPass);
  BOOST_TEST(compare_metrics(base, cur, default_like(), true).state == State::kRegressed);
  BOOST_TEST(compare_metrics(base, base, default_like(), true).state == State::kPass);
}

BOOST_AUTO_TEST_CASE(diff_table_shows_moves_and_top_opcodes) {
  auto c = compare_metrics(metrics({{"sass.mufu.TANH", 8}, {"sass.opcode.MUFU.TANH", 8}, {"sass.opcode.FMUL", 40}}),
                           metrics({{"sass.mufu.TANH", 16}, {"sass.opcode.MUFU.TANH", 16}, {"sass.opcode.FMUL", 38}}),
                           default_like());
  std::string table = format_diff_table(c.diffs);
  BOOST_TEST(table.find("sass.mufu.TANH") != std::string::npos);
  BOOST_TEST(table.find("+100.0%") != std::string::npos);
  BOOST_TEST(table.find("REGRESSED") != std::string::npos);
  BOOST_TEST(table.find("opcodes that moved most: MUFU.TANH +8, FMUL -2") != std::string::npos);
  auto same = compare_metrics(metrics({{"regs", 4}}), metrics({{"regs", 4}}), default_like());
  BOOST_TEST(format_diff_table(same.diffs) == "  no metric moved\n");
}

BOOST_AUTO_TEST_CASE(broken_invariant_fails_even_when_baseline_agrees) {
  Policy p = default_like();
  p.invariants.push_back(parse_invariant("local.bytes == 0"));
  p.invariants.back().why = "no spills";
  p.invariants.back().origin = "checks/k.json: invariants[0]";
  auto spilling = metrics({{"local.bytes", 32}});
  auto c = compare_metrics(spilling, spilling, p);
  BOOST_TEST(c.changed() == 0u);
  BOOST_TEST(c.state == State::kRegressed);
  BOOST_TEST(format_broken(c.broken) ==
             "  invariant broken: checks/k.json: invariants[0] requires local.bytes == 0 (no spills); "
             "found local.bytes = 32\n");
}

BOOST_AUTO_TEST_CASE(total_line_and_measurements) {
  auto c =
      compare_metrics(metrics({{"sass.instructions", 100}, {"regs", 4}, {"sass.opcode.FADD", 3}, {"sass.mufu.EX2", 1}}),
                      metrics({{"sass.instructions", 100}, {"regs", 5}, {"sass.opcode.FADD", 4}, {"sass.mufu.RCP", 2}}),
                      default_like());
  BOOST_TEST(format_diff_table(c.diffs).find("  TOTAL  5 metrics: 4 moved (2 regressed, 1 improved, 0 within limits, "
                                             "1 informational; 1 new, 1 removed), 1 unchanged\n") != std::string::npos);
  auto m = metrics({{"sass.instructions", 100}, {"sass.opcode.FADD", 3}});
  BOOST_TEST(format_measurements(m, default_like()) ==
             "<CTestMeasurement type=\"numeric/double\" name=\"sass.instructions\">100"
             "</CTestMeasurement>\n");
}

BOOST_AUTO_TEST_CASE(extreme_values_cannot_overflow_a_comparison) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  Comparison up = compare_metrics(metrics({{"regs", min}}), metrics({{"regs", max}}), default_like());
  BOOST_TEST(find(up, "regs").delta() == max);
  BOOST_TEST((find(up, "regs").verdict == Verdict::kRegressed));
  Comparison down = compare_metrics(metrics({{"regs", max}}), metrics({{"regs", min}}), default_like());
  BOOST_TEST(find(down, "regs").delta() == -max);
  BOOST_TEST((find(down, "regs").verdict == Verdict::kImproved));
  BOOST_TEST(find(down, "regs").percent() < -100.0);
}

BOOST_AUTO_TEST_CASE(a_code_change_the_estimate_calls_faster_leads_with_it) {
  Policy p = default_like();
  p.rules.insert(p.rules.begin(), {"cost.time_ns", Direction::kLower, parse_tolerance("2%"), ""});
  Metrics base = metrics({{"cost.time_ns", 2000000}, {"sass.instructions", 1000}, {"loop.main.ii", 100}});
  Metrics unrolled = metrics({{"cost.time_ns", 1640000}, {"sass.instructions", 1450}, {"loop.main.ii", 193}});
  Judgement j = judge(base, unrolled, p);
  BOOST_TEST(j.state == State::kRegressed);  // the counts are gated
  BOOST_TEST(
      j.trade_off ==
      "estimated 18.0% faster (cost.time_ns 2000000 -> 1640000) while loop.main.ii +93.0%, sass.instructions +45.0%");
  // Slower by the estimate too, or faster within its limit: no trade-off to show.
  BOOST_TEST(judge(base, metrics({{"cost.time_ns", 2100000}, {"sass.instructions", 1450}, {"loop.main.ii", 100}}), p)
                 .trade_off.empty());
  BOOST_TEST(judge(base, metrics({{"cost.time_ns", 1990000}, {"sass.instructions", 1450}, {"loop.main.ii", 100}}), p)
                 .trade_off.empty());
}
