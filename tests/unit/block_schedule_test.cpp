#define BOOST_TEST_MODULE block_schedule
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>

#include "model/block_schedule.h"

using namespace tileperf;

namespace {

const auto kFirst = [](std::int64_t) { return 0; };

// Two classes of blocks with the same latency and work as one: simulated,
// they must give the closed form's waves.
BlockSchedule simulated_alike(int sms, std::int64_t resident, std::int64_t blocks, BlockWork w) {
  return schedule_blocks(sms, resident, blocks, [](std::int64_t b) { return static_cast<int>(b % 2); }, {w, w});
}

}  // namespace

BOOST_AUTO_TEST_CASE(blocks_alike_make_the_closed_form_of_waves) {
  // 2048 blocks, 132 SMs x 1: 15 full waves and 68 blocks, latency-bound.
  BlockWork w{1000, 400};
  BlockSchedule s = schedule_blocks(132, 1, 2048, kFirst, {w});
  BOOST_TEST(!s.simulated);
  BOOST_TEST(s.waves == 16);
  BOOST_TEST(s.cycles == 16 * 1000.0);
  // 64 of 132 SMs idle in the last wave.
  BOOST_TEST(s.idle == 64.0 / 132 / 16, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(s.slowest == 1000);
  BOOST_TEST(s.mean == 1000);
  // The simulation of the same blocks agrees.
  BlockSchedule sim = simulated_alike(132, 1, 2048, w);
  BOOST_TEST(sim.simulated);
  BOOST_TEST(sim.waves == 16);
  BOOST_TEST(sim.cycles == s.cycles, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(sim.idle == s.idle, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(resident_blocks_share_the_busiest_pipe) {
  // 4 per SM, each 300 cycles of work: a full wave takes 4 x 300 = 1200
  // (> latency 500); the last wave of 10 blocks on 8 SMs: 2 per SM at most,
  // max(600, 500).
  BlockWork w{500, 300};
  BlockSchedule s = schedule_blocks(8, 4, 8 * 4 * 3 + 10, kFirst, {w});
  BOOST_TEST(s.waves == 4);
  BOOST_TEST(s.cycles == 3 * 1200.0 + 600);
  BlockSchedule sim = simulated_alike(8, 4, 8 * 4 * 3 + 10, w);
  BOOST_TEST(sim.cycles == s.cycles, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(sim.waves == 4);
}

BOOST_AUTO_TEST_CASE(uneven_blocks_give_a_tail) {
  // A causal triangle: block b takes (b + 1) x 100 cycles; 8 blocks on 4
  // SMs, one each. Blocks 0-3 start at once; 4 goes where 0 ended (100), 5
  // where 1 ended (200), ...: the last (7, 800 cycles) starts at 400.
  std::vector<BlockWork> classes;
  for (int b = 0; b < 8; ++b) classes.push_back({100.0 * (b + 1), 0});
  BlockSchedule s = schedule_blocks(
      4, 1, 8, [](std::int64_t b) { return static_cast<int>(b); }, classes);
  BOOST_TEST(s.cycles == 1200);
  BOOST_TEST(s.slowest == 800);
  BOOST_TEST(s.mean == 450);
  BOOST_TEST(s.waves == 2);
  // Busy: 100+500, 200+600, 300+700, 400+800 of 4 x 1200.
  BOOST_TEST(s.idle == 1 - 3600.0 / 4800, boost::test_tools::tolerance(1e-12));
  // The same work, largest first (the longest-processing-time order), ends sooner.
  BlockSchedule lpt = schedule_blocks(
      4, 1, 8, [](std::int64_t b) { return static_cast<int>(7 - b); }, classes);
  BOOST_TEST(lpt.cycles < s.cycles);
  BOOST_TEST(lpt.cycles == 900);
}

BOOST_AUTO_TEST_CASE(a_persistent_grid_ends_with_its_slowest_block) {
  // 4096 tiles over 132 blocks: 4 blocks run 32 tiles, 128 run 31.
  std::vector<BlockWork> classes = {{32 * 100.0, 0}, {31 * 100.0, 0}};
  BlockSchedule s = schedule_blocks(
      132, 1, 132, [](std::int64_t b) { return b < 4 ? 0 : 1; }, classes);
  BOOST_TEST(s.cycles == 3200);
  BOOST_TEST(s.waves == 1);
  BOOST_TEST(s.slowest / s.mean == 3200 / ((4 * 3200.0 + 128 * 3100) / 132), boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(the_picture_holds_each_sms_resident_blocks) {
  BlockWork w{1000, 0};
  BlockSchedule s = schedule_blocks(4, 2, 12, kFirst, {w}, 10);
  BOOST_REQUIRE(s.occupancy.size() == 4u);
  BOOST_REQUIRE(s.occupancy[0].size() == 10u);
  // 12 blocks on 8 slots: SMs 0-3 hold 2 in the first wave; the second
  // wave's 4 blocks go one per SM.
  BOOST_TEST(s.occupancy[0][0] == 2.0f, boost::test_tools::tolerance(1e-6f));
  BOOST_TEST(s.occupancy[3][9] == 1.0f, boost::test_tools::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(a_launch_of_any_size_costs_what_its_classes_and_tail_cost) {
  // Two classes alternating (a bound read from block id x on a grid of
  // [2, N]): simulated up to kMaxSimulatedBlocks, past it the closed form
  // per class with the last waves simulated. Both agree within a wave at
  // the threshold, and 2^40 blocks take no longer to schedule than 2^21.
  auto alternating = [](std::int64_t b) { return static_cast<int>(b % 2); };
  auto launch = [&](std::int64_t blocks) {
    std::vector<BlockWork> classes{{1000, 400, blocks - blocks / 2}, {3000, 100, blocks / 2}};
    return schedule_blocks(132, 2, blocks, alternating, classes);
  };
  BlockSchedule below = launch(kMaxSimulatedBlocks), above = launch(kMaxSimulatedBlocks + 2);
  BOOST_TEST(above.simulated);
  double wave = 3000;  // the slower class's, 2 resident: max(2 x 100, 3000)
  BOOST_TEST(std::abs(above.cycles - below.cycles) < wave);
  // Waves past the threshold: the blocks over the slots (spread evenly in
  // the closed form; the simulation counts the SM that ran the most).
  BOOST_TEST(above.waves >= (kMaxSimulatedBlocks + 2) / 264);
  BOOST_TEST(above.idle < 0.01);
  BOOST_TEST(above.slowest == 3000);
  BlockSchedule huge = launch(std::int64_t(1) << 40);
  BOOST_TEST(huge.cycles / above.cycles == std::ldexp(1.0, 20), boost::test_tools::tolerance(1e-3));
  // Past the threshold the classes' blocks must be given.
  BOOST_CHECK_THROW(schedule_blocks(132, 2, kMaxSimulatedBlocks + 2, alternating, {{1000, 400}, {3000, 100}}),
                    std::invalid_argument);
}
