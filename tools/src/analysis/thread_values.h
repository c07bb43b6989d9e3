// The values the threads of a block hold where they come from the thread
// index: what the warp-role pass (warps.h) follows to the branches.
//
// tileiras computes the warp index from the thread index (S2R SR_TID.X,
// shifted by 5) and keeps it wherever register allocation puts it: in a
// plain register, in a uniform register (R2UR), back in a plain one
// (IMAD.U32 R, RZ, RZ, UR; MOV), masked or offset (LOP3, IADD3), then
// compares it (ISETP, UISETP), combines the predicates (PLOP3, UPLOP3, a
// comparison's predicate input) and branches on them (@P0 BRA, BRA.U !UP0).
// A register, uniform register or predicate is known as one value per
// thread of the block, computed for every thread, or not known at all: an
// instruction this file does not evaluate forgets every register it may
// write, so what is known is never wrong.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "readers/sass.h"

namespace tileperf {

// One value per thread of the block, in thread order (a predicate: 0 or 1).
using ThreadValues = std::vector<std::uint32_t>;

struct ThreadFacts {
  std::map<std::string, ThreadValues> known;  // by register: "R2", "UR21", "P0", "UP0"
  bool operator==(const ThreadFacts&) const = default;
};

// Applies `insn` to `facts` for a block of `threads` threads.
void apply_instruction(ThreadFacts& facts, const SassInstruction& insn, int threads);

// Each thread's truth of the predicate `operand` ("P0", "!UP1", "PT"),
// when it is known.
std::optional<ThreadValues> predicate_values(const ThreadFacts& facts, std::string_view operand, int threads);

// Whether `insn` may write register `reg` ("R4", "UR2", "P0", "UP1").
bool may_write(const SassInstruction& insn, std::string_view reg);

// What both know alike: the facts where two paths meet.
ThreadFacts meet(const ThreadFacts& a, const ThreadFacts& b);

}  // namespace tileperf
