// What `tileperf loops` shows of a cubin or SASS listing (loops_report.h).
#include "report/loops_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "analysis/cost_model.h"
#include "analysis/loops.h"
#include "analysis/skeleton.h"
#include "metrics/metrics.h"
#include "metrics/pipeline.h"
#include "readers/elf.h"
#include "readers/line_table.h"
#include "metrics/remark_metrics.h"
#include "readers/remarks.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/toolchain.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

std::map<std::string, double> latency_overrides(const std::vector<std::string>& settings) {
  std::map<std::string, double> out;
  Latencies known;
  for (const auto& s : settings) {
    auto eq = s.find('=');
    std::optional<double> value;
    if (eq != std::string::npos) value = parse_decimal(s.substr(eq + 1), 12);
    std::string name = s.substr(0, eq);
    if (!value.has_value() || !set_latency(known, name, value.value_or(0))) {
      std::vector<std::string> names;
      for (auto& [field, at] : latency_fields(known)) names.push_back(field);
      throw UsageError(
          fmt::format("loops: --latency {}: expected NAME=CYCLES with NAME one of {}", s, fmt::join(names, ", ")));
    }
    out[name] = value.value_or(0);
  }
  return out;
}

bool is_elf(const std::string& data) {
  return data.rfind(
             "\x7f"
             "ELF",
             0) == 0;
}

// Beside build/tileperf/<kernel>/<config>.<arch>.cubin, a test leaves
// <config>.<arch>.sass, .remarks.yaml and <config>.tileirbc.json: the file
// of `kind` beside `cubin` when it is there, else "".
std::string sibling(const std::string& cubin, FileKind kind) {
  auto prefix = prefix_of(cubin, FileKind::kCubin);
  if (!prefix) return "";
  std::string candidate = prefixed_file(*prefix, kind);
  return fs::exists(candidate) ? candidate : "";
}

// What the name of `cubin` says (its kernel folder's name left out), or
// nullopt when it is no <config>.<arch>.cubin.
std::optional<FileId> cubin_id(const std::string& cubin) {
  auto id = parse_relative_path("kernel/" + fs::path(cubin).filename().string(), false);
  if (!id || id->kind != FileKind::kCubin) return std::nullopt;
  return id;
}

std::string dump_record_beside(const std::string& cubin) {
  auto id = cubin_id(cubin);
  if (!id) return "";
  std::string name =
      fs::path(relative_path({FileKind::kDumpRecord, id->kernel, id->config, "", ""})).filename().string();
  fs::path candidate = fs::path(cubin).parent_path() / name;
  return fs::exists(candidate) ? candidate.string() : "";
}

// "sm_90" of build/tileperf/<kernel>/<config>.sm_90.cubin; empty otherwise.
std::string arch_of_cubin_name(const std::string& cubin) {
  auto id = cubin_id(cubin);
  return id ? id->arch : "";
}

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
      "{} block(s) evaluated, {} operation(s)\n",
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
  out += fmt::format("{}loop {}  depth {}{}  trips {} ({}){}  {}\n", pad, loop_name(l), l.depth,
                     static_cast<int>(i) == r.main ? "  MAIN" : "", trips_text(l.trips), l.trips_from,
                     l.lines ? "  " + format_lines(*l.lines) : "", format_warps(l.warps));
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

