#include "analysis/counted_loops.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/isa.h"
#include "analysis/thread_values.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

constexpr std::int64_t kMaxCountedTrips = std::int64_t(1) << 20;
constexpr int kLanes = 32;  // the counter is one value: a warp's lanes all hold it
constexpr int kMaxPreheaderBlocks = 64;

std::vector<std::string> operands(const SassInstruction& insn) {
  std::vector<std::string> out;
  for (const auto& part : split(insn.operands, ',')) out.push_back(trim(part));
  return out;
}

// The predicate under which the closing branch of `loop` goes back to its
// header ("P2", "!UP0"), when it has exactly one closing branch.
std::optional<std::string> back_condition(const FunctionGraph& g, const Loop& loop) {
  if (loop.latches.size() != 1) return std::nullopt;
  const SassInstruction& last = g.instruction(g.blocks[loop.latches.front()].end - 1);
  auto target = branch_target(last);
  if (flow(last) != Flow::kBranch || !target || *target != g.block_address(loop.header)) return std::nullopt;
  auto ops = operands(last);
  bool guarded = !always_executes(last), operand = ops.size() == 2;
  if (guarded == operand) return std::nullopt;  // unconditional, or both a guard and an operand
  return guarded ? last.predicate.substr(1) : ops.front();
}

struct LoopWrite {
  Index block = 0, insn = 0;
};

// The one instruction of the loop that writes `reg`, if exactly one does
// (and always runs).
std::optional<LoopWrite> only_write(const FunctionGraph& g, const Loop& loop, const std::string& reg) {
  std::optional<LoopWrite> found;
  for (Index b : loop.blocks) {
    for (Index i = g.blocks[b].begin; i < g.blocks[b].end; ++i) {
      if (!may_write(g.instruction(i), reg)) continue;
      if (found || !always_executes(g.instruction(i))) return std::nullopt;
      found = LoopWrite{b, i};
    }
  }
  return found;
}

// The register the comparison at `cmp` compares with a constant.
std::optional<std::string> compared_register(const SassInstruction& cmp) {
  std::string_view base = base_opcode(cmp.opcode);
  auto ops = operands(cmp);
  if ((base != "ISETP" && base != "UISETP") || ops.size() != 5) return std::nullopt;
  for (int k : {2, 3}) {
    std::string op = ops[static_cast<Index>(k)].substr(0, ops[static_cast<Index>(k)].find('.'));
    if ((op.rfind('R', 0) == 0 || op.rfind("UR", 0) == 0) && op != "RZ" && op != "URZ") return op;
  }
  return std::nullopt;
}

// The counter's value on entry: the last instruction before the loop that
// writes it, on the one path into the header, evaluated.
std::optional<std::uint32_t> entry_value(const FunctionGraph& g, const Loop& loop, const std::string& reg) {
  std::vector<Index> outside;
  for (Index p : g.blocks[loop.header].predecessors) {
    if (!loop.contains(p)) outside.push_back(p);
  }
  if (outside.size() != 1) return std::nullopt;
  Index b = outside.front();
  for (int hops = 0; hops < kMaxPreheaderBlocks; ++hops) {
    for (Index i = g.blocks[b].end; i-- > g.blocks[b].begin;) {
      if (!may_write(g.instruction(i), reg)) continue;
      ThreadFacts f;
      apply_instruction(f, g.instruction(i), kLanes);
      auto it = f.known.find(reg);
      if (it == f.known.end() || !always_executes(g.instruction(i))) return std::nullopt;
      return it->second.front();
    }
    if (g.blocks[b].predecessors.size() != 1) return std::nullopt;
    b = g.blocks[b].predecessors.front();
  }
  return std::nullopt;
}

// Runs the counter: stepped, compared, until the branch no longer goes back.
std::optional<std::int64_t> count(std::uint32_t start, const SassInstruction& step, const SassInstruction& cmp,
                                  bool step_first, const std::string& reg, const std::string& condition) {
  ThreadFacts f;
  f.known[reg] = ThreadValues(kLanes, start);
  for (std::int64_t trips = 1; trips <= kMaxCountedTrips; ++trips) {
    if (step_first) apply_instruction(f, step, kLanes);
    apply_instruction(f, cmp, kLanes);
    auto back = predicate_values(f, condition, kLanes);
    if (!step_first) apply_instruction(f, step, kLanes);
    if (!back || !f.known.count(reg)) return std::nullopt;
    if (!back->front()) return trips;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> constant_trips(const FunctionGraph& g, std::size_t l) {
  const Loop& loop = g.loops[l];
  auto condition = back_condition(g, loop);
  if (!condition) return std::nullopt;
  std::string predicate = (*condition)[0] == '!' ? condition->substr(1) : *condition;
  auto cmp = only_write(g, loop, predicate);
  auto reg = cmp ? compared_register(g.instruction(cmp->insn)) : std::nullopt;
  auto step = reg ? only_write(g, loop, *reg) : std::nullopt;
  if (!step) return std::nullopt;
  Index latch = loop.latches.front();
  if (!g.dominates(cmp->block, latch) || !g.dominates(step->block, latch)) return std::nullopt;
  bool step_first = step->block == cmp->block ? step->insn < cmp->insn : g.dominates(step->block, cmp->block);
  auto start = entry_value(g, loop, *reg);
  if (!start) return std::nullopt;
  return count(*start, g.instruction(step->insn), g.instruction(cmp->insn), step_first, *reg, *condition);
}

}  // namespace tileperf
