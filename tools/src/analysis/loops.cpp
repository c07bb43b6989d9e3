#include "analysis/loops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "analysis/cfg.h"
#include "analysis/counted_loops.h"
#include "analysis/isa.h"
#include "analysis/loop_matching.h"
#include "analysis/loop_trips.h"
#include "analysis/thread_values.h"
#include "support/json_input.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

// An instruction that does work of its own (no integer, uniform, control
// or barrier instruction): what unrolling a loop repeats.
bool repeats_work(OpClass c) {
  switch (c) {
    case OpClass::kInteger:
    case OpClass::kUniform:
    case OpClass::kControl:
    case OpClass::kBarrier:
    case OpClass::kOther:
      return false;
    default:
      return true;
  }
}

// The predicate a branch is taken on ("P0" of @!P0 BRA, "UP0" of
// BRA.U !UP0), without its negation; empty when it is taken always.
std::string branch_predicate(const SassInstruction& insn) {
  std::string p = always_executes(insn) ? trim(split(insn.operands, ',').front()) : insn.predicate.substr(1);
  if (!p.empty() && p[0] == '!') p.erase(0, 1);
  bool numbered = p.size() > 1 && is_digit(p.back());
  return numbered && (p[0] == 'P' || p.rfind("UP", 0) == 0) ? p : "";
}

// The instructions that close a loop at block `latch`: its branch and the
// comparison in the block that decides it. The comparison carries the
// loop's own line where the branch carries that of a statement after the
// body (a barrier before the next iteration).
std::vector<Index> closing_instructions(const FunctionGraph& g, Index latch) {
  Index last = g.blocks[latch].end - 1;
  std::vector<Index> out = {last};
  std::string p = branch_predicate(g.instruction(last));
  if (p.empty()) return out;
  for (Index i = last; i-- > g.blocks[latch].begin;) {
    if (!may_write(g.instruction(i), p)) continue;
    out.push_back(i);
    break;
  }
  return out;
}

// The source lines of a body: the range within its most frequent file.
std::optional<LineRange> body_lines(const FunctionGraph& g, const std::vector<Index>& insns, const LineTable* table) {
  if (!table) return std::nullopt;
  std::map<std::string, std::vector<int>> by_file;
  for (Index i : insns) {
    if (auto line = table->find(g.function->name, g.instruction(i).address)) {
      by_file[line->file].push_back(line->line);
    }
  }
  const std::vector<int>* best = nullptr;
  const std::string* best_file = nullptr;
  for (const auto& [file, lines] : by_file) {
    if (!best || lines.size() > best->size()) {
      best = &lines;
      best_file = &file;
    }
  }
  if (!best) return std::nullopt;
  auto [lo, hi] = std::minmax_element(best->begin(), best->end());
  return LineRange{*best_file, *lo, *hi};
}

class FunctionAnalysis {
 public:
  FunctionAnalysis(const SassFunction& fn, const CostModel& model, const LoopOptions& o, LoopAnalysis& analysis)
      : g_(build_graph(fn)), model_(model), o_(o), analysis_(analysis) {
    warps_ = o.warps > 0 ? warp_masks(g_, o.warps) : std::vector<WarpMask>(g_.blocks.size(), 1);
  }

  void run() {
    first_loop_ = analysis_.loops.size();
    for (Index l = 0; l < g_.loops.size(); ++l) analysis_.loops.push_back(describe(l));
    for (Index l = 0; l < g_.loops.size(); ++l) {
      int parent = g_.loops[l].parent;
      analysis_.loops[first_loop_ + l].parent = parent < 0 ? -1 : static_cast<int>(first_loop_) + parent;
    }
    if (o_.computed) {
      match_tileir_loops();
      assign_groups(analysis_.loops, first_loop_, *o_.computed);
    }
    assign_routines();
    analysis_.block_cost += routine_cost(0);
    for (Index l = 0; l < g_.loops.size(); ++l) {
      LoopInfo& info = analysis_.loops[first_loop_ + l];
      for (Index b : body(l)) {
        double c = 0;
        for (Index i = g_.blocks[b].begin; i < g_.blocks[b].end; ++i) c += instruction_cost(i);
        info.cost += c;
        info.warps |= warps_[b];
        info.work += c * block_runs(b) * warp_count(warps_[b]);
      }
      info.runs = block_runs(g_.loops[l].header);
    }
    analysis_.backward_non_loop_edges += static_cast<std::int64_t>(g_.backward_non_loop_edges);
    for (const auto& b : g_.blocks) analysis_.unknown_branches += b.unknown_successors ? 1 : 0;
  }

