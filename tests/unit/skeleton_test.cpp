#define BOOST_TEST_MODULE skeleton
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "model/skeleton.h"
#include "fixtures.h"
#include "metrics/dump_record.h"
#include "readers/tileir.h"
#include "support/json_input.h"

using namespace tileperf;
using namespace tileperf::testing;

BOOST_TEST_DONT_PRINT_LOG_VALUE(tileperf::CountSource)

namespace {

// A kernel of tests/fixtures/kernels/skeleton.py: its TileIR and problem
// (captured by tests/fixtures/capture.sh), evaluated.
struct Evaluated {
  TileIrStats tileir;
  Problem problem;
  Skeleton skeleton;
};

nlohmann::json record_of(const std::string& config) {
  std::string name = "skeleton." + config + ".dump.json";
  return parse_json(fixture_of("13.5.37", name), name);
}

Evaluated evaluate(const std::string& config, const nlohmann::json& record, std::int64_t max_steps = 1 << 26) {
  Evaluated e;
  std::string name = "skeleton." + config + ".g.tileir";
  e.tileir = parse_tileir(fixture_of("13.5.37", name), name);
  e.problem = *problem_from_record(record, "skeleton." + config + ".dump.json");
  SkeletonInputs in{&e.tileir.program,      &e.tileir,  e.problem.grid, e.problem.arguments,
                    e.problem.no_arguments, &e.problem, max_steps};
  e.skeleton = evaluate_skeleton(in);
  return e;
}

Evaluated evaluate(const std::string& config) { return evaluate(config, record_of(config)); }

const SkeletonLoop& loop_at(const Skeleton& s, int line) {
  auto it = std::find_if(s.loops.begin(), s.loops.end(), [&](const SkeletonLoop& l) { return l.where.line == line; });
  BOOST_REQUIRE(it != s.loops.end());
  return *it;
}

// Evaluates a listing written here (the operations' semantics, one at a
// time), with one block and the given arguments.
Skeleton evaluate_text(const std::string& text, std::vector<LaunchArgument> args = {}) {
  static TileIrStats stats;
  stats = parse_tileir(text, "t.tileir");
  SkeletonInputs in{&stats.program, &stats, {1}, std::move(args), "", nullptr};
  return evaluate_skeleton(in);
}

LaunchArgument number(std::int64_t n) {
  LaunchArgument a;
  a.known = true;
  a.integer = n;
  return a;
}

// A loop from 0 to the value `expression` computes (its last result %x),
// without locations: the trips of the one loop of the listing.
double trips_of(const std::string& expression, std::vector<LaunchArgument> args = {}) {
  std::string text = "entry @k(%arg0: tile<i32>, %arg1: tile<i32>) optimization_hints=<default = {}> {\n" + expression +
                     "  %zero = constant <i32: 0> : tile<i32>\n"
                     "  %one = constant <i32: 1> : tile<i32>\n"
                     "  for %i in (%zero to %x, step %one) : tile<i32> {\n"
                     "  }\n"
                     "  return\n"
                     "}\n";
  Skeleton s = evaluate_text(text, std::move(args));
  BOOST_REQUIRE(s.loops.size() == 1u);
  return s.loops[0].trips();
}

}  // namespace

BOOST_AUTO_TEST_CASE(control_flow_of_a_real_kernel_is_counted) {
  Evaluated e = evaluate("control");
  const Skeleton& s = e.skeleton;
  BOOST_REQUIRE(s.loops.size() == 6u);
  // while i < lim (lim = min(16 tiles, 9 // 3 + 9 % 5 - (9 >> 2)) = 5): the
  // body runs 5 times and once more to find the condition false.
  const SkeletonLoop& w = loop_at(s, 21);
  BOOST_TEST(w.kind == "loop");
  BOOST_TEST(w.min_trips == 6);
  BOOST_TEST(w.max_trips == 6);
  BOOST_TEST(w.iterated);
  // for t in range(bid, 16 tiles, 4 blocks), with a continue past n = 9.
  BOOST_TEST(loop_at(s, 27).trips() == 4);
  BOOST_TEST(loop_at(s, 27).iterated);
  BOOST_TEST(loop_at(s, 32).trips() == 5);  // int(2.75 * 2.0)
  BOOST_TEST(!loop_at(s, 32).iterated);
  BOOST_TEST(loop_at(s, 35).trips() == 3);  // range(0, |n|, 3)
  BOOST_TEST(loop_at(s, 40).trips() == 3);  // s, carried out of the while loop
  // The bound from memory: declared ("j#3": 3), named with its load.
  const SkeletonLoop& d = loop_at(s, 38);
  BOOST_TEST(d.data_dependent);
  BOOST_TEST(d.source == CountSource::kDeclared);
  BOOST_TEST(d.declared_key == "j#3");
  BOOST_TEST(d.trips() == 3);
  BOOST_TEST(d.unknown == "data-dependent: it comes from memory (load_view_tko at skeleton.py:37)");
  // Blocks 0 and 1 store 3 tiles in the persistent loop, blocks 2 and 3 two
  // (t > 9 skipped): two classes, along x.
  BOOST_TEST(s.classes.size() == 2u);
  BOOST_TEST(s.varying_dims == std::vector<int>{0});
  BOOST_TEST(s.evaluated_blocks == 4);
  BOOST_TEST(s.class_of(0) == s.class_of(1));
  BOOST_TEST(s.class_of(2) == s.class_of(3));
  BOOST_TEST(s.class_of(0) != s.class_of(2));
  BOOST_TEST(s.classes[static_cast<std::size_t>(s.class_of(0))].blocks == 2);
  BOOST_TEST(s.notes.empty());
}

