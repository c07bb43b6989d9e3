// The trip count of a compiled loop that the compiler counts with
// constants, read from its SASS: a counter set to a constant before the
// loop, stepped by a constant once per iteration and compared with a
// constant by the branch that closes the loop:
//
//     MOV R123, RZ
//   loop:
//     IADD R123, R123, 0x1
//     ...
//     ISETP.NE.U32.AND P2, PT, R123, 0x3, PT
//     @P2 BRA loop                                 (3 trips)
//
// tileiras makes such loops of its own inside one tile operation (the
// sub-tiles of an MMA); a loop of the kernel's TileIR takes its trips from
// the TileIR instead (loop_matching.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "analysis/cfg.h"

namespace tileperf {

// The trips of `g`'s loop `loop` when it is counted so (at most 2^20),
// else nothing.
std::optional<std::int64_t> constant_trips(const FunctionGraph& g, std::size_t loop);

}  // namespace tileperf