  // Hands over the graph and each block's runs and warps.
  FunctionFlow take_flow() {
    FunctionFlow f;
    f.runs.resize(g_.blocks.size());
    for (Index b = 0; b < g_.blocks.size(); ++b) f.runs[b] = warps_[b] ? block_runs(b) : 0;
    f.warps = warps_;
    f.first_loop = first_loop_;
    f.routine_of = routine_of_;
    f.own_cost.assign(g_.blocks.size(), 0);
    for (Index b = 0; b < g_.blocks.size(); ++b) {
      for (Index i = g_.blocks[b].begin; i < g_.blocks[b].end; ++i) {
        f.own_cost[b] += model_.cycles(g_.instruction(i));
        const auto& insn = g_.instruction(i);
        if (flow(insn) != Flow::kCall || never_executes(insn) || slow_path_call(i)) continue;
        auto target = branch_target(insn);
        auto entry = target ? entry_at(*target) : std::nullopt;
        if (entry) f.calls.emplace_back(b, *entry);
      }
    }
    f.graph = std::move(g_);
    return f;
  }

 private:
  std::vector<Index> body(Index loop) const {
    std::vector<Index> out;
    for (Index b : g_.own_blocks(loop)) {
      if (!g_.cold[b]) out.push_back(b);
    }
    return out;
  }

  double instruction_cost(Index i) {
    const auto& insn = g_.instruction(i);
    double c = model_.cycles(insn);
    if (flow(insn) == Flow::kCall && !never_executes(insn) && !slow_path_call(i)) {
      auto target = branch_target(insn);
      auto entry = target ? entry_at(*target) : std::nullopt;
      if (entry) {
        c += routine_cost(*entry);
      } else {
        note(fmt::format("{}: call at {:#06x} to an address outside the function is not costed", g_.function->name,
                         insn.address));
      }
    }
    return c;
  }

  LoopInfo describe(Index l) {
    const Loop& loop = g_.loops[l];
    LoopInfo info;
    info.function = g_.function->name;
    info.begin = g_.block_address(loop.header);
    for (Index b : loop.blocks) {
      if (!g_.cold[b] || loop.spin) info.end = std::max(info.end, g_.block_end_address(b));
    }
    info.depth = loop.depth;
    info.spin = loop.spin;
    info.allocation_retry = loop.allocation_retry;
    info.elect = loop.elect;
    auto own = g_.own_blocks(l);
    if (!loop.spin && !o_.computed) assign_trips(info, g_, loop, own, o_);
    if (loop.allocation_retry) {
      info.trips = 1;  // the first try succeeds
      info.trips_from = "retry";
    }
    // A retry loop is cold as a whole: describe all of it.
    auto insns = g_.instructions_of(loop.spin ? loop.blocks : body(l));
    for (Index i : insns) {
      const auto& insn = g_.instruction(i);
      OpClass c = op_class(insn.opcode);
      ++info.instructions;
      info.stall_cycles += insn.control.stall;
      info.waits += insn.control.waits() ? 1 : 0;
      info.mma += c == OpClass::kTensor;
      info.mufu += c == OpClass::kMufu;
      info.loads += c == OpClass::kLoad;
      info.stores += c == OpClass::kStore;
      info.async_copies += c == OpClass::kAsyncCopy;
      info.fp64 += c == OpClass::kFp64 || c == OpClass::kConvert64;
      ++info.opcodes[insn.opcode];
    }
    info.lines = body_lines(g_, insns, o_.lines);
    return info;
  }

