// Blocks placed on the SMs in dispatch order, as the block scheduler does:
// each SM holds up to `resident` blocks; a block is started on the SM with
// the most free slots (the lowest-numbered of those) as soon as one is free,
// in the order of its id (x fastest). A block needs `latency` cycles alone
// on an SM and `work` cycles of its busiest pipe; the blocks resident on an
// SM share that pipe: a block's work advances at 1/n of the pipe's rate
// while n blocks still have work, and it ends when its work is done and its
// latency has passed. With every block alike this is the closed form of
// waves: full waves of max(resident x work, latency), then the last wave
// with its own blocks per SM; blocks that differ (a causal mask, a
// persistent stride, split-K) give each SM its own sequence, and the launch
// ends with the slowest SM: the tail.
//
// A launch of more than kMaxSimulatedBlocks blocks of several classes is
// not simulated block by block: its blocks but the last kTailWaves waves
// take the closed form per class (each class's blocks keep the SMs' slots
// busy for their waves' time, dispatch interleaving the classes), and the
// last waves, which make the tail, are simulated from there. A launch of
// 2^40 blocks then costs what one of a few waves costs.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace tileperf {

struct BlockWork {
  double latency = 0;       // cycles of one block alone on an SM
  double work = 0;          // cycles of the SM's busiest pipe the block needs
  std::int64_t blocks = 0;  // blocks of the class (needed past kMaxSimulatedBlocks)
};

inline constexpr std::int64_t kMaxSimulatedBlocks = std::int64_t(1) << 20;
inline constexpr std::int64_t kTailWaves = 8;

struct BlockSchedule {
  double cycles = 0;             // until the last block ends
  std::int64_t waves = 0;        // the most blocks one SM ran, over its resident slots (rounded up); past
                                 // kMaxSimulatedBlocks, the blocks before the tail over all slots, plus the tail's
  double idle = 0;               // share of the SMs' time with no block resident, 0..1
  double slowest = 0, mean = 0;  // the blocks' times from start to end
  // SM occupancy over time: for each SM, the mean resident blocks in each of
  // `buckets` equal parts of the launch (empty when not asked for).
  std::vector<std::vector<float>> occupancy;
  bool simulated = false;  // false: every block alike, the closed form
};

// `class_of(b)` names the class of block b (0 .. classes.size()-1). Past
// kMaxSimulatedBlocks with several classes, the classes' `blocks` must sum
// to `blocks` (std::invalid_argument otherwise).
BlockSchedule schedule_blocks(int sms, std::int64_t resident, std::int64_t blocks,
                              const std::function<int(std::int64_t)>& class_of, const std::vector<BlockWork>& classes,
                              int buckets = 0);

}  // namespace tileperf
