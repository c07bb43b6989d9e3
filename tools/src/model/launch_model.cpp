#include "model/launch_model.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "model/block_costs.h"
#include "model/block_schedule.h"
#include "analysis/isa.h"

namespace tileperf {

namespace {

constexpr double kRegisterUnit = 256;  // registers per warp are allocated in units of 256

void occupancy(const LaunchInputs& in, LaunchEstimate& e) {
  const ArchSpec& s = *e.spec;
  double regs_per_warp =
      std::ceil(static_cast<double>(std::max<std::int64_t>(in.registers, 1)) * kWarpLanes / kRegisterUnit) *
      kRegisterUnit;
  std::map<std::string, std::int64_t> limits = {
      {"registers",
       static_cast<std::int64_t>(static_cast<double>(s.registers) / (regs_per_warp * static_cast<double>(e.warps)))},
      // tileiras places a kernel's shared memory after the 1 KB the system
      // reserves per block (its base is 0x400), so SHARED counts it already.
      {"shared", s.shared / std::max(in.shared_bytes, s.reserved_shared)},
      {"threads", s.max_threads / (e.warps * 32)},
      {"blocks", s.max_blocks}};
  e.resident = s.max_blocks;
  e.occupancy_limit = "blocks";
  for (const auto& [what, n] : limits) {
    if (n < e.resident) {
      e.resident = n;
      e.occupancy_limit = what;
    }
  }
  if (e.resident < 1) {
    e.notes.push_back(fmt::format("the block does not fit an SM of {} ({} limits it): taken as one per SM", s.arch,
                                  e.occupancy_limit));
    e.resident = 1;
  }
}

// The exponent of the p-norm that combines the waves, DRAM and L2 terms
// (chosen on the corpus mutants, before the validation edits were timed;
// p = 1 would add the terms, p -> infinity is the roofline's maximum).
constexpr double kOverlapNorm = 3.0;

// The columns of the SM occupancy picture.
constexpr int kOccupancyBuckets = 60;

// The waves: the blocks placed on the SMs (block_schedule.h), each class
// with its latency and work.
void schedule(const std::vector<BlockWork>& work, const std::function<int(std::int64_t)>& class_of, bool picture,
              LaunchEstimate& e) {
  const ArchSpec& s = *e.spec;
  double us_per_cycle = 1e-3 / s.clock_ghz;
  BlockSchedule both = schedule_blocks(s.sms, e.resident, e.ctas, class_of, work, picture ? kOccupancyBuckets : 0);
  e.waves = both.waves;
  e.waves_us = both.cycles * us_per_cycle;
  e.idle = both.idle;
  e.imbalance = both.mean > 0 ? both.slowest / both.mean : 1;
  e.occupancy = std::move(both.occupancy);
  std::vector<BlockWork> latency_only = work, throughput_only = work;
  for (auto& w : latency_only) w.work = 0;
  for (auto& w : throughput_only) w.latency = 0;
  e.latency_bound_us = schedule_blocks(s.sms, e.resident, e.ctas, class_of, latency_only).cycles * us_per_cycle;
  e.throughput_bound_us = schedule_blocks(s.sms, e.resident, e.ctas, class_of, throughput_only).cycles * us_per_cycle;
}

void combine(LaunchEstimate& e) {
  const ArchSpec& s = *e.spec;
  double reads = e.dram_bytes * e.tile_load_bytes / std::max(1.0, e.tile_load_bytes + e.tile_store_bytes);
  double writes = e.dram_bytes - reads;
  e.dram_us = std::max({reads / s.dram_read_gbs, writes / s.dram_write_gbs, e.dram_bytes / s.dram_copy_gbs}) * 1e-3;
  e.l2_us = e.l2_bytes / s.l2_gbs * 1e-3;
  e.launch_us = s.launch_us;
  double busiest = std::max({e.waves_us, e.dram_us, e.l2_us});
  // Roofline-style, but the SMs' work and the memory system's do not
  // overlap perfectly: the terms combine as a p-norm, which is the largest
  // alone when one dominates and exceeds it when they are close.
  const double p = kOverlapNorm;
  e.total_us = e.launch_us + std::pow(std::pow(e.waves_us, p) + std::pow(e.dram_us, p) + std::pow(e.l2_us, p), 1 / p);
  if (e.launch_us >= busiest) {
    e.limit = "launch";
  } else if (busiest == e.dram_us) {
    e.limit = "dram";
  } else if (busiest == e.l2_us) {
    e.limit = "l2";
  } else {
    e.limit = e.latency_bound_us >= e.throughput_bound_us ? "latency" : e.busiest_pipe;
  }
}

// The most classes whose latency is replayed exactly because one of their
// loops runs fewer than three times (the others' follows from the slopes).
constexpr std::size_t kMaxExactReplays = 16;

}  // namespace

namespace {

// Step 1, the launch's shape: threads and warps per block, the cluster,
// blocks and CTAs, and how many CTAs each SM holds.
void launch_shape(const LaunchInputs& in, LaunchEstimate& e) {
  e.spec = &arch_spec(in.listing->arch);
  e.threads = in.attributes.threads_per_block();
  if (e.threads <= 0) {
    e.threads = 128;
    e.notes.push_back("the cubin names no threads per block (EIATTR_REQNTID): taken as 128");
  }
  e.warps = (e.threads + 31) / 32;
  e.cluster = in.attributes.cluster_size();
  e.blocks = in.problem && in.problem->blocks > 0 ? in.problem->blocks : 1;
  e.ctas = e.blocks * e.cluster;
  occupancy(in, e);
}

// Step 2, the latencies the replay takes: the architecture's, those set by
// name over them, and the spills': they live in L1 while the resident
// CTAs' frames fit beside their shared memory; beyond that they come from
// L2, at its latency and through its bandwidth (`spills_to_l2`).
Latencies replay_latencies(const LaunchInputs& in, LaunchEstimate& e, bool& spills_to_l2) {
  Latencies latency = e.spec->latency;
  for (const auto& [name, value] : in.latency_overrides) set_latency(latency, name, value);
  double l1 =
      static_cast<double>(e.spec->l1_and_shared - e.resident * std::max(in.shared_bytes, e.spec->reserved_shared));
  double frames = static_cast<double>(in.spill_bytes * e.threads * e.resident);
  spills_to_l2 = in.spill_bytes > 0 && frames > l1;
  if (!in.latency_overrides.count("local")) latency.local = spills_to_l2 ? e.spec->l2_latency : latency.shared;
  if (spills_to_l2) {
    e.notes.push_back(
        fmt::format("{} bytes of spills per thread: {:.0f} KB for {} resident CTA(s) do not fit the "
                    "{:.0f} KB of L1 beside their shared memory: spills come from L2",
                    in.spill_bytes, frames / 1024, e.resident, std::max(0.0, l1) / 1024));
  }
  if (counts_tiles(in)) return latency;
  e.notes.push_back(
      "no TileIR: memory traffic from the SASS's global loads and stores only (TMA copies not "
      "counted)");
  return latency;
}

// Step 3, the launch's mean block (every loop at its mean trips): its
// replay is the picture, its pipes and latency the estimate's per CTA.
ClassCost mean_block(const LaunchInputs& in, const BlockCosts& costs, const BlockClass* only, LaunchEstimate& e) {
  ClassCost mean = costs.cost_of(only);
  e.timeline = costs.replay(true);
  mean.latency = e.timeline.cycles;
  e.pipes = mean.pipes;
  e.throughput_cycles = mean.throughput;
  e.busiest_pipe = mean.busiest;
  e.latency_cycles = mean.latency;
  if (in.loops->main >= 0) {
    auto it = e.timeline.loops.find(static_cast<std::size_t>(in.loops->main));
    e.overlap = it == e.timeline.loops.end() ? 1 : loop_overlap(it->second);
  }
  if (!in.keep_events) {
    for (auto it = e.timeline.loops.begin(); it != e.timeline.loops.end();) {
      it = static_cast<int>(it->first) == in.loops->main ? std::next(it) : e.timeline.loops.erase(it);
    }
  }
  return mean;
}

// What the SMs are given: each class of blocks with its latency and work,
// which class each CTA is, and the launch's memory traffic.
struct LaunchWork {
  std::vector<BlockWork> work;
  std::function<int(std::int64_t)> class_of = [](std::int64_t) { return 0; };
  double loads = 0, stores = 0, spills = 0;
};

// Step 4, with one class of blocks: every block the mean block.
LaunchWork one_class(const LaunchInputs& in, const ClassCost& mean, LaunchEstimate& e) {
  LaunchWork w;
  double blocks = static_cast<double>(e.blocks);
  w.work.push_back({mean.latency + e.pipes["dispatch"], mean.throughput, e.ctas});
  w.loads = mean.loads * blocks;
  w.stores = mean.stores * blocks;
  w.spills = mean.spills * static_cast<double>(e.ctas);
  e.launch_cost = in.loops->block_cost * blocks;
  return w;
}

// A class's latency without replaying it: the replay of an anchor (every
// loop whose trips differ between classes at three or more) plus, per such
// loop, its replayed cycles per trip times the class's trips beyond the
// anchor's (exact for loops outside one another: the replay repeats a
// steady iteration).
struct LatencySlopes {
  std::vector<std::size_t> varying;  // the loops whose trips differ between classes
  std::vector<double> anchor, slope;
  double anchor_latency = 0;

