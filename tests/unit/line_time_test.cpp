// The launch estimate by source line (model/line_time.h), on the captured
// matmul (tileiras 13.4.92, sm_90) and the captured gelu: the shares are of
// the term that limits the launch, they add up to the estimate, and a
// failing test's moved lines get theirs.
#define BOOST_TEST_MODULE line_time
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>

#include "model/line_time.h"
#include "fixtures.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "support/json_input.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

Measurement captured(const std::string& base, const std::string& dump) {
  ToolOutputs o;
  o.sass_text = fixture(base + ".sass");
  o.sass_name = base + ".sass";
  o.res_usage_text = fixture(base + ".res-usage.txt");
  o.res_usage_name = base + ".res-usage.txt";
  o.remarks_text = fixture(base + ".remarks.yaml");
  o.remarks_name = base + ".remarks.yaml";
  if (std::string tileir = base.substr(0, base.rfind('.')) + ".tileir"; std::filesystem::exists(fixture_path(tileir))) {
    o.tileir_text = fixture(tileir);
    o.tileir_name = tileir;
  }
  static std::optional<Problem> problem;
  problem = problem_from_record(parse_json(fixture(dump), dump), dump);
  return measure(o, fixture_path(base + ".cubin"), &*problem);
}

double total_share(const LineAttribution& a) {
  double sum = 0;
  for (const auto& l : a.lines) sum += l.share;
  return sum;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_tensor_bound_launch_is_shared_by_the_lines_of_its_mma) {
  Measurement m = captured("matmul.f16_128x128x64.sm_90", "matmul.f16_128x128x64.dump.json");
  BOOST_TEST(m.launch.limit == "tensor");
  const LineAttribution& a = m.line_time;
  BOOST_TEST(a.term == "tensor cycles");
  BOOST_REQUIRE(!a.lines.empty());
  BOOST_TEST(std::abs(total_share(a) - 1) < 1e-9);
  double ns = 0;
  for (const auto& l : a.lines) ns += l.ns;
  BOOST_TEST(std::abs(ns - m.launch.total_us * 1e3) < 1);
  for (std::size_t i = 1; i < a.lines.size(); ++i) BOOST_TEST(a.lines[i - 1].share >= a.lines[i].share);
  // Every line with a share holds tensor-core instructions, and no other line has one.
  for (const auto& l : a.lines) BOOST_TEST(m.lines.counts.count(l.line) == 1u, l.line);
  BOOST_TEST(a.lines.front().line == "matmul.py:41");
}

BOOST_AUTO_TEST_CASE(each_loop_gets_its_cycles_per_iteration_by_line) {
  Measurement m = captured("matmul.f16_128x128x64.sm_90", "matmul.f16_128x128x64.dump.json");
  const LineAttribution& a = m.line_time;
  BOOST_REQUIRE_EQUAL(a.loop_lines.size(), m.loops.loops.size());
  BOOST_REQUIRE(m.loops.main >= 0);
  const auto& main = a.loop_lines[static_cast<std::size_t>(m.loops.main)];
  BOOST_REQUIRE(!main.empty());
  double instructions = 0;
  for (const auto& l : main) instructions += l.instructions;
  // The loop body's own instructions, each counted once per iteration.
  BOOST_TEST(instructions == static_cast<double>(m.loops.loops[static_cast<std::size_t>(m.loops.main)].instructions));
  for (std::size_t i = 1; i < main.size(); ++i) BOOST_TEST(main[i - 1].cycles >= main[i].cycles);
  BOOST_TEST(!a.loop_pipe[static_cast<std::size_t>(m.loops.main)].empty());
}

BOOST_AUTO_TEST_CASE(a_dram_bound_launch_is_shared_by_its_load_and_store_lines) {
  Measurement m = captured("gelu.f16_1024.sm_90", "gelu.f16_1024.dump.json");
  BOOST_TEST(m.launch.limit == "dram");
  const LineAttribution& a = m.line_time;
  // This TileIR (tileiras 13.4.92's disassembler) has no locations: the SASS's loads and stores.
  BOOST_TEST(a.term == "global memory bytes (SASS loads and stores)");
  BOOST_REQUIRE_EQUAL(a.lines.size(), 2u);  // the load's line and the store's: the same bytes each
  BOOST_TEST(std::abs(a.lines[0].share - 0.5) < 1e-9);
  BOOST_TEST(std::abs(a.lines[1].share - 0.5) < 1e-9);
}

BOOST_AUTO_TEST_CASE(moved_lines_get_their_share_and_a_line_that_is_gone_none) {
  LineAttribution a;
  a.term = "mufu cycles";
  a.lines = {{"gelu.py:21", 0.75, 750}, {"gelu.py:20", 0.25, 250}};
  std::vector<LineMove> moves = {
      {"gelu.py:21", 8, 122, ""}, {"gelu.py:21 (old)", 8, 0, ""}, {"gelu.py:18", 23, 24, ""}};
  add_line_time(moves, a);
  BOOST_TEST(moves[0].share == 0.75);
  BOOST_TEST(moves[0].ns == 750);
  BOOST_TEST(moves[1].share == -1);  // gone: no share
  BOOST_TEST(moves[2].share == 0);   // there, but none of the limiting term
  std::vector<LineMove> none = {{"gelu.py:21", 8, 122, ""}};
  add_line_time(none, LineAttribution{});
  BOOST_TEST(none[0].share == -1);  // no attribution: not known
}