  // The TileIR loop each compiled loop runs and its share of that loop's
  // trips (loop_matching.h); an elect loop runs once.
  void match_tileir_loops() {
    std::vector<CompiledLoop> compiled;
    for (Index l = 0; l < g_.loops.size(); ++l) compiled.push_back(compiled_loop(l));
    auto matches = match_compiled_loops(compiled, *o_.computed);
    std::vector<std::string> elect;
    for (Index l = 0; l < g_.loops.size(); ++l) {
      LoopInfo& info = analysis_.loops[first_loop_ + l];
      if (info.elect) elect.push_back(loop_name(info));
      info.warps = compiled[l].warps;
      if (!info.spin) take_match(info, matches[l], l);
    }
    if (!elect.empty()) {
      note(
          fmt::format("{}: compiled loop(s) {} run a uniform operation for one elected lane at a time (ELECT, "
                      "BRA.U.ANY), entered with one lane: each runs once",
                      g_.function->name, fmt::join(elect, ", ")));
    }
  }

  CompiledLoop compiled_loop(Index l) const {
    const Loop& loop = g_.loops[l];
    CompiledLoop c;
    c.parent = loop.parent;
    c.retry = loop.spin;
    c.elect = loop.elect;
    c.begin = g_.block_address(loop.header);
    auto line_of = [&](Index i) -> std::optional<SourceLine> {
      if (!o_.lines) return std::nullopt;
      return o_.lines->find(g_.function->name, g_.instruction(i).address);
    };
    for (Index latch : loop.latches) {
      for (Index i : closing_instructions(g_, latch)) {
        if (auto line = line_of(i)) c.latches.push_back(*line);
      }
    }
    for (Index b : body(l)) c.warps |= warps_[b];
    for (Index i : g_.instructions_of(body(l))) {
      if (auto line = line_of(i)) c.body.push_back(*line);
      c.work += repeats_work(op_class(g_.instruction(i).opcode)) ? 1 : 0;
      c.instructions += 1;
    }
    return c;
  }

  void take_match(LoopInfo& info, const LoopMatch& m, Index l) {
    if (info.elect) {
      info.trips = 1;
      info.trips_from = "elect";
      return;
    }
    if (m.tileir < 0) {
      take_own_count(info, m, l);
      return;
    }
    const TripDeclaration& d = (*o_.computed)[static_cast<Index>(m.tileir)];
    info.trips_from = d.key;
    info.trips_group = d.group;
    info.trips_sources.clear();
    if (d.source >= 0) info.trips_sources.push_back(d.source);
    info.share = m.share;
    info.trips = shared_trips(m.share, d.trips);
  }

  // A compiled loop that runs no TileIR loop: the count its SASS gives
  // (counted_loops.h), else the assumption; named in a note either way.
  void take_own_count(LoopInfo& info, const LoopMatch& m, Index l) {
    auto counted = constant_trips(g_, l);
    info.trips = counted ? static_cast<double>(*counted) : static_cast<double>(kAssumedTrips);
    info.trips_from = counted ? "counted" : "assumed";
    bool no_lines = !o_.lines || o_.lines->empty();
    note(fmt::format("compiled loop {}{} runs no loop of the kernel's TileIR: {}; {} {} times", loop_name(info),
                     info.lines ? " (" + format_lines(*info.lines) + ")" : "",
                     no_lines ? "the cubin has no line table" : m.why_not,
                     counted ? "its constant counter runs it" : "taken to run", trips_text(info.trips)));
  }

  std::optional<Index> entry_at(std::uint64_t address) const {
    for (Index e : g_.entries) {
      if (g_.block_address(e) == address) return e;
    }
    return std::nullopt;
  }

  // Each block belongs to the first entry (function entry, then call
  // targets) that reaches it.
  void assign_routines() {
    routine_of_.assign(g_.blocks.size(), -1);
    for (Index e : g_.entries) {
      std::vector<Index> work{e};
      while (!work.empty()) {
        Index b = work.back();
        work.pop_back();
        if (routine_of_[b] >= 0) continue;
        routine_of_[b] = static_cast<int>(e);
        for (Index s : g_.blocks[b].successors) work.push_back(s);
      }
    }
  }

  // How often a block runs per run of its routine: the trips of the loops
  // around it; 0 on cold paths.
  double weight(Index b) const {
    if (g_.cold[b]) return 0;
    double w = 1;
    for (int l = g_.innermost_loop[b]; l >= 0; l = g_.loops[static_cast<Index>(l)].parent) {
      w *= static_cast<double>(analysis_.loops[first_loop_ + static_cast<Index>(l)].trips);
    }
    return w;
  }

