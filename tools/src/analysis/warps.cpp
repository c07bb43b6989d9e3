#include "analysis/warps.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "analysis/isa.h"
#include "analysis/thread_values.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Index = std::size_t;

// The warps of `mask` in which some thread can find `predicate` ("P0",
// "!UP0", "PT") `holds` (or, with `holds` false, not holding); every warp of
// `mask` when the predicate is not known.
WarpMask warps_where(const ThreadFacts& f, std::string_view predicate, WarpMask mask, int threads, bool holds) {
  auto values = predicate_values(f, predicate, threads);
  if (!values) return mask;
  WarpMask out = 0;
  for (int w = 0; w < kMaxWarps && w * 32 < threads; ++w) {
    if (!(mask >> w & 1u)) continue;
    auto first = values->begin() + w * 32;
    bool some = std::any_of(first, first + 32, [&](std::uint32_t v) { return (v != 0) == holds; });
    if (some) out |= WarpMask(1) << w;
  }
  return out;
}

// A branch's predicate operand ("!UP0" of BRA.U !UP0, 0x1d0; "P1" of
// @P0 BRA P1, 0x80), if it has one.
std::optional<std::string> predicate_operand(const SassInstruction& insn) {
  auto ops = split(insn.operands, ',');
  if (ops.size() < 2) return std::nullopt;
  std::string first = trim(ops[0]);
  std::string_view name = first;
  if (!name.empty() && name[0] == '!') name.remove_prefix(1);
  bool numbered =
      name.size() > 1 && std::all_of(name.begin() + (name.rfind("UP", 0) == 0 ? 2 : 1), name.end(), is_digit);
  if ((name.rfind('P', 0) == 0 || name.rfind("UP", 0) == 0) && numbered) return first;
  return std::nullopt;
}

// The warps that leave a block by its last instruction's target (first) and
// by falling through (second): a guard (@P0 BRA, @P0 EXIT) and a predicate
// operand (BRA.U !UP0) each split them where their values are known.
std::pair<WarpMask, WarpMask> split_warps(const ThreadFacts& f, const SassInstruction& last, WarpMask mask,
                                          int threads) {
  Flow kind = flow(last);
  if (kind != Flow::kBranch && kind != Flow::kExit) return {mask, mask};
  bool guard = !always_executes(last);
  std::string_view guard_predicate = guard ? std::string_view(last.predicate).substr(1) : std::string_view("PT");
  WarpMask holds = warps_where(f, guard_predicate, mask, threads, true);
  WarpMask fails = guard ? warps_where(f, guard_predicate, mask, threads, false) : 0;
  auto operand = kind == Flow::kBranch ? predicate_operand(last) : std::nullopt;
  if (!operand) return {holds, fails};
  WarpMask taken = holds & warps_where(f, *operand, mask, threads, true);
  return {taken, fails | (holds & warps_where(f, *operand, mask, threads, false))};
}

class WarpFlow {
 public:
  WarpFlow(const FunctionGraph& g, int warps)
      : g_(g), threads_(std::clamp(warps, 1, kMaxWarps) * 32), masks_(g.blocks.size(), 0), facts_(g.blocks.size()) {
    seen_.assign(g.blocks.size(), false);
    for (Index e : g.entries) enter(e, all_warps(warps), ThreadFacts{});
  }

  std::vector<WarpMask> run() {
    while (changed_) {
      changed_ = false;
      for (Index b = 0; b < g_.blocks.size(); ++b) {
        if (masks_[b] != 0) propagate(b);
      }
    }
    return masks_;
  }

 private:
  void enter(Index b, WarpMask mask, const ThreadFacts& facts) {
    if (mask == 0) return;
    ThreadFacts merged = seen_[b] ? meet(facts_[b], facts) : facts;
    WarpMask grown = masks_[b] | mask;
    if (!seen_[b] || grown != masks_[b] || !(merged == facts_[b])) changed_ = true;
    seen_[b] = true;
    masks_[b] = grown;
    facts_[b] = std::move(merged);
  }

  void propagate(Index b) {
    const BasicBlock& block = g_.blocks[b];
    ThreadFacts f = facts_[b];
    WarpMask mask = masks_[b];
    for (Index i = block.begin; i + 1 < block.end; ++i) apply_instruction(f, g_.instruction(i), threads_);
    const SassInstruction& last = g_.instruction(block.end - 1);
    std::optional<std::uint64_t> target = flow(last) == Flow::kBranch ? branch_target(last) : std::nullopt;
    auto [taken, falls] = split_warps(f, last, mask, threads_);
    apply_instruction(f, last, threads_);
    for (Index s : block.successors) {
      bool is_target = target && g_.block_address(s) == *target;
      bool is_next = s == b + 1;
      WarpMask edge = 0;
      if (is_target) edge |= taken;
      if (is_next) edge |= falls;
      if (!is_target && !is_next) edge = mask;
      enter(s, edge, f);
    }
  }

  const FunctionGraph& g_;
  int threads_;
  std::vector<WarpMask> masks_;
  std::vector<ThreadFacts> facts_;
  std::vector<bool> seen_;
  bool changed_ = true;
};

}  // namespace

WarpMask all_warps(int warps) {
  if (warps >= kMaxWarps) return ~WarpMask(0);
  if (warps <= 0) return 1;
  return (WarpMask(1) << warps) - 1;
}

int warp_count(WarpMask mask) { return std::popcount(mask); }

// "warps 0-3", "warp 4", "warps 0-1, 4".
std::string format_warps(WarpMask mask) {
  std::vector<std::string> parts;
  for (int w = 0; w < kMaxWarps;) {
    if (!(mask >> w & 1u)) {
      ++w;
      continue;
    }
    int end = w;
    while (end + 1 < kMaxWarps && (mask >> (end + 1) & 1u)) ++end;
    parts.push_back(end == w ? std::to_string(w) : fmt::format("{}-{}", w, end));
    w = end + 1;
  }
  if (parts.empty()) return "no warp";
  return fmt::format("{} {}", warp_count(mask) == 1 ? "warp" : "warps", fmt::join(parts, ", "));
}

std::vector<WarpMask> warp_masks(const FunctionGraph& g, int warps) { return WarpFlow(g, warps).run(); }

}  // namespace tileperf
