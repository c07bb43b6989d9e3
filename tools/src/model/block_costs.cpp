#include "model/block_costs.h"

#include <algorithm>
#include <cmath>

#include "analysis/isa.h"
#include "analysis/loop_trips.h"

namespace tileperf {

namespace {

constexpr double kSchedulers = 4;  // warp instructions issued per clock per SM
constexpr double kL1Bytes = 128;   // L1/shared bytes per clock per SM

// Per grid block: tile bytes loaded and stored, times how often each
// operation runs (tile_memory_runs).
void tile_traffic(const LaunchInputs& in, const BlockClass* cls, double& loads, double& stores) {
  loads = stores = 0;
  std::vector<double> runs = tile_memory_runs(in, cls);
  for (std::size_t k = 0; k < in.tileir->memory.size(); ++k) {
    const TileMemoryOp& m = in.tileir->memory[k];
    (m.store ? stores : loads) += static_cast<double>(m.bytes) * runs[k];
  }
}

// Local-memory loads and stores of the SASS, bytes per CTA.
double local_traffic(const std::vector<FunctionFlow>& flows) {
  double bytes = 0;
  for (const auto& f : flows) {
    for (std::size_t b = 0; b < f.graph.blocks.size(); ++b) {
      double weight = f.runs[b] * warp_count(f.warps[b]);
      for (std::size_t i = f.graph.blocks[b].begin; i < f.graph.blocks[b].end; ++i) {
        std::string_view base = base_opcode(f.graph.instruction(i).opcode);
        if (base == "LDL" || base == "STL") bytes += weight * kWarpLanes * access_bytes(f.graph.instruction(i).opcode);
      }
    }
  }
  return bytes;
}

// Without the TileIR: the global loads and stores of the SASS, per CTA.
void sass_traffic(const std::vector<FunctionFlow>& flows, std::int64_t cluster, double& loads, double& stores) {
  loads = stores = 0;
  for (const auto& f : flows) {
    for (std::size_t b = 0; b < f.graph.blocks.size(); ++b) {
      double weight = f.runs[b] * warp_count(f.warps[b]);
      for (std::size_t i = f.graph.blocks[b].begin; i < f.graph.blocks[b].end; ++i) {
        const auto& insn = f.graph.instruction(i);
        if (!is_global_access(insn.opcode)) continue;
        double bytes = weight * kWarpLanes * access_bytes(insn.opcode);
        (op_class(insn.opcode) == OpClass::kStore ? stores : loads) += bytes;
      }
    }
  }
  loads *= static_cast<double>(cluster);
  stores *= static_cast<double>(cluster);
}

// The pipe cycles of one run of each block by one warp: [flow][block].
std::vector<std::vector<Pipes>> block_pipes(const LaunchInputs& in, const std::vector<FunctionFlow>& flows) {
  CostModel model(in.listing->arch, in.tensor_macs_hint);
  std::vector<std::vector<Pipes>> out;
  for (const auto& f : flows) {
    out.emplace_back(f.graph.blocks.size());
    for (std::size_t b = 0; b < f.graph.blocks.size(); ++b) {
      for (std::size_t i = f.graph.blocks[b].begin; i < f.graph.blocks[b].end; ++i) {
        const auto& insn = f.graph.instruction(i);
        if (!never_executes(insn)) add_pipes(insn, model, in.tensor_macs_hint, 1, out.back()[b]);
      }
    }
  }
  return out;
}

// Cycles per CTA on each pipe with the flows' runs, and the busiest.
void throughput(const std::vector<std::vector<Pipes>>& per_block, const std::vector<FunctionFlow>& flows,
                const ArchSpec& spec, Pipes& pipes, double& busiest_cycles, std::string& busiest) {
  pipes.clear();
  for (std::size_t k = 0; k < flows.size(); ++k) {
    const auto& f = flows[k];
    for (std::size_t b = 0; b < f.graph.blocks.size(); ++b) {
      double weight = f.runs[b] * warp_count(f.warps[b]);
      if (weight <= 0) continue;
      for (const auto& [pipe, cycles] : per_block[k][b]) pipes[pipe] += weight * cycles;
    }
  }
  if (auto it = pipes.find("tensor_macs"); it != pipes.end()) {
    pipes["tensor"] = it->second / spec.tensor_macs;
    pipes.erase(it);
  }
  if (auto it = pipes.find("lsu"); it != pipes.end()) it->second /= spec.lsu_per_clock;
  pipes["dispatch"] = spec.dispatch_ns * spec.clock_ghz;
  busiest_cycles = 0;
  for (const auto& [pipe, cycles] : pipes) {
    if (cycles > busiest_cycles) {
      busiest_cycles = cycles;
      busiest = pipe;
    }
  }
}

}  // namespace

void add_pipes(const SassInstruction& insn, const CostModel& model, std::int64_t macs_hint, double weight,
               Pipes& pipes) {
  const ArchRates& r = model.rates();
  const std::string& op = insn.opcode;
  pipes["issue"] += weight / kSchedulers;
  auto add = [&](const char* pipe, double cycles) { pipes[pipe] += weight * cycles; };
  switch (op_class(op)) {
    // Two datapaths: the FMA pipe (FFMA, FMUL, FADD, HFMA2 at the FP32
    // rate; IMAD at the integer rate: ptxas moves integer adds there too)
    // and the ALU pipe (IADD3, LOP3, SHF, ISETP, MOV, ... at the integer rate).
    case OpClass::kFp32:
      add("fma", kWarpLanes / r.fp32);
      break;
    case OpClass::kFp32x2:
      add("fma", 2 * kWarpLanes / r.fp32);
      break;
    case OpClass::kFp16:
      add("fma", 2 * kWarpLanes / r.fp16);
      break;
    case OpClass::kPack:
      add("alu", kWarpLanes / r.pack);
      break;
    case OpClass::kInteger:
      add(base_opcode(op) == "IMAD" ? "fma" : "alu", kWarpLanes / r.integer);
      break;
    case OpClass::kBitCount:
      add("mufu", kWarpLanes / r.bitcount);
      break;
    case OpClass::kFp64:
      add("fp64", kWarpLanes / r.fp64);
      break;
    case OpClass::kMufu:
      add("mufu", kWarpLanes / r.mufu);
      break;
    case OpClass::kConvert:
      add("mufu", kWarpLanes / r.convert);
      break;
    case OpClass::kConvert64:
      add("fp64", kWarpLanes / r.convert64);
      break;
    case OpClass::kShuffle:
      add("lsu", kWarpLanes / r.shuffle);
      break;
    case OpClass::kTensor: {
      double macs = static_cast<double>(mma_shape_macs(op));
      if (macs == 0) macs = static_cast<double>(macs_hint);
      std::string_view base = base_opcode(op);
      // A warpgroup MMA is one product issued by each of its four warps.
      if (base.size() > 3 && base.substr(base.size() - 4) == "GMMA") macs /= 4;
      pipes["tensor_macs"] +=
          weight * macs * (has_modifier(op, "TF32") ? 2 : 1) / ((base[0] == 'I' || base[0] == 'Q') ? 2 : 1);
      break;
    }
    case OpClass::kLoad:
    case OpClass::kStore: {
      std::string_view base = base_opcode(op);
      if (base == "LDC" || base == "LDCU") break;
      add("lsu", std::max(1.0, kWarpLanes * access_bytes(op) / kL1Bytes));
      break;
    }
    default:
      break;
  }
}

std::vector<double> tile_memory_runs(const LaunchInputs& in, const BlockClass* cls) {
  auto trips_of = [&](const TileMemoryOp& m, int line) -> double {
    if (in.problem) {
      for (const auto& d : in.problem->trips) {
        bool same_file = d.file.empty() || m.file.empty() ||
                         d.file.substr(d.file.find_last_of('/') + 1) == m.file.substr(m.file.find_last_of('/') + 1);
        if (same_file && std::find(d.lines.begin(), d.lines.end(), line) != d.lines.end()) return d.trips;
      }
    }
    return static_cast<double>(kAssumedTrips);
  };
  std::vector<double> out;
  for (std::size_t k = 0; k < in.tileir->memory.size(); ++k) {
    const TileMemoryOp& m = in.tileir->memory[k];
    double runs = 1;
    if (cls && k < cls->memory.size()) {
      runs = cls->memory[k];
    } else {
      for (int line : m.loops) runs *= trips_of(m, line);
      if (m.in_unknown_loop) runs *= static_cast<double>(kAssumedTrips);
    }
    out.push_back(runs);
  }
  return out;
}

// The trips of `mean`'s loops for class `c` of the skeleton: a loop
// counted by the skeleton takes its computed loops' iterations over
// executions.
std::vector<double> class_trips(const LoopAnalysis& mean, const BlockClass& c) {
  std::vector<double> out;
  for (const auto& l : mean.loops) {
    if (l.trips_sources.empty()) {
      out.push_back(l.trips);
      continue;
    }
    double executions = 0, iterations = 0;
    for (int source : l.trips_sources) {
      executions += c.executions[static_cast<std::size_t>(source)];
      iterations += c.iterations[static_cast<std::size_t>(source)];
    }
    out.push_back(shared_trips(l.share, executions > 0 ? iterations / executions : 0));
  }
  return out;
}

BlockCosts::BlockCosts(const LaunchInputs& in, const ArchSpec& spec, std::int64_t cluster, const Latencies& latency,
                       bool spills_to_l2)
    : in_(in),
      spec_(spec),
      cluster_(cluster),
      latency_(latency),
      spills_to_l2_(spills_to_l2),
      per_block_(block_pipes(in, *in.flows)),
      flows_(*in.flows),
      loops_(*in.loops) {}

void BlockCosts::set_trips(const std::vector<double>& trips) {
  for (std::size_t i = 0; i < loops_.loops.size(); ++i) loops_.loops[i].trips = trips[i];
  for (auto& f : flows_) reweigh(loops_, f);
}

BlockTimeline BlockCosts::replay(bool keep_events) const {
  TimelineInputs t{.listing = in_.listing,
                   .flows = &flows_,
                   .loops = &loops_,
                   .lines = in_.lines,
                   .tileir = in_.tileir,
                   .latency = latency_,
                   .tensor_macs_hint = in_.tensor_macs_hint,
                   .keep_events = keep_events};
  return replay_block(t);
}

ClassCost BlockCosts::cost_of(const BlockClass* cls) const {
  ClassCost c;
  throughput(per_block_, flows_, spec_, c.pipes, c.throughput, c.busiest);
  if (spills_to_l2_) c.spills = local_traffic(flows_);
  if (counts_tiles(in_)) {
    tile_traffic(in_, cls, c.loads, c.stores);
  } else {
    sass_traffic(flows_, cluster_, c.loads, c.stores);
  }
  return c;
}

void BlockCosts::add_cost(double blocks, double& total) const {
  for (const auto& f : flows_) total += f.block_cost * blocks;
}

}  // namespace tileperf
