// What `tileperf loops` shows (loops_text.h).
#include "report/loops_text.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/cost_model.h"
#include "model/launch_model.h"
#include "analysis/loops.h"
#include "model/skeleton.h"
#include "model/timeline.h"
#include "metrics/metrics.h"
#include "support/text.h"
#include "report/launch_picture.h"
#include "metrics/model_metrics.h"

namespace tileperf {

namespace {

std::string count_source(const SkeletonLoop& l) {
  switch (l.source) {
    case CountSource::kComputed:
      return l.iterated ? "computed, iteration by iteration" : "computed";
    case CountSource::kDeclared:
      return fmt::format("declared '{}': {}", l.declared_key, l.unknown);
    case CountSource::kOverride:
      return fmt::format("override '{}'", l.declared_key);
    case CountSource::kAssumed:
      return fmt::format("ASSUMED {}: {}", kAssumedTrips, l.unknown);
  }
  return "";
}

void add_skeleton_loops(std::string& out, const Skeleton& s, int parent, int indent) {
  for (std::size_t i = 0; i < s.loops.size(); ++i) {
    const SkeletonLoop& l = s.loops[i];
    if (l.parent != parent) continue;
    std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    std::string trips = l.min_trips == l.max_trips ? trips_text(l.min_trips)
                                                   : fmt::format("{}-{} (mean {})", trips_text(l.min_trips),
                                                                 trips_text(l.max_trips), trips_text(l.trips()));
    double blocks = static_cast<double>(std::max<std::int64_t>(s.blocks(), 1));
    out += fmt::format("{}{} {}  trips {} per execution, {} execution(s) per block  {}\n", pad, l.kind, l.name(), trips,
                       trips_text(l.executions / blocks), count_source(l));
    add_skeleton_loops(out, s, static_cast<int>(i), indent + 1);
  }
}

void add_skeleton(std::string& out, const Skeleton& s) {
  if (!s.evaluated) return;
  std::vector<std::string> dims;
  for (int d : s.varying_dims) dims.push_back(std::string(1, "xyz"[d]));
  out += fmt::format(
      "\nkernel loops (the TileIR's, counted for the launch of {} block(s)): {} class(es) of blocks{}, "
      "{} group(s) of blocks evaluated, {} operation(s)\n",
      s.blocks(), s.classes.size(),
      dims.empty() ? std::string(", alike along every grid dimension")
                   : fmt::format(", differing along {}", fmt::join(dims, ", ")),
      s.evaluated_blocks, s.steps);
  if (s.loops.empty()) out += "  (no loops)\n";
  add_skeleton_loops(out, s, -1, 1);
}

nlohmann::json skeleton_json(const Skeleton& s) {
  nlohmann::json loops = nlohmann::json::array();
  for (const auto& l : s.loops) {
    loops.push_back({{"kind", l.kind},
                     {"name", l.name()},
                     {"file", l.where.file},
                     {"line", l.where.line},
                     {"parent", l.parent},
                     {"source", count_source_name(l.source)},
                     {"declared", l.declared_key},
                     {"unknown", l.unknown},
                     {"data_dependent", l.data_dependent},
                     {"iterated", l.iterated},
                     {"executions", l.executions},
                     {"iterations", l.iterations},
                     {"min_trips", l.min_trips},
                     {"max_trips", l.max_trips}});
  }
  return {{"loops", loops},
          {"classes", s.classes.size()},
          {"varying_dims", s.varying_dims},
          {"evaluated_blocks", s.evaluated_blocks},
          {"steps", s.steps},
          {"notes", s.notes}};
}

void add_loop(std::string& out, const LoopAnalysis& r, std::size_t i, int indent) {
  const LoopInfo& l = r.loops[i];
  std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  if (l.spin) {
    out += fmt::format("{}retry loop {} ({}): {} instructions\n", pad, loop_name(l),
                       l.allocation_retry ? "register allocation, runs once" : "barrier wait, cold", l.instructions);
    return;
  }
  out += fmt::format("{}loop {}  depth {}{}  trips {} ({}{}){}  {}\n", pad, loop_name(l), l.depth,
                     static_cast<int>(i) == r.main ? "  MAIN" : "", trips_text(l.trips), l.trips_from,
                     l.share.text.empty() ? "" : "; " + l.share.text, l.lines ? "  " + format_lines(*l.lines) : "",
                     format_warps(l.warps));
  out += fmt::format(
      "{}  body: {} instructions, ii {}, waits {}, mma {}, mufu {}, loads {}, stores {}, "
      "async copies {}, fp64 {}, cost {:.1f} per iteration\n",
      pad, l.instructions, l.stall_cycles, l.waits, l.mma, l.mufu, l.loads, l.stores, l.async_copies, l.fp64, l.cost);
  out += fmt::format("{}  work per block: {:.4g} (cost {:.1f} x {:.4g} runs x {} warp(s))\n", pad, l.work, l.cost,
                     l.runs, warp_count(l.warps));
}

// Why the main loop is the main loop: its work beside the runner-up's.
std::string main_choice(const LoopAnalysis& r) {
  if (r.main < 0) return "no loop besides retry loops: no main loop";
  const LoopInfo& main = r.loops[static_cast<std::size_t>(r.main)];
  const LoopInfo* next = nullptr;
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    const LoopInfo& l = r.loops[i];
    if (l.spin || static_cast<int>(i) == r.main) continue;
    if (!next || l.work > next->work) next = &l;
  }
  std::string out = fmt::format("main loop {}: the most work per block, {:.4g}", loop_name(main), main.work);
  if (next) out += fmt::format(" (next: {}, {:.4g})", loop_name(*next), next->work);
  return out + "; retry loops are never the main loop";
}

void add_tree(std::string& out, const LoopAnalysis& r, int parent, int indent) {
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    if (r.loops[i].parent != parent) continue;
    add_loop(out, r, i, indent);
    add_tree(out, r, static_cast<int>(i), indent + 1);
  }
}

