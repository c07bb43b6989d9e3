#include "model/launch_model.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "model/block_schedule.h"
#include "analysis/cost_model.h"
#include "analysis/isa.h"
#include "support/json_input.h"

namespace tileperf {

namespace {

constexpr double kRegisterUnit = 256;  // registers per warp are allocated in units of 256
constexpr double kSchedulers = 4;      // warp instructions issued per clock per SM
constexpr double kL1Bytes = 128;       // L1/shared bytes per clock per SM

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
void sass_traffic(const std::vector<FunctionFlow>& flows, LaunchEstimate& e, double& loads, double& stores) {
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
  loads *= static_cast<double>(e.cluster);
  stores *= static_cast<double>(e.cluster);
}

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

using Pipes = std::map<std::string, double>;

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

std::int64_t ns(double us) { return saturated_count(us * 1e3); }

// What one class of blocks costs: its runs from its loops' trips, then
// pipes, latency, memory traffic.
struct ClassCost {
  Pipes pipes;
  double throughput = 0, latency = 0, loads = 0, stores = 0, spills = 0;
  std::string busiest;
};

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

// The most classes whose latency is replayed exactly because one of their
// loops runs fewer than three times (the others' follows from the slopes).
constexpr std::size_t kMaxExactReplays = 16;

}  // namespace

void add_pipes(const SassInstruction& insn, const CostModel& model, std::int64_t macs_hint, double weight,
               std::map<std::string, double>& pipes) {
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

LaunchEstimate estimate_launch(const LaunchInputs& in) {
  LaunchEstimate e;
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
  // Spills live in L1 while the resident CTAs' frames fit beside their
  // shared memory; beyond that they come from L2, at its latency and
  // through its bandwidth.
  Latencies latency = e.spec->latency;
  for (const auto& [name, value] : in.latency_overrides) set_latency(latency, name, value);
  double l1 =
      static_cast<double>(e.spec->l1_and_shared - e.resident * std::max(in.shared_bytes, e.spec->reserved_shared));
  double frames = static_cast<double>(in.spill_bytes * e.threads * e.resident);
  bool spills_to_l2 = in.spill_bytes > 0 && frames > l1;
  if (!in.latency_overrides.count("local")) latency.local = spills_to_l2 ? e.spec->l2_latency : latency.shared;
  if (spills_to_l2) {
    e.notes.push_back(
        fmt::format("{} bytes of spills per thread: {:.0f} KB for {} resident CTA(s) do not fit the "
                    "{:.0f} KB of L1 beside their shared memory: spills come from L2",
                    in.spill_bytes, frames / 1024, e.resident, std::max(0.0, l1) / 1024));
  }
  bool from_tileir = in.tileir && !in.tileir->memory.empty();
  if (!from_tileir) {
    e.notes.push_back(
        "no TileIR: memory traffic from the SASS's global loads and stores only (TMA copies not "
        "counted)");
  }
  const Skeleton* sk = in.skeleton && in.skeleton->evaluated && !in.skeleton->classes.empty() ? in.skeleton : nullptr;
  auto per_block = block_pipes(in, *in.flows);
  std::vector<FunctionFlow> flows = *in.flows;  // reweighed for each class of blocks
  LoopAnalysis loops = *in.loops;
  auto set_trips = [&](const std::vector<double>& trips) {
    for (std::size_t i = 0; i < loops.loops.size(); ++i) loops.loops[i].trips = trips[i];
    for (auto& f : flows) reweigh(loops, f);
  };
  auto replay = [&](bool keep) {
    TimelineInputs t{.listing = in.listing,
                     .flows = &flows,
                     .loops = &loops,
                     .lines = in.lines,
                     .tileir = in.tileir,
                     .latency = latency,
                     .tensor_macs_hint = in.tensor_macs_hint,
                     .keep_events = keep};
    return replay_block(t);
  };
  auto cost_of = [&](const BlockClass* cls) {
    ClassCost c;
    throughput(per_block, flows, *e.spec, c.pipes, c.throughput, c.busiest);
    if (spills_to_l2) c.spills = local_traffic(flows);
    if (from_tileir) {
      tile_traffic(in, cls, c.loads, c.stores);
    } else {
      sass_traffic(flows, e, c.loads, c.stores);
    }
    return c;
  };
  // The launch's mean block (every loop at its mean trips): its schedule is
  // the picture; with one class of blocks it is every block.
  const BlockClass* only = sk && sk->classes.size() == 1 ? &sk->classes[0] : nullptr;
  ClassCost mean = cost_of(only);
  e.timeline = replay(true);
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
  double dispatch = e.pipes["dispatch"];
  std::vector<BlockWork> work;
  double blocks = static_cast<double>(e.blocks);
  double loads = 0, stores = 0, spills = 0;
  std::function<int(std::int64_t)> class_of = [](std::int64_t) { return 0; };
  if (!sk || sk->classes.size() == 1) {
    work.push_back({mean.latency + dispatch, mean.throughput, e.ctas});
    loads = mean.loads * blocks;
    stores = mean.stores * blocks;
    spills = mean.spills * static_cast<double>(e.ctas);
  } else {
    // Each class of blocks with its own counts. Its latency: the replay of
    // an anchor (every loop whose trips differ between classes at three or
    // more) plus, per such loop, its replayed cycles per trip times the
    // class's trips beyond the anchor's (exact for loops outside one
    // another: the replay repeats a steady iteration); replayed exactly for
    // a class with a loop of fewer than three trips.
    std::vector<double> mean_trips;
    for (const auto& l : in.loops->loops) mean_trips.push_back(l.trips);
    std::vector<std::vector<double>> trips;
    for (const auto& c : sk->classes) trips.push_back(class_trips(*in.loops, c));
    std::vector<std::size_t> varying;
    for (std::size_t i = 0; i < mean_trips.size(); ++i) {
      for (const auto& t : trips) {
        if (t[i] != trips.front()[i]) {
          varying.push_back(i);
          break;
        }
      }
    }
    std::vector<double> anchor = mean_trips;
    for (std::size_t i : varying) anchor[i] = std::max(anchor[i], 3.0);
    double anchor_latency = mean.latency;
    if (anchor != mean_trips) {
      set_trips(anchor);
      anchor_latency = replay(false).cycles;
    }
    std::vector<double> slope(mean_trips.size(), 0);
    for (std::size_t i : varying) {
      std::vector<double> more = anchor;
      more[i] += 1;
      set_trips(more);
      slope[i] = replay(false).cycles - anchor_latency;
    }
    std::size_t exact = 0;
    e.latency_cycles = e.throughput_cycles = 0;
    e.pipes.clear();
    e.classes = static_cast<std::int64_t>(sk->classes.size());
    for (std::size_t k = 0; k < sk->classes.size(); ++k) {
      set_trips(trips[k]);
      ClassCost c = cost_of(&sk->classes[k]);
      bool small = std::any_of(varying.begin(), varying.end(), [&](std::size_t i) { return trips[k][i] < 3; });
      if (small && exact < kMaxExactReplays) {
        c.latency = replay(false).cycles;
        ++exact;
      } else {
        c.latency = anchor_latency;
        for (std::size_t i : varying) c.latency += slope[i] * (trips[k][i] - anchor[i]);
        c.latency = std::max(c.latency, 0.0);
      }
      double n = static_cast<double>(sk->classes[k].blocks);
      for (const auto& f : flows) e.launch_cost += f.block_cost * n;
      work.push_back({c.latency + dispatch, c.throughput, sk->classes[k].blocks * e.cluster});
      loads += c.loads * n;
      stores += c.stores * n;
      spills += c.spills * n * static_cast<double>(e.cluster);
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
    class_of = [sk, cluster](std::int64_t cta) { return sk->class_of(cta / cluster); };
  }
  schedule(work, class_of, in.keep_events, e);
  e.tile_load_bytes = loads / blocks;
  e.tile_store_bytes = stores / blocks;
  e.spill_traffic = spills / static_cast<double>(e.ctas);
  e.l2_bytes = loads + stores + spills;
  e.floor_bytes = in.problem ? static_cast<double>(in.problem->floor_bytes) : 0;
  e.dram_bytes = e.floor_bytes > 0 ? std::min(e.l2_bytes, e.floor_bytes) : e.l2_bytes;
  if (in.problem && !in.problem->floor_unknown.empty())
    e.notes.push_back("no floor on the bytes: " + in.problem->floor_unknown);
  combine(e);
  return e;
}

namespace {

bool is_memory_copy(const std::string& op) {
  std::string_view base = base_opcode(op);
  return is_global_access(op) || base == "UTMALDG" || base == "LDGSTS" || op.rfind("UBLKCP.S.G", 0) == 0;
}

}  // namespace

nlohmann::json occupancy_json(const LaunchEstimate& e, std::size_t rows) {
  if (e.occupancy.empty() || rows == 0) return nullptr;
  std::size_t sms = e.occupancy.size(), per_row = (sms + rows - 1) / rows;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t first = 0; first < sms; first += per_row) {
    std::size_t last = std::min(sms, first + per_row);
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t c = 0; c < e.occupancy[first].size(); ++c) {
      double sum = 0;
      for (std::size_t s = first; s < last; ++s) sum += e.occupancy[s][c];
      double pct =
          100 * sum / static_cast<double>(last - first) / static_cast<double>(std::max<std::int64_t>(e.resident, 1));
      row.push_back(std::lround(std::clamp(pct, 0.0, 100.0)));
    }
    out.push_back(std::move(row));
  }
  return {{"sms", sms},
          {"sms_per_row", per_row},
          {"resident", e.resident},
          {"waves_us", e.waves_us},
          {"imbalance", e.imbalance},
          {"idle_pct", std::lround(100 * e.idle)},
          {"classes", e.classes},
          {"rows", out}};
}

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

std::map<std::string, std::int64_t> launch_metrics(const LaunchEstimate& e) {
  std::map<std::string, std::int64_t> m;
  if (e.overlap >= 0) m["loop.main.overlap_pct"] = saturated_count(100 * e.overlap);
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

namespace {

std::string format_us(double us) {
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  return fmt::format("{:.1f} us", us);
}

std::string limit_text(const std::string& limit) {
  if (limit == "dram") return "DRAM-bound";
  if (limit == "l2") return "L2-bound";
  if (limit == "launch") return "launch-bound";
  if (limit == "latency") return "latency-bound";
  return limit + "-bound";
}

// Blocks that differ are worth a mention when the slowest takes this much
// longer than the mean, or the SMs stand idle this much of the launch.
constexpr double kUnevenImbalance = 1.1;
constexpr double kUnevenIdle = 0.1;

}  // namespace

std::string describe_launch(const LaunchEstimate& e) {
  auto pct = [&](double us) { return e.total_us > 0 ? static_cast<int>(std::lround(100 * us / e.total_us)) : 0; };
  std::string out =
      fmt::format("est. {}, {}: {} block(s)/SM ({}), {} wave(s), DRAM {}% busy, L2 {}%", format_us(e.total_us),
                  limit_text(e.limit), e.resident, e.occupancy_limit, e.waves, pct(e.dram_us), pct(e.l2_us));
  if (e.imbalance >= kUnevenImbalance) {
    out += fmt::format(", blocks uneven: the slowest {:.2f}x the mean", e.imbalance);
  }
  if (e.idle >= kUnevenIdle) out += fmt::format(", SMs {}% idle", static_cast<int>(std::lround(100 * e.idle)));
  return out;
}

}  // namespace tileperf
