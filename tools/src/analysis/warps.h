// Which warps of a block run each basic block of a function.
//
// tileiras specialises warps: the kernel reads its thread index
// (S2R SR_TID.X), shifts it to a warp index (SHF.R.U32.HI R, RZ, 0x5, R),
// compares it with constants (ISETP) and branches, so that one warpgroup
// runs the tensor-core loop, one warp issues the TMA copies and the rest
// wait or leave. Register allocation may keep the warp index in a plain
// register or move it to a uniform one (R2UR UR21, R2 ... UISETP ... UR21)
// and back. A forward data-flow pass computes each thread's value of the
// registers and predicates that come from the thread index, whichever file
// holds them (thread_values.h), and splits the set of warps at each branch
// on such a predicate: a warp takes a side when one of its threads can.
// Anything it cannot follow keeps every warp on both sides, so the answer
// is never too small. Blocks of up to 1024 threads (32 warps).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cfg.h"

namespace tileperf {

using WarpMask = std::uint32_t;  // bit w: warp w of the block

inline constexpr int kMaxWarps = 32;

// All warps of a block of `warps` warps (1 to 32).
WarpMask all_warps(int warps);
int warp_count(WarpMask mask);
// "warps 0-3", "warp 4", "warps 0-1, 4", "no warp".
std::string format_warps(WarpMask mask);

// Per block of `g`: the warps that may run it (0: none, an unreachable block).
std::vector<WarpMask> warp_masks(const FunctionGraph& g, int warps);

}  // namespace tileperf