  // A call the code around it branches over unless a check fails (FCHK,
  // then `@!P0 BRA` past the call of an IEEE division's slow path; a
  // predicated call): taken never to run.
  bool slow_path_call(Index i) const {
    const auto& insn = g_.instruction(i);
    if (!always_executes(insn)) return true;
    Index b = 0;
    while (b + 1 < g_.blocks.size() && g_.blocks[b].end <= i) ++b;
    const auto& preds = g_.blocks[b].predecessors;
    return !preds.empty() && std::all_of(preds.begin(), preds.end(), [&](Index p) {
      const auto& last = g_.instruction(g_.blocks[p].end - 1);
      return p + 1 == b && flow(last) == Flow::kBranch && conditional(last);
    });
  }

  // How often the routine that starts at `entry` runs in a launch of one
  // block: once for the function's entry, else once per run of each call
  // that targets it.
  double routine_runs(Index entry) {
    if (entry == g_.entries.front()) return 1;
    if (auto it = routine_runs_.find(entry); it != routine_runs_.end()) return it->second;
    routine_runs_[entry] = 0;  // a recursive call adds nothing more
    double runs = 0;
    for (Index b = 0; b < g_.blocks.size(); ++b) {
      for (Index i = g_.blocks[b].begin; i < g_.blocks[b].end; ++i) {
        const auto& insn = g_.instruction(i);
        if (flow(insn) != Flow::kCall || never_executes(insn) || slow_path_call(i)) continue;
        auto target = branch_target(insn);
        if (target && g_.block_address(entry) == *target) runs += block_runs(b);
      }
    }
    routine_runs_[entry] = runs;
    return runs;
  }

  double block_runs(Index b) {
    int routine = routine_of_.empty() ? -1 : routine_of_[b];
    if (routine < 0) return 0;
    return weight(b) * routine_runs(static_cast<Index>(routine));
  }

  double routine_cost(Index entry) {
    if (auto it = routine_costs_.find(entry); it != routine_costs_.end()) return it->second;
    if (!in_progress_.insert(entry).second) {
      note(fmt::format("{}: recursive call to {:#06x} is costed once", g_.function->name, g_.block_address(entry)));
      return 0;
    }
    double total = 0;
    for (Index b = 0; b < g_.blocks.size(); ++b) {
      if (routine_of_[b] != static_cast<int>(entry)) continue;
      double w = weight(b);
      if (w == 0) continue;
      double block = 0;
      for (Index i = g_.blocks[b].begin; i < g_.blocks[b].end; ++i) block += instruction_cost(i);
      total += w * block;
    }
    in_progress_.erase(entry);
    routine_costs_[entry] = total;
    return total;
  }

  void note(const std::string& text) {
    if (std::find(analysis_.notes.begin(), analysis_.notes.end(), text) == analysis_.notes.end()) {
      analysis_.notes.push_back(text);
    }
  }

  FunctionGraph g_;
  const CostModel& model_;
  const LoopOptions& o_;
  LoopAnalysis& analysis_;
  Index first_loop_ = 0;
  std::vector<int> routine_of_;
  std::vector<WarpMask> warps_;
  std::map<Index, double> routine_costs_;
  std::map<Index, double> routine_runs_;
  std::set<Index> in_progress_;
};