BOOST_AUTO_TEST_CASE(a_causal_triangle_is_exact_per_block) {
  const Skeleton s = evaluate("causal").skeleton;
  const SkeletonLoop& below = loop_at(s, 49);
  BOOST_TEST(below.min_trips == 0);
  BOOST_TEST(below.max_trips == 14);  // 2 x the last of 8 query tiles
  BOOST_TEST(below.trips() == 7);
  BOOST_TEST(loop_at(s, 51).trips() == 2);  // the diagonal, TILE_M / TILE_N
  BOOST_TEST(s.classes.size() == 8u);
  for (std::int64_t block = 0; block < 8; ++block) {
    const BlockClass& c = s.classes[static_cast<std::size_t>(s.class_of(block))];
    BOOST_TEST(c.trips(0) == 2.0 * static_cast<double>(block));
    BOOST_TEST(c.blocks == 1);
  }
  auto mean = s.trips(-1);
  BOOST_REQUIRE(mean.size() == 2u);
  BOOST_TEST(mean[0].trips == 7);
  BOOST_TEST(mean[0].file == "tests/fixtures/kernels/skeleton.py");
  BOOST_TEST(mean[0].lines == std::vector<int>{49});
  BOOST_TEST(s.trips(s.class_of(3))[0].trips == 6);
}

BOOST_AUTO_TEST_CASE(an_early_return_loop_runs_once) {
  // cuTile wraps the helper that returns early in a `loop` that breaks on
  // the data-dependent condition and at its end: one trip either way.
  const Skeleton s = evaluate("early_return").skeleton;
  BOOST_REQUIRE(s.loops.size() == 2u);
  BOOST_TEST(s.loops[0].kind == "loop");
  BOOST_TEST(s.loops[0].source == CountSource::kComputed);
  BOOST_TEST(s.loops[0].trips() == 1);
  BOOST_TEST(s.loops[0].where.calls.size() == 1u);  // inlined at skeleton.py:70
  BOOST_TEST(s.loops[0].where.calls[0].second == 70);
  BOOST_TEST(s.loops[1].parent == 0);
  BOOST_TEST(s.loops[1].trips() == 5);  // n
  BOOST_TEST(s.loops[1].name() == "skeleton.py:62@skeleton.py:70");
}

BOOST_AUTO_TEST_CASE(split_k_differs_along_y) {
  for (const char* config : {"split_k", "split_k_i64"}) {
    const Skeleton s = evaluate(config).skeleton;
    BOOST_REQUIRE(s.loops.size() == 1u);
    // 960 / 64 = 15 tiles in 4 parts of 4: the last part has 3.
    BOOST_TEST(s.loops[0].min_trips == 3);
    BOOST_TEST(s.loops[0].max_trips == 4);
    BOOST_TEST(s.varying_dims == std::vector<int>{1});
    BOOST_TEST(s.evaluated_blocks == 4);  // one per part: x does not decide
    BOOST_TEST(s.classes.size() == 2u);
    BOOST_TEST(s.classes[static_cast<std::size_t>(s.class_of(3 * 8))].trips(0) == 3);      // (0, 3)
    BOOST_TEST(s.classes[static_cast<std::size_t>(s.class_of(7 + 2 * 8))].trips(0) == 4);  // (7, 2)
    BOOST_TEST(s.classes[static_cast<std::size_t>(s.class_of(3 * 8))].blocks == 8);
  }
}

