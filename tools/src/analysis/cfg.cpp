#include "analysis/cfg.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/isa.h"

namespace tileperf {

namespace {

using Index = std::size_t;

// Instruction index of an address inside the function's code, if any.
std::optional<Index> index_of(const std::vector<SassInstruction>& insns, Index count, std::uint64_t address) {
  auto end = insns.begin() + static_cast<std::ptrdiff_t>(count);
  auto it = std::lower_bound(insns.begin(), end, address,
                             [](const SassInstruction& i, std::uint64_t a) { return i.address < a; });
  if (it == end || it->address != address) return std::nullopt;
  return static_cast<Index>(it - insns.begin());
}

// What control flow an instruction really has: @!PT never runs.
Flow effective_flow(const SassInstruction& insn) { return never_executes(insn) ? Flow::kNone : flow(insn); }

bool ends_block(Flow f) { return f == Flow::kBranch || f == Flow::kIndirect || f == Flow::kReturn || f == Flow::kExit; }

std::set<Index> find_leaders(const SassFunction& fn, Index count, std::set<Index>& call_targets) {
  std::set<Index> leaders{0};
  for (Index i = 0; i < count; ++i) {
    const auto& insn = fn.instructions[i];
    Flow f = effective_flow(insn);
    if (f == Flow::kBranch || f == Flow::kCall) {
      if (auto target = branch_target(insn)) {
        if (auto t = index_of(fn.instructions, count, *target)) {
          leaders.insert(*t);
          if (f == Flow::kCall) call_targets.insert(*t);
        }
      }
    }
    if (ends_block(f) && i + 1 < count) leaders.insert(i + 1);
  }
  return leaders;
}

void link(FunctionGraph& g, const std::map<Index, Index>& block_at, Index count) {
  const auto& insns = g.function->instructions;
  for (Index b = 0; b < g.blocks.size(); ++b) {
    auto& block = g.blocks[b];
    const auto& last = insns[block.end - 1];
    Flow f = effective_flow(last);
    std::vector<Index> succ;
    if (f == Flow::kBranch) {
      auto target = branch_target(last);
      auto t = target ? index_of(insns, count, *target) : std::nullopt;
      if (t) {
        succ.push_back(block_at.at(*t));
      } else {
        block.unknown_successors = true;
      }
    }
    if (f == Flow::kIndirect) block.unknown_successors = true;
    bool falls_through = !ends_block(f) || conditional(last);
    if (falls_through && block.end < count) succ.push_back(b + 1);
    std::sort(succ.begin(), succ.end());
    succ.erase(std::unique(succ.begin(), succ.end()), succ.end());
    block.successors = succ;
    for (Index s : succ) g.blocks[s].predecessors.push_back(b);
  }
}

// Reverse postorder from a virtual root whose children are the entries.
std::vector<Index> reverse_postorder(const FunctionGraph& g) {
  std::vector<Index> order;
  std::vector<bool> seen(g.blocks.size(), false);
  std::vector<std::pair<Index, Index>> stack;  // block, next successor position
  for (auto it = g.entries.rbegin(); it != g.entries.rend(); ++it) {
    if (seen[*it]) continue;
    seen[*it] = true;
    stack.emplace_back(*it, 0);
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      if (next < g.blocks[b].successors.size()) {
        Index s = g.blocks[b].successors[next++];
        if (!seen[s]) {
          seen[s] = true;
          stack.emplace_back(s, 0);
        }
      } else {
        order.push_back(b);
        stack.pop_back();
      }
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// Cooper, Harvey and Kennedy's iterative dominator algorithm, with a virtual
// root above every entry (so that subroutines have dominators of their own).
void compute_dominators(FunctionGraph& g) {
  const Index n = g.blocks.size(), root = n;
  std::vector<Index> order = reverse_postorder(g);
  std::vector<Index> rpo(n + 1, 0);
  rpo[root] = 0;
  for (Index i = 0; i < order.size(); ++i) {
    rpo[order[i]] = i + 1;
    g.blocks[order[i]].reachable = true;
  }
  constexpr Index kUnset = static_cast<Index>(-1);
  std::vector<Index> idom(n + 1, kUnset);
  idom[root] = root;
  std::set<Index> entries(g.entries.begin(), g.entries.end());
  auto intersect = [&](Index a, Index b) {
    while (a != b) {
      while (rpo[a] > rpo[b]) a = idom[a];
      while (rpo[b] > rpo[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (Index b : order) {
      Index best = entries.count(b) ? root : kUnset;
      for (Index p : g.blocks[b].predecessors) {
        if (idom[p] == kUnset) continue;
        best = best == kUnset ? p : intersect(p, best);
      }
      if (best != kUnset && idom[b] != best) {
        idom[b] = best;
        changed = true;
      }
    }
  }
  g.idom.assign(n, -1);
  for (Index b = 0; b < n; ++b) {
    if (idom[b] != kUnset && idom[b] != root) g.idom[b] = static_cast<int>(idom[b]);
  }
}

std::vector<Index> natural_loop(const FunctionGraph& g, Index header, const std::vector<Index>& latches) {
  std::set<Index> body{header};
  std::vector<Index> work(latches.begin(), latches.end());
  while (!work.empty()) {
    Index b = work.back();
    work.pop_back();
    if (!body.insert(b).second) continue;
    for (Index p : g.blocks[b].predecessors) work.push_back(p);
  }
  return {body.begin(), body.end()};
}

void find_loops(FunctionGraph& g) {
  std::map<Index, std::vector<Index>> latches_of;  // header -> back-edge sources
  for (Index s = 0; s < g.blocks.size(); ++s) {
    if (!g.blocks[s].reachable) continue;
    for (Index t : g.blocks[s].successors) {
      if (g.dominates(t, s)) {
        latches_of[t].push_back(s);
      } else if (g.block_address(t) <= g.block_address(s)) {
        ++g.backward_non_loop_edges;
      }
    }
  }
  for (auto& [header, latches] : latches_of) {
    Loop loop;
    loop.header = header;
    loop.latches = latches;
    loop.blocks = natural_loop(g, header, latches);
    g.loops.push_back(std::move(loop));
  }
  // Natural loops of different headers are nested or disjoint: the parent is
  // the smallest other loop that holds the header.
  for (Index i = 0; i < g.loops.size(); ++i) {
    int parent = -1;
    for (Index j = 0; j < g.loops.size(); ++j) {
      if (i == j || !g.loops[j].contains(g.loops[i].header)) continue;
      if (parent < 0 || g.loops[j].blocks.size() < g.loops[static_cast<Index>(parent)].blocks.size()) {
        parent = static_cast<int>(j);
      }
    }
    g.loops[i].parent = parent;
    if (parent >= 0) g.loops[static_cast<Index>(parent)].children.push_back(i);
  }
  for (auto& loop : g.loops) {
    for (int p = loop.parent; p >= 0; p = g.loops[static_cast<Index>(p)].parent) ++loop.depth;
  }
  g.innermost_loop.assign(g.blocks.size(), -1);
  for (Index i = 0; i < g.loops.size(); ++i) {
    for (Index b : g.loops[i].blocks) {
      int& inner = g.innermost_loop[b];
      if (inner < 0 || g.loops[i].blocks.size() < g.loops[static_cast<Index>(inner)].blocks.size()) {
        inner = static_cast<int>(i);
      }
    }
  }
}

bool does_work(OpClass c) {
  switch (c) {
    case OpClass::kBarrier:
    case OpClass::kControl:
    case OpClass::kInteger:
    case OpClass::kUniform:
      return false;
    default:
      return true;
  }
}

// A spilled register reloaded or saved around a poll (LDL, STL) is no
// work of the loop either.
bool spill_access(std::string_view opcode) {
  auto base = base_opcode(opcode);
  return base == "LDL" || base == "STL";
}

// A loop closed by a branch taken while any lane still needs it
// (`@P0 BRA.U.ANY`) around an ELECT: it runs a uniform operation for one
// lane at a time.
bool elects(const FunctionGraph& g, const Loop& loop) {
  bool any_latch = std::any_of(loop.latches.begin(), loop.latches.end(), [&](Index b) {
    const auto& last = g.instruction(g.blocks[b].end - 1);
    return flow(last) == Flow::kBranch && has_modifier(last.opcode, "ANY");
  });
  if (!any_latch || !loop.children.empty()) return false;
  for (Index b : loop.blocks) {
    for (Index i = g.blocks[b].begin; i < g.blocks[b].end; ++i) {
      if (base_opcode(g.instruction(i).opcode) == "ELECT") return true;
    }
  }
  return false;
}

void classify_spin_loops(FunctionGraph& g) {
  for (auto& loop : g.loops) {
    if (!loop.children.empty()) continue;
    bool polls = false, works = false, allocates = false;
    for (Index b : loop.blocks) {
      for (Index i = g.blocks[b].begin; i < g.blocks[b].end; ++i) {
        const auto& op = g.instruction(i).opcode;
        polls = polls || is_poll(op);
        works = works || (!is_poll(op) && !spill_access(op) && does_work(op_class(op)));
        allocates = allocates || is_allocation_try(op);
      }
    }
    loop.spin = polls && !works;
    loop.allocation_retry = loop.spin && allocates;
    loop.elect = !loop.spin && elects(g, loop);
  }
}

void mark_cold(FunctionGraph& g) {
  g.cold.assign(g.blocks.size(), false);
  for (const auto& loop : g.loops) {
    if (!loop.spin || loop.allocation_retry) continue;
    for (Index b : loop.blocks) g.cold[b] = true;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (Index b = 0; b < g.blocks.size(); ++b) {
      const auto& preds = g.blocks[b].predecessors;
      if (g.cold[b] || preds.empty()) continue;
      if (std::all_of(preds.begin(), preds.end(), [&](Index p) { return g.cold[p]; })) {
        g.cold[b] = true;
        changed = true;
      }
    }
  }
}

}  // namespace

bool Loop::contains(std::size_t block) const { return std::binary_search(blocks.begin(), blocks.end(), block); }

bool FunctionGraph::dominates(std::size_t a, std::size_t b) const {
  if (!blocks[b].reachable) return false;
  for (int x = static_cast<int>(b); x >= 0; x = idom[static_cast<std::size_t>(x)]) {
    if (static_cast<std::size_t>(x) == a) return true;
  }
  return false;
}

std::vector<std::size_t> FunctionGraph::instructions_of(const std::vector<std::size_t>& of) const {
  std::vector<std::size_t> out;
  for (std::size_t b : of) {
    for (std::size_t i = blocks[b].begin; i < blocks[b].end; ++i) out.push_back(i);
  }
  return out;
}

std::vector<std::size_t> FunctionGraph::own_blocks(std::size_t loop) const {
  std::vector<std::size_t> out;
  for (std::size_t b : loops[loop].blocks) {
    if (innermost_loop[b] == static_cast<int>(loop)) out.push_back(b);
  }
  return out;
}

FunctionGraph build_graph(const SassFunction& fn) {
  FunctionGraph g;
  g.function = &fn;
  const Index count = fn.padding_begin;
  if (count == 0) return g;
  std::set<Index> call_targets;
  std::set<Index> leaders = find_leaders(fn, count, call_targets);
  std::map<Index, Index> block_at;  // first instruction -> block
  for (auto it = leaders.begin(); it != leaders.end(); ++it) {
    auto next = std::next(it);
    block_at[*it] = g.blocks.size();
    g.blocks.push_back(BasicBlock{*it, next == leaders.end() ? count : *next, {}, {}, false, false});
  }
  link(g, block_at, count);
  g.entries.push_back(0);
  for (Index t : call_targets) {
    if (block_at.at(t) != 0) g.entries.push_back(block_at.at(t));
  }
  compute_dominators(g);
  find_loops(g);
  classify_spin_loops(g);
  mark_cold(g);
  return g;
}

}  // namespace tileperf