// The main loop: the most work (cost x runs x warps), then deepest, then
// largest, then first.
int choose_main(const std::vector<LoopInfo>& loops) {
  int best = -1;
  auto key = [](const LoopInfo& l) { return std::make_tuple(l.work, l.depth, l.instructions); };
  for (std::size_t i = 0; i < loops.size(); ++i) {
    if (loops[i].spin) continue;
    if (best < 0 || key(loops[i]) > key(loops[static_cast<std::size_t>(best)])) best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

LoopAnalysis analyze_loops(const SassListing& listing, const LoopOptions& options, std::vector<FunctionFlow>* flows) {
  LoopAnalysis out;
  out.arch = listing.arch;
  CostModel model(listing.arch, options.tensor_macs_hint);
  for (const auto& fn : listing.functions) {
    FunctionAnalysis analysis(fn, model, options, out);
    analysis.run();
    if (flows) flows->push_back(analysis.take_flow());
    for (std::size_t i = 0; i < fn.padding_begin; ++i) {
      out.unclassified += op_class(fn.instructions[i].opcode) == OpClass::kOther;
    }
  }
  out.main = choose_main(out.loops);
  note_unmatched_trips(out, options);
  // No count is taken silently.
  for (const auto& l : out.loops) {
    if (l.spin || l.trips_from != "assumed" || options.computed) continue;
    out.notes.push_back(
        fmt::format("compiled loop {}{} takes no counted or declared loop of the kernel (no TileIR to count its "
                    "loops, and no declaration): taken to run {} times",
                    loop_name(l), l.lines ? " (" + format_lines(*l.lines) + ")" : "", kAssumedTrips));
  }
  return out;
}

void reweigh(const LoopAnalysis& analysis, FunctionFlow& f) {
  const FunctionGraph& g = f.graph;
  std::vector<double> weight(g.blocks.size(), 0);
  for (Index b = 0; b < g.blocks.size(); ++b) {
    if (g.cold[b]) continue;
    double w = 1;
    for (int l = g.innermost_loop[b]; l >= 0; l = g.loops[static_cast<Index>(l)].parent) {
      w *= analysis.loops[f.first_loop + static_cast<Index>(l)].trips;
    }
    weight[b] = w;
  }
  // How often each routine runs: once for the function's entry, else once
  // per run of each call that targets it (a recursive call adds nothing).
  std::map<Index, double> routine_runs;
  std::set<Index> in_progress;
  std::function<double(Index)> runs_of = [&](Index entry) -> double {
    if (!g.entries.empty() && entry == g.entries.front()) return 1;
    if (auto it = routine_runs.find(entry); it != routine_runs.end()) return it->second;
    if (!in_progress.insert(entry).second) return 0;
    double runs = 0;
    for (const auto& [b, target] : f.calls) {
      if (target != entry || f.routine_of[b] < 0) continue;
      runs += weight[b] * runs_of(static_cast<Index>(f.routine_of[b]));
    }
    in_progress.erase(entry);
    routine_runs[entry] = runs;
    return runs;
  };
  f.block_cost = 0;
  for (Index b = 0; b < g.blocks.size(); ++b) {
    double runs = f.routine_of[b] < 0 ? 0 : weight[b] * runs_of(static_cast<Index>(f.routine_of[b]));
    f.block_cost += runs * f.own_cost[b];
    f.runs[b] = f.warps[b] ? runs : 0;
  }
}

// The loop whose picture goes beside the main loop's: the one with the
// most copies issued by warps that do not run the main loop (the producer of
// a warp-specialised pipeline), if any.
int producer_loop(const LoopAnalysis& r) {
  if (r.main < 0) return -1;
  WarpMask consumers = r.loops[static_cast<std::size_t>(r.main)].warps;
  int best = -1;
  for (std::size_t i = 0; i < r.loops.size(); ++i) {
    const LoopInfo& l = r.loops[i];
    if (l.spin || static_cast<int>(i) == r.main || (l.warps & consumers) != 0 || l.async_copies == 0) continue;
    if (best < 0 || l.async_copies > r.loops[static_cast<std::size_t>(best)].async_copies) best = static_cast<int>(i);
  }
  return best;
}

std::string trips_text(double trips) {
  if (std::fabs(trips) >= static_cast<double>(kMaxCount))
    return fmt::format("{:.0f}", trips);  // past int64's exact range
  if (std::fabs(trips - std::round(trips)) < 1e-9)
    return fmt::format("{}", static_cast<std::int64_t>(std::llround(trips)));
  return fmt::format("{:.2f}", trips);
}

std::string loop_name(const LoopInfo& l) { return fmt::format("{:#06x}-{:#06x}", l.begin, l.end); }

std::string format_lines(const LineRange& lines) {
  std::string name = file_name(lines.file);
  if (lines.first == lines.last) return fmt::format("{}:{}", name, lines.first);
  return fmt::format("{}:{}-{}", name, lines.first, lines.last);
}

}  // namespace tileperf
