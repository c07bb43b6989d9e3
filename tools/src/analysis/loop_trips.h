// Which trips each compiled loop takes: the declaration or computed count
// of the source lines it runs (analyze_loops, loops.h, takes them here), the
// groups of computed loops that one source location split, and the
// declarations that name no compiled loop.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "analysis/cfg.h"
#include "analysis/loops.h"

namespace tileperf {

// Whether `decl` names the source line `line` (of an instruction), inlined
// (at any depth) at one of its call sites when it names some.
bool declares(const TripDeclaration& decl, const std::string& file, int line,
              const std::vector<std::pair<std::string, int>>& calls);

// The trips of a compiled loop whose TileIR loop runs `trips` per execution.
double shared_trips(const TripShare& share, double trips);

// The trip count of a loop: the declaration of the `for` line that its back
// edges (the branches closing the loop) come from; else the declaration
// whose lines hold the most of the loop's own instructions (`own`: its
// blocks outside its child loops); else the assumption.
void assign_trips(LoopInfo& info, const FunctionGraph& g, const Loop& loop, const std::vector<std::size_t>& own,
                  const LoopOptions& o);

// The compiled loops from `first` on that took the count of one group of
// computed loops (`trips`), by place: the same compiled loop around them and
// warps in common (each warp role runs the group's loops); each place's
// loops take the group's loops in address order when the numbers agree,
// else each their mean.
void assign_groups(std::vector<LoopInfo>& loops, std::size_t first, const std::vector<TripDeclaration>& trips);

// Notes the declarations that name no compiled loop (with a skeleton, it
// holds the declarations against the TileIR's loops instead).
void note_unmatched_trips(LoopAnalysis& analysis, const LoopOptions& o);

}  // namespace tileperf
