// Compiled loops matched to the loops of the kernel's TileIR, and the share
// of the trips each copy the compiler made takes: the shapes found in the
// compiled loops of the FlashInfer and TileGym examples, written as the
// matching reads them (lines of instructions, warps, nesting).
#define BOOST_TEST_MODULE loop_matching
#include <boost/test/unit_test.hpp>

#include "analysis/loop_matching.h"
#include "analysis/loop_trips.h"

using namespace tileperf;

namespace {

constexpr WarpMask kConsumers = 0x0f, kProducer = 0x10, kSecondProducer = 0x20;

SourceLine at(int line) { return SourceLine{"/src/k.py", line, {}}; }

// TileIR loop `source` at `line`, `trips` per execution, inside `parent`,
// its body at `places`.
TripDeclaration tileir_loop(int source, int line, double trips, int parent, std::vector<int> places) {
  TripDeclaration d;
  d.key = "computed";
  d.file = "/src/k.py";
  d.lines = {line};
  d.trips = trips;
  d.group = source;
  d.source = source;
  d.executions = 1;
  d.parent_source = parent;
  for (int p : places) d.places.push_back(at(p));
  return d;
}

// A compiled loop closed at `latch`, its body at `body` (one instruction of
// work each), inside compiled loop `parent`.
CompiledLoop compiled(int parent, WarpMask warps, std::uint64_t begin, int latch, std::vector<int> body,
                      double work = 0) {
  CompiledLoop c;
  c.parent = parent;
  c.warps = warps;
  c.begin = begin;
  c.latches = {at(latch)};
  for (int b : body) c.body.push_back(at(b));
  c.instructions = static_cast<double>(body.size());
  c.work = work > 0 ? work : c.instructions;
  return c;
}

double trips_of(const LoopMatch& m, const std::vector<TripDeclaration>& t) {
  return shared_trips(m.share, t[static_cast<std::size_t>(m.tileir)].trips);
}

}  // namespace

// FlashInfer 0.7.4's MXFP8 grouped quantizer on sm_100: the outer loop (2
// trips) is compiled once per warp role, each copy holding its own copy of
// the binary search (4 trips). Each outer copy takes the outer loop's trips,
// not the binary search's.
BOOST_AUTO_TEST_CASE(warp_role_copies_of_an_outer_loop_each_take_its_trips_and_their_inner_loops_the_inner) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 365, 2, -1, {360, 365, 366, 370, 380}),
                                    tileir_loop(1, 370, 4, 0, {370, 371, 372, 373})};
  std::vector<CompiledLoop> loops = {
      compiled(-1, kConsumers, 0x0840, 365, {365, 366, 380, 380}),  // 0
      compiled(0, kConsumers, 0x08c0, 370, {371, 372, 373}),        // 1
      compiled(-1, kProducer, 0x35d0, 365, {366, 380}),             // 2
      compiled(2, kProducer, 0x3630, 370, {371, 372}),              // 3
      compiled(-1, kSecondProducer, 0x45b0, 365, {366, 380, 380}),  // 4
      compiled(4, kSecondProducer, 0x4620, 370, {372, 373}),        // 5
  };
  auto m = match_compiled_loops(loops, t);
  for (std::size_t outer : {0u, 2u, 4u}) {
    BOOST_TEST(m[outer].tileir == 0);
    BOOST_TEST(trips_of(m[outer], t) == 2);
    BOOST_TEST(m[outer].share.text.empty());
  }
  for (std::size_t inner : {1u, 3u, 5u}) {
    BOOST_TEST(m[inner].tileir == 1);
    BOOST_TEST(trips_of(m[inner], t) == 4);
  }
}

// A binary search whose closing branch carries no line of its own still
// takes the inner loop: most of its body is the inner loop's places.
BOOST_AUTO_TEST_CASE(a_loop_is_matched_by_its_body_when_its_closing_branch_tells_nothing) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 365, 2, -1, {365, 380}), tileir_loop(1, 370, 4, 0, {371, 372})};
  std::vector<CompiledLoop> loops = {compiled(-1, kConsumers, 0x100, 380, {365, 380}),
                                     compiled(0, kConsumers, 0x180, 999, {371, 372, 372})};
  auto m = match_compiled_loops(loops, t);
  BOOST_TEST(m[0].tileir == 0);
  BOOST_TEST(m[1].tileir == 1);
}

// A loop unrolled 4x with a remainder loop (FlashInfer's MoE block-expert
// permutation, 8 trips): the unrolled copy runs 2 trips, the remainder the 0
// that 8 leaves; 10 trips leave 2.
BOOST_AUTO_TEST_CASE(an_unrolled_copy_and_its_remainder_share_the_iterations) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 408, 8, -1, {400, 408, 409})};
  std::vector<CompiledLoop> loops = {compiled(-1, 0x1, 0x0420, 408, {400, 408, 409}, 16),
                                     compiled(-1, 0x1, 0x0650, 408, {400, 408, 409}, 4)};
  auto m = match_compiled_loops(loops, t);
  BOOST_TEST(trips_of(m[0], t) == 2);
  BOOST_TEST(trips_of(m[1], t) == 0);
  BOOST_TEST(shared_trips(m[0].share, 10) == 2);
  BOOST_TEST(shared_trips(m[1].share, 10) == 2);
  BOOST_TEST(m[0].share.text == "4 iterations of the loop at k.py:408 per trip, the rest in 0x0650");
}

