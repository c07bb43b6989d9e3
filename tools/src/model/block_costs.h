// What one block of a launch costs (launch_model.h: the throughput per
// CTA, its memory traffic, and the replay that gives its latency), with its
// loops at their mean trips or at a class of blocks' own.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cost_model.h"
#include "analysis/loops.h"
#include "model/launch_model.h"
#include "model/skeleton.h"
#include "model/timeline.h"
#include "readers/sass.h"

namespace tileperf {

using Pipes = std::map<std::string, double>;

// Adds the cycles of one warp instruction on its pipe, per SM, times
// `weight`, to `pipes` ("issue", "fma", "alu", "mufu", "fp64", "lsu", and
// "tensor_macs": the multiply-accumulates, which the tensor rate turns into
// cycles).
void add_pipes(const SassInstruction& insn, const CostModel& model, std::int64_t macs_hint, double weight,
               Pipes& pipes);

// Whether the launch's memory traffic is counted in tiles (the TileIR's
// loads and stores), else from the SASS's global loads and stores.
inline bool counts_tiles(const LaunchInputs& in) { return in.tileir && !in.tileir->memory.empty(); }

// How often each tile memory operation of in.tileir runs in one grid block:
// as the skeleton counted it for the class `cls`, else the declared trips
// of the `for` lines around it (the assumed count where none is declared).
std::vector<double> tile_memory_runs(const LaunchInputs& in, const BlockClass* cls);

// The trips of `mean`'s loops for class `c` of the skeleton: a loop
// counted by the skeleton takes its computed loops' iterations over
// executions.
std::vector<double> class_trips(const LoopAnalysis& mean, const BlockClass& c);

// What one class of blocks costs: cycles per CTA on each pipe and the
// busiest, its latency (the replay's), and its memory traffic (tile bytes
// loaded and stored per grid block, spilled bytes per CTA that go to L2).
struct ClassCost {
  Pipes pipes;
  double throughput = 0, latency = 0, loads = 0, stores = 0, spills = 0;
  std::string busiest;
};

// One block of the launch with its loops at given trips: its replay and
// what it costs.
class BlockCosts {
 public:
  // `spills_to_l2`: the spills' bytes count as L2 traffic.
  BlockCosts(const LaunchInputs& in, const ArchSpec& spec, std::int64_t cluster, const Latencies& latency,
             bool spills_to_l2);

  // Every loop at `trips` (in the order of in.loops), the blocks' runs
  // reweighed.
  void set_trips(const std::vector<double>& trips);

  BlockTimeline replay(bool keep_events) const;

  // The cost of a block of class `cls` (null: the mean block), all but its
  // latency (the replay's).
  ClassCost cost_of(const BlockClass* cls) const;

  // Adds the cost model's cycles of `blocks` blocks at the current trips.
  void add_cost(double blocks, double& total) const;

 private:
  const LaunchInputs& in_;
  const ArchSpec& spec_;
  std::int64_t cluster_;
  Latencies latency_;
  bool spills_to_l2_;
  std::vector<std::vector<Pipes>> per_block_;
  std::vector<FunctionFlow> flows_;  // reweighed for each class of blocks
  LoopAnalysis loops_;
};

}  // namespace tileperf
