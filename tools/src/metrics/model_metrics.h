// The metrics of the model: those of the loop analysis (analysis/loops.h)
// and those of the launch estimate (model/launch_model.h), by name.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analysis/loops.h"
#include "model/launch_model.h"

namespace tileperf {

// loop.count, loop.spin, loop.max_depth, loop.main.* (the main loop's
// body), loop.all.* (every loop body but the retry loops', summed: the
// producer loop of a warp-specialised pipeline too), cost.block,
// cost.unclassified.
std::map<std::string, std::int64_t> loop_metrics(const LoopAnalysis& analysis);

// cost.time_ns (gated), loop.main.overlap_pct (gated), cost.launch (the
// cost model's cycles of all blocks: per-block cost times the problem's
// blocks, each class of blocks with its own), cost.term.*_ns,
// cost.limit.<term>, cost.dram_pct, cost.block.latency_cycles,
// cost.block.throughput_cycles, launch.threads, launch.cluster,
// launch.ctas, launch.blocks_per_sm, launch.waves, launch.occupancy_pct,
// launch.occupancy_limit.<what>, launch.bytes.{l2,dram,floor},
// launch.block_classes, launch.imbalance_pct, launch.idle_pct.
std::map<std::string, std::int64_t> launch_metrics(const LaunchEstimate& e);

}  // namespace tileperf