// The tool output `loops` measures a cubin from: the files a test left
// beside it, else cuobjdump run now.
// Whether the resource usage the launch estimate needs is at hand: beside the
// cubin, given, or from a cuobjdump that exists.
bool loop_outputs(LoopsOptions& o, ToolOutputs& out) {
  const std::string& cubin = o.input;
  if (o.sass.empty()) o.sass = sibling(cubin, FileKind::kSass);
  if (o.remarks.empty()) o.remarks = sibling(cubin, FileKind::kRemarks);
  std::string res_usage = o.res_usage.empty() ? sibling(cubin, FileKind::kResUsage) : o.res_usage;
  bool can_run = fs::exists(o.tc.cuobjdump);
  if (!o.sass.empty()) {
    out.sass_text = read_file(o.sass);
    out.sass_name = o.sass;
  } else {
    out.sass_text = run_cuobjdump(o.tc, {"--dump-sass"}, cubin);
    out.sass_name = "cuobjdump --dump-sass " + cubin;
    out.from_tools = true;
  }
  if (!res_usage.empty()) {
    out.res_usage_text = read_file(res_usage);
    out.res_usage_name = res_usage;
  } else if (can_run) {
    out.res_usage_text = run_cuobjdump(o.tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin);
    out.res_usage_name = "cuobjdump -res-usage " + cubin;
  } else {
    return false;
  }
  if (!o.remarks.empty()) {
    out.remarks_text = read_file(o.remarks);
    out.remarks_name = o.remarks;
  }
  // <config>.<arch>.tileir beside <config>.<arch>.cubin.
  if (std::string tileir = sibling(cubin, FileKind::kTileir); !tileir.empty()) {
    out.tileir_text = read_file(tileir);
    out.tileir_name = tileir;
  }
  return true;
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

void add_report(std::string& out, const LoopsOptions& o, const SassListing& listing, const LoopAnalysis& report,
                const Measurement* m, const Problem* problem) {
  if (o.json) {
    auto j = loop_json(report);
    if (m) {
      j["launch"] = launch_metrics(m->launch);
      if (m->skeleton.evaluated) j["skeleton"] = skeleton_json(m->skeleton);
      for (const auto& [index, replay] : m->launch.timeline.loops) {
        j["loops"][index]["replay_cycles_per_iteration"] = replay.cycles_per_iteration;
      }
    }
    out += j.dump(2) + "\n";
    return;
  }
  std::size_t loops = 0, spin = 0;
  for (const auto& l : report.loops) (l.spin ? spin : loops)++;
  std::vector<std::string> names;
  for (const auto& f : listing.functions) names.push_back(f.name);
  out += fmt::format(
      "{} ({}): {} loop(s), {} retry loop(s), {} backward branch(es) that are not loops; cost {:.0f} per "
      "block{}\n",
      fmt::join(names, ", "), report.arch, loops, spin, report.backward_non_loop_edges, report.block_cost,
      problem ? fmt::format(", {:.0f} per launch of {} blocks",
                            report.block_cost * static_cast<double>(problem->blocks), problem->blocks)
              : "");
  add_tree(out, report, -1, 1);
  out += fmt::format("  {}\n", main_choice(report));
  if (m && m->lines.counts.empty()) out += fmt::format("  (the cubin has no line table)\n");
  for (const auto& note : report.notes) out += fmt::format("  note: {}\n", note);
  if (!m) return;
  add_skeleton(out, m->skeleton);
  add_launch(out, *m);
  if (o.gantt) {
    add_gantt(out, report, m->launch, report.main, "main loop");
    if (int p = producer_loop(report); p >= 0) add_gantt(out, report, m->launch, p, "producer loop");
    if (report.main < 0) out += fmt::format("\nno main loop to draw\n");
  }
}

}  // namespace

std::string loops_report(LoopsOptions o) {
  auto overrides = latency_overrides(o.latencies);
  std::string out;

  std::string data = read_file(o.input);
  std::optional<Problem> problem;
  if (is_elf(data)) {
    if (o.dump_info.empty()) o.dump_info = dump_record_beside(o.input);
  }
  if (!o.dump_info.empty()) {
    problem = problem_from_record(
        record_for_arch(parse_json(read_file(o.dump_info), o.dump_info), arch_of_cubin_name(o.input), o.dump_info),
        o.dump_info);
  }
  if (!is_elf(data)) {
    if (o.gantt) throw UsageError("loops: --gantt needs a cubin (its threads per block and line table)");
    std::istringstream in(read_file(o.sass.empty() ? o.input : o.sass));
    SassListing listing = parse_sass(in, o.sass.empty() ? o.input : o.sass);
    std::int64_t hint = 0;
    if (!o.remarks.empty()) hint = tensor_macs_hint(remark_metrics(parse_remarks(read_file(o.remarks), o.remarks)));
    LoopAnalysis report = analyze_loops(listing, {nullptr, problem ? &*problem : nullptr, hint});
    add_report(out, o, listing, report, nullptr, problem ? &*problem : nullptr);
    return out;
  }
  ToolOutputs outputs;
  if (!loop_outputs(o, outputs)) {
    // Without the resource usage there is no launch estimate: the loops alone.
    if (o.gantt) throw UsageError("loops: --gantt needs the cubin's resource usage (--res-usage, or --cuobjdump)");
    std::istringstream in(outputs.sass_text);
    SassListing listing = parse_sass(in, outputs.sass_name);
    ElfFile elf = parse_elf(data, o.input);
    LineTable lines = read_line_table(data, elf, o.input);
    std::int64_t hint = 0;
    if (!o.remarks.empty()) hint = tensor_macs_hint(remark_metrics(parse_remarks(read_file(o.remarks), o.remarks)));
    int warps = static_cast<int>(
        std::min<std::int64_t>((kernel_of(listing, data, elf, o.input).threads_per_block() + 31) / 32, kMaxWarps));
    LoopAnalysis report = analyze_loops(listing, {&lines, problem ? &*problem : nullptr, hint, warps});
    add_report(out, o, listing, report, nullptr, problem ? &*problem : nullptr);
    if (!o.json)
      out += fmt::format("  (no resource usage of the cubin: no launch estimate; give --res-usage or --cuobjdump)\n");
    return out;
  }
  Measurement m = measure(outputs, o.input, problem ? &*problem : nullptr, true, overrides);
  std::istringstream in(outputs.sass_text);
  SassListing listing = parse_sass(in, outputs.sass_name);
  add_report(out, o, listing, m.loops, &m, problem ? &*problem : nullptr);
  return out;
}

}  // namespace tileperf
