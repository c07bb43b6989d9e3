// The scalar evaluator on hostile and extreme inputs: the undo log of the
// counts, groups of blocks evaluated at once (ranges of block ids), grids
// of any legal size, and integer arithmetic at int64's edges.
#define BOOST_TEST_MODULE skeleton_evaluator
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdint>

#include <fmt/format.h>

#include "model/skeleton.h"
#include "model/skeleton_evaluator.h"
#include "fixtures.h"
#include "readers/tileir.h"

using namespace tileperf;
using namespace tileperf::testing;

BOOST_TEST_DONT_PRINT_LOG_VALUE(tileperf::CountSource)

namespace {

std::string kernel(const std::string& body, const std::string& args = "%arg0: tile<i32>") {
  return "entry @k(" + args + ") optimization_hints=<default = {}> {\n" + body + "  return\n}\n";
}

struct Run {
  TileIrStats stats;
  Skeleton skeleton;
};

Run evaluate(const std::string& text, std::vector<std::int64_t> grid = {1}, std::int64_t max_steps = 1 << 26) {
  Run r;
  r.stats = parse_tileir(text, "t.tileir");
  SkeletonInputs in{&r.stats.program, &r.stats, std::move(grid), {}, "", nullptr, max_steps};
  r.skeleton = evaluate_skeleton(in);
  return r;
}

const std::string kConstants =
    "  %z = constant <i32: 0> : tile<i32>\n  %o = constant <i32: 1> : tile<i32>\n"
    "  %bx, %by, %bz = get_tile_block_id : tile<i32>\n";

// A loop from 0 to the value `expression` computes (its last result %n).
std::string loop_to(const std::string& expression) {
  return kConstants + expression + "  for %i in (%z to %n, step %o) : tile<i32> {\n  }\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_undo_log_saves_each_count_once_per_open_loop) {
  RunCounts c(3, 1);
  c.add(c.execution(0), 1);
  c.begin();
  c.add(c.execution(1), 2);
  c.add(c.execution(1), 2);  // saved once
  c.begin();
  c.add(c.execution(1), 5);
  c.add(c.memory(0), 7);
  c.rollback();  // the inner loop taken back
  BOOST_TEST(c.at(c.execution(1)) == 4);
  BOOST_TEST(c.at(c.memory(0)) == 0);
  c.begin();
  c.add(c.iteration(2), 3);
  c.commit();  // the inner loop holds: its saved count becomes the outer one's
  c.rollback();
  BOOST_TEST(c.at(c.execution(0)) == 1);
  BOOST_TEST(c.at(c.execution(1)) == 0);
  BOOST_TEST(c.at(c.iteration(2)) == 0);
  BOOST_TEST(c.most_saved() == 3u);
  auto counts = c.nonzero();
  BOOST_REQUIRE(counts.size() == 1u);
  BOOST_TEST(counts[0].second == 1);
}

BOOST_AUTO_TEST_CASE(many_loops_are_evaluated_without_a_copy_of_all_their_counts) {
  // 4,000 loops iterated one by one inside one: each execution once copied
  // the counts of all 4,000 (16 million copies per block).
  std::string body;
  for (int k = 0; k < 4000; ++k) {
    body += fmt::format(
        "    for %i{0} in (%z to %n, step %o) : tile<i32> {{\n"
        "      %c{0} = cmpi less_than %i{0}, %o, signed : tile<i32> -> tile<i1>\n"
        "      if %c{0} {{\n        continue\n      }}\n    }}\n",
        k);
  }
  std::string text = kernel(kConstants + "  %n = constant <i32: 3> : tile<i32>\n" +
                            "  for %j in (%z to %n, step %o) : tile<i32> {\n"
                            "    %d = cmpi less_than %j, %o, signed : tile<i32> -> tile<i1>\n"
                            "    if %d {\n      continue\n    }\n" +
                            body + "  }\n");
  auto start = std::chrono::steady_clock::now();
  Run r = evaluate(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST(r.skeleton.loops.size() == 4001u);
  BOOST_TEST(r.skeleton.loops[1].executions == 2);  // j = 1, 2
  BOOST_TEST(r.skeleton.loops[4000].iterations == 6);
  BOOST_TEST(seconds < 10);  // under a second on a slow runner; quadratic took minutes
}

BOOST_AUTO_TEST_CASE(a_for_without_its_induction_variable_is_not_computed) {
  // Its region opened by a block-argument line of none: it once read a
  // null argument.
  Run r = evaluate(kernel(kConstants + "  for %i in (%z to %o, step %o) : tile<i32>\n  () {\n  }\n"));
  BOOST_REQUIRE(r.skeleton.loops.size() == 1u);
  BOOST_TEST(r.skeleton.loops[0].source == CountSource::kAssumed);
  BOOST_TEST(r.skeleton.loops[0].unknown == "the evaluator does not compute for (at t.tileir:5)");
}

BOOST_AUTO_TEST_CASE(blocks_that_share_their_counts_are_one_class_on_any_grid) {
  // The last block along x runs the loop once, the others never: two
  // classes of 2^31 - 1 blocks, found in a few dozen evaluations.
  std::string last = loop_to(
      "  %l = constant <i32: 2147483646> : tile<i32>\n"
      "  %c = cmpi equal %bx, %l, signed : tile<i32> -> tile<i1>\n  %n = select %c, %o, %z : tile<i1>, tile<i32>\n");
  Run r = evaluate(kernel(last), {2147483647});
  const Skeleton& s = r.skeleton;
  BOOST_REQUIRE(s.classes.size() == 2u);
  BOOST_TEST(s.classes[0].blocks == 2147483646);
  BOOST_TEST(s.classes[1].blocks == 1);
  BOOST_TEST(s.classes[1].first_block == 2147483646);
  BOOST_TEST(s.class_of(2147483646) == 1);
  BOOST_TEST(s.class_of(0) == 0);
  BOOST_TEST(s.evaluated_blocks < 100);
  BOOST_TEST(s.varying_dims == std::vector<int>{0});
  // A decision that reads x but is the same for every block: one class, one evaluation.
  Run alike = evaluate(kernel(loop_to("  %c = cmpi less_than %bx, %bx, signed : tile<i32> -> tile<i1>\n"
                                      "  %m = constant <i32: 2147483647> : tile<i32>\n"
                                      "  %d = cmpi less_than %bx, %m, signed : tile<i32> -> tile<i1>\n"
                                      "  %n = select %d, %o, %z : tile<i1>, tile<i32>\n")),
                       {1 << 20, 1 << 20});
  BOOST_TEST(alike.skeleton.classes.size() == 1u);
  BOOST_TEST(alike.skeleton.evaluated_blocks == 1);
  BOOST_TEST(alike.skeleton.loops[0].executions == std::ldexp(1.0, 40));
}

BOOST_AUTO_TEST_CASE(blocks_differing_in_every_way_are_a_located_error_not_a_walk) {
  // bid(0) + bid(1) on 2^40 blocks once allocated a class per block.
  std::string sum = kernel(loop_to("  %n = addi %bx, %by : tile<i32>\n"));
  BOOST_TEST(error_message([&] {
               evaluate(sum, {1 << 20, 1 << 20});
             }) ==
             "tileperf: error: t.tileir:6: the launch's 1099511627776 blocks differ here (for on the block id along "
             "x and y) in more than 65536 groups: too many to evaluate; declare the trips it decides with override(), "
             "or launch fewer blocks\n");
  // ... on a small grid, every block is its own class, exactly.
  Run small = evaluate(sum, {4, 3});
  BOOST_TEST(small.skeleton.classes.size() == 6u);  // sums 0 to 5
  for (std::int64_t b = 0; b < 12; ++b) {
    const BlockClass& c = small.skeleton.classes[static_cast<std::size_t>(small.skeleton.class_of(b))];
    BOOST_TEST(c.trips(0) == static_cast<double>(b % 4 + b / 4));
  }
}

BOOST_AUTO_TEST_CASE(a_grid_of_more_than_three_dimensions_is_refused) {
  BOOST_TEST(error_message([&] {
               evaluate(kernel(kConstants), {2, 2, 2, 2});
             }) == "tileperf: error: t.tileir: a grid of 4 dimensions: a launch has 1 to 3\n");
}

BOOST_AUTO_TEST_CASE(integer_arithmetic_is_defined_at_int64s_edges) {
  const std::string i64 = "%arg0: tile<i64>";
  auto trips = [&](const std::string& body) {
    Run r = evaluate(kernel("  %z = constant <i64: 0> : tile<i64>\n  %o = constant <i64: 1> : tile<i64>\n" + body +
                                "  for %i in (%z to %n, step %o) : tile<i64> {\n  }\n",
                            i64));
    return r.skeleton.loops[0];
  };
  // |INT64_MIN| wraps to itself (negative: no trips); INT64_MIN / -1 has no result.
  BOOST_TEST(trips("  %m = constant <i64: -9223372036854775808> : tile<i64>\n  %n = absi %m : tile<i64>\n").trips() ==
             0);
  BOOST_TEST(trips("  %m = constant <i64: -9223372036854775808> : tile<i64>\n"
                   "  %d = constant <i64: -1> : tile<i64>\n  %n = divi %m, %d signed : tile<i64>\n")
                 .unknown == "the evaluator does not compute divi (at t.tileir:6)");
  // An unsigned cdiv rounds up, as cuTile's does.
  BOOST_TEST(trips("  %a = constant <i64: 7> : tile<i64>\n  %b = constant <i64: 2> : tile<i64>\n"
                   "  %n = divi %a, %b unsigned rounding<positive_inf> : tile<i64>\n")
                 .trips() == 4);
  // A `for` from INT64_MIN by 2^62, iterated: four trips, each value defined.
  Run r =
      evaluate(kernel("  %m = constant <i64: -9223372036854775808> : tile<i64>\n"
                      "  %M = constant <i64: 9223372036854775807> : tile<i64>\n"
                      "  %s = constant <i64: 4611686018427387904> : tile<i64>\n"
                      "  for %i in (%m to %M, step %s) : tile<i64> {\n"
                      "    %c = cmpi less_than %i, %M, signed : tile<i64> -> tile<i1>\n"
                      "    if %c {\n      continue\n    }\n  }\n",
                      i64));
  BOOST_TEST(r.skeleton.loops[0].iterated);
  BOOST_TEST(r.skeleton.loops[0].trips() == 4);
  // A count past int64 is counted, and shown, as the number it is.
  BOOST_TEST(trips("  %n = constant <i64: 9223372036854775807> : tile<i64>\n").trips() == std::ldexp(1.0, 63));
  BOOST_TEST(trips_text(std::ldexp(1.0, 64)) == "18446744073709551616");
}

BOOST_AUTO_TEST_CASE(ranges_of_block_ids_follow_cuTiles_semantics) {
  // Block ids through arithmetic, a division by a constant, a remainder and
  // a comparison: each group's range holds each block's own value, so the
  // classes are those a block-by-block evaluation gives.
  std::string text = kernel(
      loop_to("  %t = constant <i32: 3> : tile<i32>\n  %q = divi %bx, %t signed rounding<positive_inf> : tile<i32>\n"
              "  %r = remi %bx, %t signed : tile<i32>\n  %s = muli %q, %r : tile<i32>\n"
              "  %w = constant <i32: 5> : tile<i32>\n  %c = cmpi greater_than %bx, %w, signed : tile<i32> -> tile<i1>\n"
              "  %n = select %c, %s, %q : tile<i1>, tile<i32>\n"));
  Run r = evaluate(text, {16, 2});
  for (std::int64_t b = 0; b < 32; ++b) {
    std::int64_t x = b % 16, q = (x + 2) / 3, n = x > 5 ? q * (x % 3) : q;
    const BlockClass& c = r.skeleton.classes[static_cast<std::size_t>(r.skeleton.class_of(b))];
    BOOST_TEST(c.trips(0) == static_cast<double>(n), "block " << b);
  }
  BOOST_TEST(r.skeleton.varying_dims == std::vector<int>{0});  // y read by no decision: never split
}

BOOST_AUTO_TEST_CASE(a_value_no_operation_of_a_run_defined_is_not_known) {
  // A malformed `if` whose else yields nothing: its result in the blocks
  // that take the else is not known (not the range another group of blocks
  // left behind), and a `for` without its bounds gives unknown results.
  std::string text = kernel(kConstants +
                            "  %t = constant <i32: 2> : tile<i32>\n"
                            "  %c = cmpi less_than %bx, %t, signed : tile<i32> -> tile<i1>\n"
                            "  %n = if %c -> (tile<i32>) {\n    yield %bx : tile<i32>\n  } else {\n  }\n"
                            "  %r = for %i in (%z to %n) : tile<i32> {\n  }\n"
                            "  for %j in (%z to %n, step %o) : tile<i32> {\n  }\n"
                            "  for %k in (%z to %r, step %o) : tile<i32> {\n  }\n");
  Run r = evaluate(text, {4});
  std::int64_t blocks = 0;
  for (const auto& c : r.skeleton.classes) blocks += c.blocks;
  BOOST_TEST(blocks == 4);
  BOOST_TEST(r.skeleton.loops[1].source == CountSource::kAssumed);  // %n not known in blocks 2 and 3
  BOOST_TEST(r.skeleton.loops[2].unknown == "the evaluator does not compute for (at t.tileir:11)");
}