// Two versions of one loop of the same size, run by the same warps: an
// equal share each.
BOOST_AUTO_TEST_CASE(versions_of_a_loop_run_by_the_same_warps_share_its_iterations_alike) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 50, 24, -1, {50, 51})};
  std::vector<CompiledLoop> loops = {compiled(-1, kConsumers, 0x100, 50, {50, 51}),
                                     compiled(-1, kConsumers, 0x300, 50, {50, 51})};
  auto m = match_compiled_loops(loops, t);
  BOOST_TEST(trips_of(m[0], t) == 12);
  BOOST_TEST(trips_of(m[1], t) == 12);
}

// An iteration of the outer loop peeled off before its compiled loop (the
// producer of a TMA pipeline, FlashInfer's mm_bf16 on sm_100): the inner
// loop's copy outside runs every inner iteration once, the outer loop one
// trip less.
BOOST_AUTO_TEST_CASE(an_iteration_peeled_off_an_outer_loop_is_taken_from_its_trips) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 88, 24, -1, {88, 90, 140}),
                                    tileir_loop(1, 100, 64, 0, {100, 110, 124})};
  std::vector<CompiledLoop> loops = {compiled(-1, kProducer, 0x3080, 100, {110, 124}),
                                     compiled(-1, kProducer, 0x3330, 88, {90, 140}),
                                     compiled(1, kProducer, 0x3a30, 100, {110, 124})};
  auto m = match_compiled_loops(loops, t);
  BOOST_TEST(m[0].tileir == 1);
  BOOST_TEST(trips_of(m[0], t) == 64);
  BOOST_TEST(trips_of(m[1], t) == 23);
  BOOST_TEST(trips_of(m[2], t) == 64);
  BOOST_TEST(m[1].share.text == "less 1 iteration(s) peeled off before it");
}

// A loop the compiler made inside one operation (its lines those of one
// operation of the loop around it, which closes that loop's branch) is no
// loop of the TileIR: it is named with the reason.
BOOST_AUTO_TEST_CASE(a_loop_inside_one_operation_is_the_compilers_own) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 30, 16, -1, {30, 31, 32})};
  std::vector<CompiledLoop> loops = {compiled(-1, kConsumers, 0x100, 30, {30, 31, 32}),
                                     compiled(0, kConsumers, 0x180, 31, {31})};
  auto m = match_compiled_loops(loops, t);
  BOOST_TEST(m[0].tileir == 0);
  BOOST_TEST(m[1].tileir == -1);
  BOOST_TEST(m[1].why_not.find("inside one operation of the loop at k.py:30") != std::string::npos);
}

// Retry loops and elect loops are matched to nothing; a loop of code
// outside every TileIR loop is the compiler's.
BOOST_AUTO_TEST_CASE(retry_elect_and_outside_loops_match_nothing) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 30, 16, -1, {30, 31})};
  auto retry = compiled(-1, kConsumers, 0x100, 30, {30});
  retry.retry = true;
  auto elect = compiled(-1, kProducer, 0x200, 31, {31});
  elect.elect = true;
  auto outside = compiled(-1, kConsumers, 0x300, 90, {90, 91});
  auto m = match_compiled_loops({retry, elect, outside}, t);
  BOOST_TEST(m[0].tileir == -1);
  BOOST_TEST(m[1].tileir == -1);
  BOOST_TEST(m[2].tileir == -1);
  BOOST_TEST(m[2].why_not.find("a loop the compiler made") != std::string::npos);
}

// FlashInfer's FP8 MoE GEMM1 on sm_100: the inner K loop (16 trips) is
// unrolled completely inside the outer loop (1 trip), whose closing branch
// carries the line of the barrier after its body; the comparison deciding
// the branch carries the outer loop's line. The compiled loop is the outer
// loop, though most of its instructions come from the inner one.
BOOST_AUTO_TEST_CASE(the_comparison_deciding_the_closing_branch_names_the_loop) {
  std::vector<TripDeclaration> t = {tileir_loop(0, 1400, 1, -1, {1398, 1400, 1402, 1506}),
                                    tileir_loop(1, 1409, 16, 0, {1409, 1412, 1428})};
  auto loop = compiled(-1, kConsumers, 0x0da0, 1506, {1402, 1409, 1412, 1412, 1428, 1428, 1506});
  auto m = match_compiled_loops({loop}, t);
  BOOST_TEST(m[0].tileir == 1);  // the branch alone: the inner loop's places win
  loop.latches.push_back(at(1400));
  m = match_compiled_loops({loop}, t);
  BOOST_TEST(m[0].tileir == 0);
  BOOST_TEST(trips_of(m[0], t) == 1);
}
