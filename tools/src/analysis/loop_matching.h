// Which loop of the kernel's TileIR each compiled loop of a function runs,
// and the share of that loop's trips it takes.
//
// A compiled loop is made of instructions whose lines (file, line and the
// call sites they were inlined through, from the line table) are the places
// of the TileIR operations they were compiled from; the scalar evaluator
// knows, for each TileIR loop, the places of its body (skeleton.h). The
// loops are matched from the innermost out: a compiled loop takes the TileIR
// loop whose location its closing branch (or the comparison deciding it)
// carries, else the one whose places hold most of its own instructions; a compiled loop around matched ones
// takes one of the TileIR loops around theirs. A compiled loop that holds no
// place of a TileIR loop it may be is the compiler's own (an elect loop, a
// loop inside one tile operation) and is named with the reason.
//
// The compiler copies loops. Copies run by different warps (warp roles)
// each run every iteration. Copies run by the same warps where one loop
// runs share its iterations: a loop unrolled with a remainder loop (each
// copy's work per trip, against the smallest's, is its unroll factor; the
// unrolled copy takes the whole trips, the remainder the rest), or several
// versions of it (an equal share each). A copy outside the compiled loop of
// the TileIR loop around it runs in an iteration peeled off that loop, which
// then takes its trips less the peeled ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/loops.h"
#include "analysis/warps.h"
#include "readers/line_table.h"

namespace tileperf {

// What the matching reads of one compiled loop of a function.
struct CompiledLoop {
  int parent = -1;     // the compiled loop around it, index in the same list
  bool retry = false;  // a retry loop (cfg.h): matched to nothing
  bool elect = false;  // an elect loop (cfg.h): the compiler's own, runs once
  WarpMask warps = 0;  // the warps that run its body
  std::uint64_t begin = 0;
  std::vector<SourceLine> latches;  // the lines of its closing branches and of the comparisons deciding them
  std::vector<SourceLine> body;     // the line of each instruction of its own body
  double work = 0;                  // instructions of its body that do work (no integer or control)
  double instructions = 0;          // instructions of its body
};

struct LoopMatch {
  int tileir = -1;  // the trip declaration it runs (index into the computed trips), -1: none
  TripShare share;
  std::string why_not;  // unmatched: why no TileIR loop is it
};

// One match per compiled loop; `computed` are the scalar evaluator's trips
// (Skeleton::trips), their `source` and `parent_source` the skeleton's loops.
std::vector<LoopMatch> match_compiled_loops(const std::vector<CompiledLoop>& loops,
                                            const std::vector<TripDeclaration>& computed);

}  // namespace tileperf
