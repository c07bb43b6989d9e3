#include "metrics/model_metrics.h"

#include <algorithm>
#include <cmath>

#include "support/json_input.h"

namespace tileperf {

namespace {

std::int64_t ns(double us) { return saturated_count(us * 1e3); }

}  // namespace

std::map<std::string, std::int64_t> loop_metrics(const LoopAnalysis& analysis) {
  std::map<std::string, std::int64_t> m;
  std::int64_t count = 0, spin = 0, depth = 0;
  LoopInfo all;  // every loop body but the retry loops', summed
  for (const auto& l : analysis.loops) {
    if (l.spin) {
      ++spin;
      continue;
    }
    ++count;
    depth = std::max<std::int64_t>(depth, l.depth);
    all.stall_cycles += l.stall_cycles;
    all.instructions += l.instructions;
    all.waits += l.waits;
    all.mma += l.mma;
    all.mufu += l.mufu;
    all.loads += l.loads;
    all.stores += l.stores;
    all.async_copies += l.async_copies;
    all.fp64 += l.fp64;
  }
  m["loop.count"] = count;
  m["loop.spin"] = spin;
  m["loop.max_depth"] = depth;
  auto body_metrics = [&m](const std::string& prefix, const LoopInfo& l) {
    m[prefix + "ii"] = l.stall_cycles;
    m[prefix + "instructions"] = l.instructions;
    m[prefix + "waits"] = l.waits;
    m[prefix + "mma"] = l.mma;
    m[prefix + "mufu"] = l.mufu;
    m[prefix + "loads"] = l.loads;
    m[prefix + "stores"] = l.stores;
    m[prefix + "async_copies"] = l.async_copies;
    m[prefix + "fp64"] = l.fp64;
  };
  body_metrics("loop.all.", all);
  if (analysis.main >= 0) {
    const LoopInfo& main = analysis.loops[static_cast<std::size_t>(analysis.main)];
    body_metrics("loop.main.", main);
    m["loop.main.depth"] = main.depth;
    m["loop.main.trips"] = saturated_count(main.trips);
    m["loop.main.cost"] = saturated_count(main.cost);
    for (const auto& [op, n] : main.opcodes) m["loop.main.opcode." + op] = n;
  }
  m["cost.block"] = saturated_count(analysis.block_cost);
  m["cost.unclassified"] = analysis.unclassified;
  return m;
}

std::map<std::string, std::int64_t> launch_metrics(const LaunchEstimate& e) {
  std::map<std::string, std::int64_t> m;
  if (e.overlap >= 0) m["loop.main.overlap_pct"] = saturated_count(100 * e.overlap);
  m["cost.launch"] = saturated_count(e.launch_cost);
  m["cost.time_ns"] = ns(e.total_us);
  m["cost.term.waves_ns"] = ns(e.waves_us);
  m["cost.term.latency_ns"] = ns(e.latency_bound_us);
  m["cost.term.throughput_ns"] = ns(e.throughput_bound_us);
  m["cost.term.dram_ns"] = ns(e.dram_us);
  m["cost.term.l2_ns"] = ns(e.l2_us);
  m["cost.term.launch_ns"] = ns(e.launch_us);
  m["cost.limit." + e.limit] = 1;
  m["cost.dram_pct"] = e.total_us > 0 ? saturated_count(100 * e.dram_us / e.total_us) : 0;
  m["cost.block.latency_cycles"] = saturated_count(e.latency_cycles);
  m["cost.block.throughput_cycles"] = saturated_count(e.throughput_cycles);
  m["launch.threads"] = e.threads;
  m["launch.cluster"] = e.cluster;
  m["launch.ctas"] = saturated_count(static_cast<double>(e.ctas));
  m["launch.blocks_per_sm"] = e.resident;
  m["launch.waves"] = saturated_count(static_cast<double>(e.waves));
  m["launch.occupancy_pct"] =
      std::llround(100.0 * static_cast<double>(e.resident * e.warps * 32) / static_cast<double>(e.spec->max_threads));
  m["launch.occupancy_limit." + e.occupancy_limit] = 1;
  m["launch.bytes.l2"] = saturated_count(e.l2_bytes);
  m["launch.bytes.dram"] = saturated_count(e.dram_bytes);
  m["launch.bytes.floor"] = saturated_count(e.floor_bytes);
  m["launch.block_classes"] = e.classes;
  m["launch.imbalance_pct"] = saturated_count(100 * e.imbalance);
  m["launch.idle_pct"] = saturated_count(100 * e.idle);
  return m;
}

}  // namespace tileperf
