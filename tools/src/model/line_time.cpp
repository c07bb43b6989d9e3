#include "model/line_time.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/isa.h"
#include "analysis/source_lines.h"
#include "analysis/warps.h"
#include "model/block_costs.h"

namespace tileperf {

namespace {

using Pipes = std::map<std::string, double>;

// What each line adds to the limiting term over the mean block.
std::map<std::string, double> line_amounts(const LaunchInputs& in, const LaunchEstimate& e, LineKeys& keys,
                                           std::string& term) {
  std::map<std::string, double> amount;
  bool memory = e.limit == "dram" || e.limit == "l2";
  if (memory && counts_tiles(in)) {
    std::vector<double> runs = tile_memory_runs(in, nullptr);
    for (std::size_t k = 0; k < in.tileir->memory.size(); ++k) {
      const TileMemoryOp& m = in.tileir->memory[k];
      if (m.file.empty() || m.line <= 0) continue;
      amount[source_key(m.file) + ":" + std::to_string(m.line)] += static_cast<double>(m.bytes) * runs[k];
    }
    if (!amount.empty()) {  // else a TileIR without locations: the SASS's accesses
      term = e.limit == "dram" ? "DRAM bytes (tile loads and stores)" : "L2 bytes (tile loads and stores)";
      return amount;
    }
  }
  CostModel model(in.listing->arch, in.tensor_macs_hint);
  std::string pipe = e.limit == "tensor" ? "tensor_macs" : e.limit;
  Pipes pipes;  // one instruction's
  if (memory)
    term = "global memory bytes (SASS loads and stores)";
  else if (e.limit == "latency")
    term = "executed warp instructions (a proxy of the latency term)";
  else
    term = e.limit + " cycles";
  for (const auto& f : *in.flows) {
    for (std::size_t b = 0; b < f.graph.blocks.size(); ++b) {
      double weight = f.runs[b] * warp_count(f.warps[b]);
      if (weight <= 0) continue;
      for (std::size_t i = f.graph.blocks[b].begin; i < f.graph.blocks[b].end; ++i) {
        const auto& insn = f.graph.instruction(i);
        if (never_executes(insn)) continue;
        std::string line = keys.of(f.graph.function->name, insn.address);
        if (line.empty()) continue;
        if (memory) {
          if (is_global_access(insn.opcode)) amount[line] += weight * access_bytes(insn.opcode);
        } else if (e.limit == "latency") {
          amount[line] += weight;
        } else {
          pipes.clear();
          add_pipes(insn, model, in.tensor_macs_hint, weight, pipes);
          if (auto it = pipes.find(pipe); it != pipes.end()) amount[line] += it->second;
        }
      }
    }
  }
  return amount;
}

void attribute_loops(const LaunchInputs& in, LineKeys& keys, LineAttribution& out) {
  if (!in.loops) return;
  out.loop_pipe.assign(in.loops->loops.size(), "");
  out.loop_lines.assign(in.loops->loops.size(), {});
  CostModel model(in.listing->arch, in.tensor_macs_hint);
  for (const auto& f : *in.flows) {
    for (std::size_t l = 0; l < f.graph.loops.size(); ++l) {
      std::size_t index = f.first_loop + l;
      if (index >= out.loop_lines.size()) continue;
      std::map<std::string, Pipes> by_line;
      Pipes all;
      for (std::size_t b : f.graph.own_blocks(l)) {
        if (b < f.graph.cold.size() && f.graph.cold[b]) continue;
        for (std::size_t i = f.graph.blocks[b].begin; i < f.graph.blocks[b].end; ++i) {
          const auto& insn = f.graph.instruction(i);
          if (never_executes(insn)) continue;
          std::string line = keys.of(f.graph.function->name, insn.address);
          Pipes& p = by_line[line.empty() ? "?" : line];
          add_pipes(insn, model, in.tensor_macs_hint, 1, p);
          p["instructions"] += 1;
        }
      }
      for (const auto& [line, p] : by_line) {
        for (const auto& [pipe, cycles] : p) all[pipe] += cycles;
      }
      std::string busiest;
      double most = -1;
      for (const auto& [pipe, cycles] : all) {
        if (pipe != "tensor_macs" && pipe != "instructions" && cycles > most) {
          most = cycles;
          busiest = pipe;
        }
      }
      out.loop_pipe[index] = busiest;
      for (auto& [line, p] : by_line) {
        out.loop_lines[index].push_back({line, p[busiest], p["instructions"]});
      }
      std::sort(out.loop_lines[index].begin(), out.loop_lines[index].end(),
                [](const LoopLineCycles& a, const LoopLineCycles& b) {
                  return a.cycles != b.cycles ? a.cycles > b.cycles : a.line < b.line;
                });
    }
  }
}

}  // namespace

LineAttribution attribute_lines(const LaunchInputs& in, const LaunchEstimate& e,
                                const std::function<std::string(const std::string&)>& here) {
  LineAttribution out;
  if (!in.flows || !in.listing) return out;
  static const LineTable kNoLines;
  LineKeys keys(in.lines ? *in.lines : kNoLines, here);
  attribute_loops(in, keys, out);
  if (e.limit.empty() || e.limit == "launch") {
    out.term = "launch overhead (no line's)";
    return out;
  }
  auto amount = line_amounts(in, e, keys, out.term);
  double total = 0;
  for (const auto& [line, a] : amount) total += a;
  if (total <= 0) return out;
  for (const auto& [line, a] : amount) {
    if (a > 0) out.lines.push_back({line, a / total, a / total * e.total_us * 1e3});
  }
  std::sort(out.lines.begin(), out.lines.end(), [](const LineTime& a, const LineTime& b) {
    return a.share != b.share ? a.share > b.share : a.line < b.line;
  });
  return out;
}

void add_line_time(std::vector<LineMove>& moves, const LineAttribution& a) {
  std::map<std::string, const LineTime*> by_line;
  for (const auto& l : a.lines) by_line[l.line] = &l;
  for (auto& m : moves) {
    if (a.lines.empty()) break;
    if (m.current == 0) continue;  // a line that is gone has no share
    auto it = by_line.find(m.line);
    m.share = it == by_line.end() ? 0 : it->second->share;
    m.ns = it == by_line.end() ? 0 : it->second->ns;
  }
}

nlohmann::json line_time_json(const LineAttribution& a) {
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : a.lines) {
    lines.push_back({{"line", l.line}, {"share", std::round(l.share * 1e4) / 1e4}, {"ns", std::llround(l.ns)}});
  }
  return {{"term", a.term}, {"lines", lines}};
}

}  // namespace tileperf
