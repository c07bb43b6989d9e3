// tileperf loops: the loop tree of a cubin or SASS listing, with the
// metrics of each loop and the cost estimate.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "commands.h"
#include "elf.h"
#include "error.h"
#include "line_table.h"
#include "loops.h"
#include "metrics.h"
#include "pipeline.h"
#include "remarks.h"
#include "text.h"
#include "toolchain.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

struct LoopsOptions {
  std::string input, sass, remarks, dump_info;
  Toolchain tc;
  bool json = false;
};

bool is_elf(const std::string& data) { return data.rfind("\x7f" "ELF", 0) == 0; }

// Beside build/tileperf/<kernel>/<config>.<arch>.cubin, a test leaves
// <config>.<arch>.sass, .remarks.yaml and <config>.tileirbc.json.
std::string sibling(const std::string& cubin, const std::string& suffix) {
  fs::path p(cubin);
  if (p.extension() != ".cubin") return "";
  fs::path candidate = p.parent_path() / (p.stem().string() + suffix);
  return fs::exists(candidate) ? candidate.string() : "";
}

std::string dump_record_beside(const std::string& cubin) {
  fs::path p(cubin);
  std::string stem = p.stem().string();  // <config>.<arch>
  auto dot = stem.rfind('.');
  if (p.extension() != ".cubin" || dot == std::string::npos) return "";
  fs::path candidate = p.parent_path() / (stem.substr(0, dot) + ".tileirbc.json");
  return fs::exists(candidate) ? candidate.string() : "";
}

std::string loop_name(const LoopInfo& l) {
  return fmt::format("{:#06x}-{:#06x}", l.begin, l.end);
}

void print_loop(const LoopReport& r, std::size_t i, int indent) {
  const LoopInfo& l = r.loops[i];
  std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  if (l.spin) {
    fmt::print("{}retry loop {} ({}): {} instructions\n", pad, loop_name(l),
               l.allocation_retry ? "register allocation, runs once" : "barrier wait, cold",
               l.instructions);
    return;
  }
  fmt::print("{}loop {}  depth {}{}  trips {} ({}){}  {}\n", pad, loop_name(l), l.depth,
             static_cast<int>(i) == r.main ? "  MAIN" : "", l.trips, l.trips_from,
             l.lines ? "  " + format_lines(*l.lines) : "", format_warps(l.warps));
  fmt::print("{}  body: {} instructions, ii {}, waits {}, mma {}, mufu {}, loads {}, stores {}, "
             "async copies {}, fp64 {}, cost {:.1f} per iteration\n",
             pad, l.instructions, l.stall_cycles, l.waits, l.mma, l.mufu, l.loads, l.stores,
             l.async_copies, l.fp64, l.cost);
  fmt::print("{}  work per block: {:.4g} (cost {:.1f} x {:.4g} runs x {} warp(s))\n", pad, l.work, l.cost,
             l.runs, warp_count(l.warps));
}

// Why the main loop is the main loop: its work beside the runner-up's.
std::string main_choice(const LoopReport& r) {
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

void print_tree(const LoopReport& r, int parent, int indent) {
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    if (r.loops[i].parent != parent) continue;
    print_loop(r, i, indent);
    print_tree(r, static_cast<int>(i), indent + 1);
  }
}

nlohmann::json loop_json(const LoopReport& r) {
  nlohmann::json loops = nlohmann::json::array();
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    const LoopInfo& l = r.loops[i];
    nlohmann::json j = {{"function", l.function}, {"begin", l.begin}, {"end", l.end},
                        {"parent", l.parent}, {"depth", l.depth}, {"spin", l.spin},
                        {"main", static_cast<int>(i) == r.main}, {"trips", l.trips},
                        {"trips_from", l.trips_from}, {"instructions", l.instructions},
                        {"ii", l.stall_cycles}, {"waits", l.waits}, {"mma", l.mma},
                        {"mufu", l.mufu}, {"loads", l.loads}, {"stores", l.stores},
                        {"async_copies", l.async_copies}, {"fp64", l.fp64}, {"cost", l.cost},
                        {"allocation_retry", l.allocation_retry}, {"warps", format_warps(l.warps)},
                        {"runs", l.runs}, {"work", l.work}, {"opcodes", l.opcodes}};
    if (l.lines) j["lines"] = format_lines(*l.lines);
    loops.push_back(j);
  }
  return {{"arch", r.arch}, {"loops", loops}, {"block_cost", r.block_cost},
          {"unclassified", r.unclassified}, {"notes", r.notes}};
}

}  // namespace

