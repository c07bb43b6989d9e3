// What `tileperf loops` shows of a cubin or SASS listing: the loop tree
// with each loop's metrics, why the main loop is the main loop, the kernel's
// TileIR loops, the launch estimate and, asked for, the replayed schedule of
// the main loop (text); or the same as one JSON document.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "inspect/cubin_loops.h"

namespace tileperf {

// With `gantt`, the main loop's and the producer loop's replayed iteration.
std::string cubin_loops_text(const CubinLoops& r, bool gantt);

nlohmann::json cubin_loops_json(const CubinLoops& r);

}  // namespace tileperf