BOOST_AUTO_TEST_CASE(a_stale_declaration_is_the_configurations_error) {
  nlohmann::json record = record_of("control");
  for (auto& t : record["problem"]["trips"]) t["lines"] = {32};  // j#3 = 3 on the loop that runs 5
  BOOST_TEST(error_message([&] { evaluate("control", record); }) ==
             "tileperf: error: tests/fixtures/kernels/skeleton.py:115: stale trip count: trips['j#3'] = 3 declares "
             "the loop at skeleton.py:32, which the kernel runs 5 in every execution (computed from its TileIR); "
             "remove the declaration, or write override(3) to replace the computed count\n");
  // An override replaces the computed count.
  for (auto& t : record["problem"]["trips"]) t["override"] = true;
  const Skeleton s = evaluate("control", record).skeleton;
  BOOST_TEST(loop_at(s, 32).source == CountSource::kOverride);
  BOOST_TEST(loop_at(s, 32).trips() == 3);
  // ... and the data-dependent loop, declared no more, is assumed and says so.
  BOOST_TEST(loop_at(s, 38).source == CountSource::kAssumed);
  BOOST_TEST(loop_at(s, 38).trips() == 16);
  BOOST_REQUIRE(s.notes.size() == 1u);
  BOOST_TEST(s.notes[0] ==
             "the trips of the loop at skeleton.py:38 are neither computed nor declared (data-dependent: "
             "it comes from memory (load_view_tko at skeleton.py:37)): taken as 16; declare them in the "
             "problem's trips");
}

BOOST_AUTO_TEST_CASE(without_arguments_the_loops_say_why) {
  nlohmann::json record = record_of("split_k");
  record["problem"].erase("args");
  record["problem"]["args_error"] = "no case";
  const Skeleton s = evaluate("split_k", record).skeleton;
  BOOST_TEST(s.loops[0].source == CountSource::kAssumed);
  BOOST_TEST(s.loops[0].unknown == "it comes from the kernel's arguments, and the dump record has none (no case)");
}

BOOST_AUTO_TEST_CASE(a_count_past_the_bound_stops_with_a_located_error) {
  BOOST_TEST(error_message([&] { evaluate("control", record_of("control"), 100); }) ==
             "tileperf: error: tests/fixtures/kernels/skeleton.py:21: the scalar evaluator stopped after 100 "
             "operations in the loop at skeleton.py:21 (block 0 of 4): a count this large is not evaluated; declare "
             "the loop's trips\n");
}

BOOST_AUTO_TEST_CASE(integer_semantics_are_cuTiles) {
  auto one = [](const std::string& op) { return trips_of("  %x = " + op + "\n", {number(-7), number(2)}); };
  // Division rounds toward zero unless told; the remainder takes the
  // dividend's sign; -7 >> 1 is arithmetic.
  BOOST_TEST(trips_of("  %a = constant <i32: 17> : tile<i32>\n  %b = constant <i32: 5> : tile<i32>\n"
                      "  %x = divi %a, %b signed rounding<positive_inf> : tile<i32>\n") == 4);
  BOOST_TEST(one("negi %arg0 : tile<i32>") == 7);
  BOOST_TEST(trips_of("  %n = divi %arg0, %arg1 signed : tile<i32>\n  %x = negi %n : tile<i32>\n",
                      {number(-7), number(2)}) == 3);
  BOOST_TEST(trips_of("  %n = divi %arg0, %arg1 signed rounding<negative_inf> : tile<i32>\n"
                      "  %x = negi %n : tile<i32>\n",
                      {number(-7), number(2)}) == 4);
  BOOST_TEST(trips_of("  %r = remi %arg0, %arg1 signed : tile<i32>\n  %x = negi %r : tile<i32>\n",
                      {number(-7), number(2)}) == 1);
  BOOST_TEST(trips_of("  %s = shri %arg0, %arg1 signed : tile<i32>\n  %x = negi %s : tile<i32>\n",
                      {number(-7), number(1)}) == 4);
  // Unsigned: -1 is the largest number.
  BOOST_TEST(trips_of("  %m = mini %arg0, %arg1 unsigned : tile<i32>\n  %x = addi %m, %m : tile<i32>\n",
                      {number(-1), number(3)}) == 6);
  BOOST_TEST(trips_of("  %c = cmpi less_than %arg0, %arg1, unsigned : tile<i32> -> tile<i1>\n"
                      "  %t = constant <i32: 9> : tile<i32>\n  %f = constant <i32: 2> : tile<i32>\n"
                      "  %x = select %c, %t, %f : tile<i1>, tile<i32>\n",
                      {number(-1), number(3)}) == 2);
  // Wrapped to the type: 2^31 - 1 + 1 is negative, no trips.
  BOOST_TEST(trips_of("  %x = addi %arg0, %arg1 : tile<i32>\n", {number(2147483647), number(1)}) == 0);
  // i64 does not wrap there; a truncation to i16 does.
  BOOST_TEST(
      trips_of("  %w = exti %arg0 signed : tile<i32> -> tile<i64>\n  %v = exti %arg1 signed : tile<i32> -> tile<i64>\n"
               "  %s = addi %w, %v : tile<i64>\n  %t = trunci %s : tile<i64> -> tile<i16>\n"
               "  %x = exti %t signed : tile<i16> -> tile<i32>\n",
               {number(65535), number(3)}) == 2);
  // A division by zero is not computed; the loop is assumed and says why.
  std::string zero =
      "entry @k(%arg0: tile<i32>) optimization_hints=<default = {}> {\n"
      "  %z = constant <i32: 0> : tile<i32>\n  %x = divi %arg0, %z signed : tile<i32>\n"
      "  %one = constant <i32: 1> : tile<i32>\n"
      "  for %i in (%z to %x, step %one) : tile<i32> {\n  }\n  return\n}\n";
  Skeleton s = evaluate_text(zero, {number(4)});
  BOOST_TEST(s.loops[0].source == CountSource::kAssumed);
  BOOST_TEST(s.loops[0].unknown == "a division by zero (divi at t.tileir:3)");
}