int run_loops(const Args& args) {
  CLI::App app("Print the loop tree of a cubin (or of a SASS listing) with the metrics of each "
               "loop: body size, ii (the sum of the compiler's stall cycles), scoreboard waits, "
               "tensor-core, MUFU and memory instructions, trip count and cost per iteration.",
               "loops");
  LoopsOptions o;
  app.add_option("input", o.input, "a cubin, or a `cuobjdump --dump-sass` listing")->required();
  app.add_option("--sass", o.sass, "the cubin's listing (default: <cubin stem>.sass beside it, "
                                   "else cuobjdump is run)");
  app.add_option("--remarks", o.remarks, "tileiras remarks (default: <cubin stem>.remarks.yaml)");
  app.add_option("--dump-info", o.dump_info,
                 "dump record with the problem (default: <config>.tileirbc.json beside the cubin)");
  app.add_option("--cuobjdump", o.tc.cuobjdump, "cuobjdump executable")->default_val("cuobjdump");
  app.add_flag("--json", o.json, "print JSON");
  if (parse_args(app, args)) return kExitOk;

  std::string data = read_file(o.input);
  std::string listing_text, listing_name, cubin;
  if (is_elf(data)) {
    cubin = o.input;
    if (o.sass.empty()) o.sass = sibling(cubin, ".sass");
    if (o.remarks.empty()) o.remarks = sibling(cubin, ".remarks.yaml");
    if (o.dump_info.empty()) o.dump_info = dump_record_beside(cubin);
  } else if (o.sass.empty()) {
    o.sass = o.input;
  }
  if (!o.sass.empty()) {
    listing_text = read_file(o.sass);
    listing_name = o.sass;
  } else {
    listing_text = run_cuobjdump(o.tc, {"--dump-sass"}, cubin);
    listing_name = "cuobjdump --dump-sass " + cubin;
  }
  std::istringstream in(listing_text);
  SassListing listing = parse_sass(in, listing_name);

  LineTable lines;
  if (!cubin.empty()) lines = read_line_table(data, parse_elf(data, cubin), cubin);
  std::optional<Problem> problem;
  if (!o.dump_info.empty()) {
    problem = problem_from_record(parse_json(read_file(o.dump_info), o.dump_info), o.dump_info);
  }
  std::int64_t hint = 0;
  if (!o.remarks.empty()) {
    hint = tensor_macs_hint(remark_metrics(parse_remarks(read_file(o.remarks), o.remarks)));
  }
  LoopReport report = analyze_loops(listing, {&lines, problem ? &*problem : nullptr, hint});
  if (o.json) {
    std::cout << loop_json(report).dump(2) << "\n";
    return kExitOk;
  }
  std::size_t loops = 0, spin = 0;
  for (const auto& l : report.loops) (l.spin ? spin : loops)++;
  fmt::print("{} ({}): {} loop(s), {} retry loop(s) of barrier waits, {} backward branch(es) that "
             "are not loops; cost {:.0f} per block{}\n",
             fmt::join([&] {
               std::vector<std::string> names;
               for (const auto& f : listing.functions) names.push_back(f.name);
               return names;
             }(), ", "),
             report.arch, loops, spin, report.backward_non_loop_edges, report.block_cost,
             problem ? fmt::format(", {:.0f} per launch of {} blocks",
                                   report.block_cost * static_cast<double>(problem->blocks),
                                   problem->blocks)
                     : "");
  print_tree(report, -1, 1);
  if (lines.empty() && !cubin.empty()) fmt::print("  (the cubin has no line table)\n");
  for (const auto& note : report.notes) fmt::print("  note: {}\n", note);
  return kExitOk;
}

}  // namespace tileperf
