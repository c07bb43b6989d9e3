// The launch-level model: how long a launch of the configuration's problem
// takes on an architecture, and which term limits it.
//
//   resident blocks per SM   from registers, shared memory, threads per
//                            block and the architecture's limits (an
//                            occupancy hint shows in the registers)
//   CTAs, waves              the problem's blocks times the cluster size,
//                            over SMs x resident blocks
//   throughput per CTA       the busiest pipe of one SM (issue, FP/INT ALU,
//                            MUFU/conversions, fp64, load/store, tensor
//                            cores, block dispatch) over the instructions
//                            each warp runs, times how often
//   latency per CTA          one block alone on an SM: the replay of each
//                            warp role's schedule (timeline.h)
//   a wave                   max(resident CTAs x throughput, latency):
//                            resident warps hide latency up to the pipes'
//                            limit
//   memory                   tile bytes loaded and stored (TileIR), against
//                            L2 bandwidth; the smaller of those and the
//                            problem's arrays (the floor) against DRAM
//   a launch                 launch overhead + max(waves, DRAM, L2)
//
// estimate_launch takes these as its steps, each a function of its own:
// launch_shape (blocks, CTAs, resident CTAs), replay_latencies (the
// architecture's, and where spills live), mean_block (the replay and pipes
// of the launch's mean block: block_costs.h), one_class or by_class (each
// class of blocks the skeleton counts, with its own trips), schedule (the
// waves: block_schedule.h), memory_traffic, combine (the terms and the one
// that limits the launch).
//
// Every constant is in the architecture table (arch_table.h, the rows of
// tools/tileperf_dump/archs.json), with whether it was measured on the H200
// (tools/gpu/calibrate.sh) or derived.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/arch_table.h"
#include "analysis/cost_model.h"
#include "readers/elf.h"
#include "readers/line_table.h"
#include "analysis/loops.h"
#include "model/skeleton.h"
#include "readers/sass.h"
#include "readers/tileir.h"
#include "model/timeline.h"

namespace tileperf {

struct LaunchInputs {
  const SassListing* listing = nullptr;
  const std::vector<FunctionFlow>* flows = nullptr;
  const LoopAnalysis* loops = nullptr;
  const LineTable* lines = nullptr;
  const TileIrStats* tileir = nullptr;  // null: bytes from the SASS loads and stores
  const Problem* problem = nullptr;     // null: one block
  const Skeleton* skeleton = nullptr;   // the blocks' counts (skeleton.h); null: every block the mean block
  KernelAttributes attributes;
  std::int64_t registers = 0, shared_bytes = 0;
  std::int64_t spill_bytes = 0;  // per thread: local memory and stack frame
  std::int64_t tensor_macs_hint = 0;
  bool keep_events = false;  // keep every loop's replay in the estimate (the main loop's is always made)
  // Latencies set by name over the architecture's (tileperf loops --latency):
  // what-if, and the replay of microbenchmarks that derives a constant.
  std::map<std::string, double> latency_overrides;
};

struct LaunchEstimate {
  const ArchSpec* spec = nullptr;
  std::int64_t threads = 0, warps = 0, cluster = 1, blocks = 1, ctas = 1;
  std::int64_t resident = 0;                         // CTAs per SM
  std::string occupancy_limit;                       // registers, shared, threads, blocks
  std::int64_t waves = 0;                            // of the schedule: the most blocks one SM ran, over its slots
  std::int64_t classes = 1;                          // classes of blocks with counts of their own
  double imbalance = 1;                              // the slowest block's time over the mean block's
  double launch_cost = 0;                            // the cost model's cycles of all blocks (cost.launch)
  double idle = 0;                                   // share of the SMs' time with no block, 0..1
  std::vector<std::vector<float>> occupancy;         // per SM, mean resident blocks over the launch (with keep_events)
  double tile_load_bytes = 0, tile_store_bytes = 0;  // per block (grid block, a cluster's tile)
  double l2_bytes = 0, dram_bytes = 0, floor_bytes = 0;
  double spill_traffic = 0;             // local-memory bytes per CTA that go to L2 (0 when L1 holds the spills)
  std::map<std::string, double> pipes;  // cycles per CTA on each pipe
  std::string busiest_pipe;
  double throughput_cycles = 0;  // per CTA: the busiest pipe
  double latency_cycles = 0;     // per CTA alone on an SM
  double waves_us = 0, dram_us = 0, l2_us = 0, launch_us = 0, total_us = 0;
  double latency_bound_us = 0, throughput_bound_us = 0;  // the waves with one term alone
  std::string limit;                                     // latency, dram, l2, launch, or the busiest pipe
  // Of the main loop's memory latency in one steady iteration (global loads
  // and copies its warps issue, from issue to done), the part not waited
  // for: 1 when loads overlap the loop's work, near 0 for load, wait,
  // compute; 1 when the loop's own warps load nothing (another role's
  // pipeline feeds it); -1 without a main loop.
  double overlap = -1;
  BlockTimeline timeline;
  std::vector<std::string> notes;
};

LaunchEstimate estimate_launch(const LaunchInputs& in);

// The overlap of one loop's replay (see LaunchEstimate::overlap).
double loop_overlap(const LoopTimeline& loop);

}  // namespace tileperf