nlohmann::json loop_json(const LoopAnalysis& r) {
  nlohmann::json loops = nlohmann::json::array();
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    const LoopInfo& l = r.loops[i];
    nlohmann::json j = {{"function", l.function},
                        {"begin", l.begin},
                        {"end", l.end},
                        {"parent", l.parent},
                        {"depth", l.depth},
                        {"spin", l.spin},
                        {"main", static_cast<int>(i) == r.main},
                        {"trips", l.trips},
                        {"trips_from", l.trips_from},
                        {"tileir_loops", l.trips_sources},
                        {"trips_share", l.share.text},
                        {"elect", l.elect},
                        {"instructions", l.instructions},
                        {"ii", l.stall_cycles},
                        {"waits", l.waits},
                        {"mma", l.mma},
                        {"mufu", l.mufu},
                        {"loads", l.loads},
                        {"stores", l.stores},
                        {"async_copies", l.async_copies},
                        {"fp64", l.fp64},
                        {"cost", l.cost},
                        {"allocation_retry", l.allocation_retry},
                        {"warps", format_warps(l.warps)},
                        {"runs", l.runs},
                        {"work", l.work},
                        {"opcodes", l.opcodes}};
    if (l.lines) j["lines"] = format_lines(*l.lines);
    loops.push_back(j);
  }
  return {{"arch", r.arch},
          {"loops", loops},
          {"block_cost", r.block_cost},
          {"unclassified", r.unclassified},
          {"notes", r.notes}};
}
void add_gantt(std::string& out, const LoopAnalysis& r, const LaunchEstimate& e, int loop, const char* title) {
  auto it = e.timeline.loops.find(static_cast<std::size_t>(loop));
  if (it == e.timeline.loops.end()) return;
  const LoopInfo& l = r.loops[static_cast<std::size_t>(loop)];
  out += fmt::format("\n{} {} ({}), one steady iteration:\n", title, loop_name(l), format_warps(l.warps));
  out += fmt::format("{}", format_gantt(it->second, 64));
}

void add_launch(std::string& out, const Measurement& m) {
  const LaunchEstimate& e = m.launch;
  out +=
      fmt::format("\nlaunch on {} ({}, {}):\n  {}\n", e.spec->arch, e.spec->part, e.spec->source, describe_launch(e));
  out += fmt::format(
      "  {} threads ({} warps) per CTA, {} registers, {} bytes of shared memory; {} CTAs ({} block(s) x cluster "
      "{}), {} per SM: {}\n",
      e.threads, e.warps, m.values.count("regs") ? m.values.at("regs") : 0,
      m.values.count("shared.bytes") ? m.values.at("shared.bytes") : 0, e.ctas, e.blocks, e.cluster, e.resident,
      e.occupancy_limit);
  std::vector<std::string> roles, pipes;
  for (const auto& role : e.timeline.roles)
    roles.push_back(fmt::format("{} {:.0f}", format_warps(role.warps), role.cycles));
  for (const auto& [pipe, cycles] : e.pipes) pipes.push_back(fmt::format("{} {:.0f}", pipe, cycles));
  out += fmt::format("  per CTA: latency {:.0f} cycles ({}); throughput {:.0f} cycles on {} ({})\n", e.latency_cycles,
                     fmt::join(roles, ", "), e.throughput_cycles, e.busiest_pipe, fmt::join(pipes, ", "));
  out += fmt::format(
      "  memory: {:.1f} MB through L2 ({:.1f} KB per block), {:.1f} MB from DRAM{}\n", e.l2_bytes / 1e6,
      (e.tile_load_bytes + e.tile_store_bytes) / 1e3, e.dram_bytes / 1e6,
      e.floor_bytes > 0 ? fmt::format(" (the arrays: {:.1f} MB)", e.floor_bytes / 1e6) : std::string(" (no floor)"));
  out += fmt::format("  blocks on the SMs: {} class(es), the slowest block {:.2f}x the mean, SMs {:.0f}% idle\n",
                     e.classes, e.imbalance, 100 * e.idle);
  out += fmt::format(
      "  terms: waves {:.1f} us (latency alone {:.1f}, throughput alone {:.1f}), DRAM {:.1f} us, L2 {:.1f} us, "
      "launch {:.1f} us; overlap of the main loop {}\n",
      e.waves_us, e.latency_bound_us, e.throughput_bound_us, e.dram_us, e.l2_us, e.launch_us,
      e.overlap < 0 ? std::string("(no main loop)") : fmt::format("{:.0f}%", 100 * e.overlap));
  for (const auto& note : e.notes) out += fmt::format("  note: {}\n", note);
}
}  // namespace