  double latency(const std::vector<double>& trips) const {
    double l = anchor_latency;
    for (std::size_t i : varying) l += slope[i] * (trips[i] - anchor[i]);
    return std::max(l, 0.0);
  }
  bool small(const std::vector<double>& trips) const {
    return std::any_of(varying.begin(), varying.end(), [&](std::size_t i) { return trips[i] < 3; });
  }
};

LatencySlopes latency_slopes(const LaunchInputs& in, const std::vector<std::vector<double>>& trips, double mean_latency,
                             BlockCosts& costs) {
  LatencySlopes s;
  std::vector<double> mean_trips;
  for (const auto& l : in.loops->loops) mean_trips.push_back(l.trips);
  for (std::size_t i = 0; i < mean_trips.size(); ++i) {
    bool differs = std::any_of(trips.begin(), trips.end(), [&](const auto& t) { return t[i] != trips.front()[i]; });
    if (differs) s.varying.push_back(i);
  }
  s.anchor = mean_trips;
  for (std::size_t i : s.varying) s.anchor[i] = std::max(s.anchor[i], 3.0);
  s.anchor_latency = mean_latency;
  if (s.anchor != mean_trips) {
    costs.set_trips(s.anchor);
    s.anchor_latency = costs.replay(false).cycles;
  }
  s.slope.assign(mean_trips.size(), 0);
  for (std::size_t i : s.varying) {
    std::vector<double> more = s.anchor;
    more[i] += 1;
    costs.set_trips(more);
    s.slope[i] = costs.replay(false).cycles - s.anchor_latency;
  }
  return s;
}

// Step 4, with classes of blocks of their own counts (the skeleton's):
// each class's cost at its trips, its latency from the slopes, or replayed
// exactly for a class with a loop of fewer than three trips; the
// estimate's per-CTA terms their means over the blocks.
LaunchWork by_class(const LaunchInputs& in, const Skeleton& sk, double mean_latency, BlockCosts& costs,
                    LaunchEstimate& e) {
  std::vector<std::vector<double>> trips;
  for (const auto& c : sk.classes) trips.push_back(class_trips(*in.loops, c));
  LatencySlopes slopes = latency_slopes(in, trips, mean_latency, costs);
  double dispatch = e.pipes["dispatch"], blocks = static_cast<double>(e.blocks);
  std::size_t exact = 0;
  e.latency_cycles = e.throughput_cycles = 0;
  e.pipes.clear();
  e.classes = static_cast<std::int64_t>(sk.classes.size());
  LaunchWork w;
  for (std::size_t k = 0; k < sk.classes.size(); ++k) {
    costs.set_trips(trips[k]);
    ClassCost c = costs.cost_of(&sk.classes[k]);
    bool replayed = slopes.small(trips[k]) && exact < kMaxExactReplays;
    c.latency = replayed ? costs.replay(false).cycles : slopes.latency(trips[k]);
    if (replayed) ++exact;
    double n = static_cast<double>(sk.classes[k].blocks);
    costs.add_cost(n, e.launch_cost);
    w.work.push_back({c.latency + dispatch, c.throughput, sk.classes[k].blocks * e.cluster});
    w.loads += c.loads * n;
    w.stores += c.stores * n;
    w.spills += c.spills * n * static_cast<double>(e.cluster);
    e.latency_cycles += c.latency * n / blocks;
    e.throughput_cycles += c.throughput * n / blocks;
    for (const auto& [pipe, cycles] : c.pipes) e.pipes[pipe] += cycles * n / blocks;
  }
  e.busiest_pipe.clear();
  double most = 0;
  for (const auto& [pipe, cycles] : e.pipes) {
    if (cycles > most) {
      most = cycles;
      e.busiest_pipe = pipe;
    }
  }
  std::int64_t cluster = e.cluster;
  const Skeleton* skeleton = &sk;
  w.class_of = [skeleton, cluster](std::int64_t cta) { return skeleton->class_of(cta / cluster); };
  return w;
}

// Step 6, the launch's bytes: tile bytes per block, spills per CTA, what
// goes through L2 and what DRAM moves (no more than the problem's arrays).
void memory_traffic(const LaunchInputs& in, const LaunchWork& w, LaunchEstimate& e) {
  e.tile_load_bytes = w.loads / static_cast<double>(e.blocks);
  e.tile_store_bytes = w.stores / static_cast<double>(e.blocks);
  e.spill_traffic = w.spills / static_cast<double>(e.ctas);
  e.l2_bytes = w.loads + w.stores + w.spills;
  e.floor_bytes = in.problem ? static_cast<double>(in.problem->floor_bytes) : 0;
  e.dram_bytes = e.floor_bytes > 0 ? std::min(e.l2_bytes, e.floor_bytes) : e.l2_bytes;
  if (in.problem && !in.problem->floor_unknown.empty())
    e.notes.push_back("no floor on the bytes: " + in.problem->floor_unknown);
}

}  // namespace

LaunchEstimate estimate_launch(const LaunchInputs& in) {
  LaunchEstimate e;
  launch_shape(in, e);
  bool spills_to_l2 = false;
  Latencies latency = replay_latencies(in, e, spills_to_l2);
  BlockCosts costs(in, *e.spec, e.cluster, latency, spills_to_l2);
  const Skeleton* sk = in.skeleton && in.skeleton->evaluated && !in.skeleton->classes.empty() ? in.skeleton : nullptr;
  const BlockClass* only = sk && sk->classes.size() == 1 ? &sk->classes[0] : nullptr;
  ClassCost mean = mean_block(in, costs, only, e);
  LaunchWork work = sk && sk->classes.size() > 1 ? by_class(in, *sk, mean.latency, costs, e) : one_class(in, mean, e);
  schedule(work.work, work.class_of, in.keep_events, e);  // step 5
  memory_traffic(in, work, e);
  combine(e);  // step 7
  return e;
}

namespace {

bool is_memory_copy(const std::string& op) {
  return is_global_access(op) || is_copy_load(op) || base_opcode(op) == "LDGSTS";
}

}  // namespace

double loop_overlap(const LoopTimeline& loop) {
  int steady = 0;
  for (const auto& ev : loop.events) steady = std::max(steady, ev.iteration);
  steady = std::min(steady, 1);  // the middle of three replays: both neighbours overlap it
  double in_flight = 0, exposed = 0;
  for (const auto& ev : loop.events) {
    if (ev.iteration != steady) continue;
    if (ev.waited_for_memory) exposed += ev.waited;
    if (ev.done > ev.issue && !ev.opcode.empty() && is_memory_copy(ev.opcode) &&
        op_class(ev.opcode) != OpClass::kStore) {
      in_flight += ev.done - ev.issue;
    }
  }
  if (in_flight <= 0) return 1;
  return std::clamp(1 - exposed / in_flight, 0.0, 1.0);
}

}  // namespace tileperf