BOOST_AUTO_TEST_CASE(scalar_floats_are_rounded_to_their_type) {
  LaunchArgument f;
  f.known = true;
  f.is_float = true;
  f.real = 0.25;
  // 0.25 x 10 = 2.5: ftoi rounds toward zero, ceil up.
  std::string head =
      "entry @k(%arg0: tile<f32>) optimization_hints=<default = {}> {\n"
      "  %k = constant <f32: 1.000000e+01> : tile<f32>\n  %p = mulf %arg0, %k : tile<f32>\n";
  std::string tail =
      "  %z = constant <i32: 0> : tile<i32>\n  %one = constant <i32: 1> : tile<i32>\n"
      "  for %i in (%z to %x, step %one) : tile<i32> {\n  }\n  return\n}\n";
  BOOST_TEST(evaluate_text(head + "  %x = ftoi %p signed : tile<f32> -> tile<i32>\n" + tail, {f}).loops[0].trips() ==
             2);
  BOOST_TEST(
      evaluate_text(head + "  %c = ceil %p : tile<f32>\n  %x = ftoi %c signed : tile<f32> -> tile<i32>\n" + tail, {f})
          .loops[0]
          .trips() == 3);
  // 2^24 + 1 has no f32: it rounds to 2^24 on the way through.
  BOOST_TEST(
      trips_of("  %f = itof %arg0 signed : tile<i32> -> tile<f32>\n  %x = ftoi %f signed : tile<f32> -> tile<i32>\n",
               {number(16777217), number(0)}) == 16777216);
}

BOOST_AUTO_TEST_CASE(grid_dimensions_no_decision_reads_are_not_iterated) {
  // A loop over the argument alone: one block evaluated for a grid of 10^6.
  std::string text =
      "entry @k(%arg0: tile<i32>) optimization_hints=<default = {}> {\n"
      "  %bx, %by, %bz = get_tile_block_id : tile<i32>\n"
      "  %z = constant <i32: 0> : tile<i32>\n  %one = constant <i32: 1> : tile<i32>\n"
      "  for %i in (%z to %arg0, step %one) : tile<i32> {\n  }\n  return\n}\n";
  TileIrStats stats = parse_tileir(text, "t.tileir");
  SkeletonInputs in{&stats.program, &stats, {1000, 1000}, {number(12)}, "", nullptr};
  Skeleton s = evaluate_skeleton(in);
  BOOST_TEST(s.evaluated_blocks == 1);
  BOOST_TEST(s.classes.size() == 1u);
  BOOST_TEST(s.classes[0].blocks == 1000000);
  BOOST_TEST(s.loops[0].executions == 1e6);
  BOOST_TEST(s.loops[0].iterations == 1.2e7);
}