// The estimate by source line: the launch's (each line's share of the
// limiting term) and, per loop, the lines' cycles per iteration.
void add_line_time(std::string& out, const LoopAnalysis& analysis, const LineAttribution& a) {
  if (a.lines.empty() && a.loop_lines.empty()) return;
  out += fmt::format("\nestimated time by source line (share of {}):\n", a.term);
  for (std::size_t i = 0; i < a.lines.size() && i < 12; ++i) {
    out += fmt::format("  {:>5.1f}%  {:>10.0f} ns  {}\n", 100 * a.lines[i].share, a.lines[i].ns, a.lines[i].line);
  }
  if (a.lines.size() > 12) out += fmt::format("  ... {} more line(s)\n", a.lines.size() - 12);
  for (std::size_t l = 0; l < a.loop_lines.size() && l < analysis.loops.size(); ++l) {
    if (a.loop_lines[l].empty() || analysis.loops[l].spin) continue;
    out += fmt::format("  {} per iteration ({} cycles by line):", loop_name(analysis.loops[l]), a.loop_pipe[l]);
    for (std::size_t i = 0; i < a.loop_lines[l].size() && i < 6; ++i) {
      const auto& x = a.loop_lines[l][i];
      out += fmt::format(" {} {:.1f} ({:.0f} insn)", x.line, x.cycles, x.instructions);
    }
    out += "\n";
  }
}

std::string cubin_loops_text(const CubinLoops& r, bool gantt) {
  std::string out;
  const LoopAnalysis& analysis = r.loops;
  const Measurement* m = r.measurement ? &*r.measurement : nullptr;
  std::size_t loops = 0, spin = 0;
  for (const auto& l : analysis.loops) (l.spin ? spin : loops)++;
  std::vector<std::string> names;
  for (const auto& f : r.listing.functions) names.push_back(f.name);
  out += fmt::format(
      "{} ({}): {} loop(s), {} retry loop(s), {} backward branch(es) that are not loops; cost {:.0f} per "
      "block{}\n",
      fmt::join(names, ", "), analysis.arch, loops, spin, analysis.backward_non_loop_edges, analysis.block_cost,
      r.problem ? fmt::format(", {:.0f} per launch of {} blocks",
                              analysis.block_cost * static_cast<double>(r.problem->blocks), r.problem->blocks)
                : "");
  add_tree(out, analysis, -1, 1);
  out += fmt::format("  {}\n", main_choice(analysis));
  if (m && m->lines.counts.empty()) out += fmt::format("  (the cubin has no line table)\n");
  for (const auto& note : analysis.notes) out += fmt::format("  note: {}\n", note);
  if (r.no_res_usage) {
    out += "  (no resource usage of the cubin: no launch estimate; give --res-usage or --cuobjdump)\n";
  }
  if (!m) return out;
  add_skeleton(out, m->skeleton);
  add_launch(out, *m);
  add_line_time(out, analysis, m->line_time);
  if (gantt) {
    add_gantt(out, analysis, m->launch, analysis.main, "main loop");
    if (int p = producer_loop(analysis); p >= 0) add_gantt(out, analysis, m->launch, p, "producer loop");
    if (analysis.main < 0) out += fmt::format("\nno main loop to draw\n");
  }
  return out;
}

nlohmann::json cubin_loops_json(const CubinLoops& r) {
  auto j = loop_json(r.loops);
  if (const Measurement* m = r.measurement ? &*r.measurement : nullptr) {
    j["launch"] = launch_metrics(m->launch);
    if (m->skeleton.evaluated) j["skeleton"] = skeleton_json(m->skeleton);
    for (const auto& [index, replay] : m->launch.timeline.loops) {
      j["loops"][index]["replay_cycles_per_iteration"] = replay.cycles_per_iteration;
    }
    j["line_time"] = line_time_json(m->line_time);
    for (std::size_t l = 0; l < m->line_time.loop_lines.size() && l < j["loops"].size(); ++l) {
      nlohmann::json lines = nlohmann::json::array();
      for (const auto& x : m->line_time.loop_lines[l]) {
        lines.push_back({{"line", x.line}, {"cycles", x.cycles}, {"instructions", x.instructions}});
      }
      j["loops"][l]["line_cycles"] = {{"pipe", m->line_time.loop_pipe[l]}, {"lines", lines}};
    }
  }
  return j;
}

}  // namespace tileperf
