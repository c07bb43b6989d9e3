// What `tileperf loops` finds in a cubin or SASS listing: the loop tree
// with the metrics of each loop and the cost estimate; for a cubin with its
// resource usage also the kernel's TileIR loops and the launch estimate.
// report/loops_text shows it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/launch_model.h"
#include "analysis/loops.h"
#include "metrics/measure.h"
#include "readers/sass.h"
#include "toolchain/toolchain.h"

namespace tileperf {

struct LoopsOptions {
  std::string input, sass, remarks, dump_info, res_usage;
  Toolchain tc;
  bool json = false, gantt = false;
  std::vector<std::string> latencies;  // NAME=CYCLES
};

// What one input shows.
struct CubinLoops {
  SassListing listing;
  LoopAnalysis loops;
  // A cubin with its resource usage: its measurement (the skeleton, the
  // launch estimate and, with --gantt, each loop's replay).
  std::optional<Measurement> measurement;
  std::optional<Problem> problem;  // from the dump record, when there is one
  bool no_res_usage = false;       // a cubin whose resource usage is not at hand: no launch estimate
};

// The loops of o.input (a cubin, or a `cuobjdump --dump-sass` listing). The
// listing, remarks, resource usage and dump record a test left beside a
// cubin are read when not given; cuobjdump runs for what is missing. Bad
// options (a --latency that names no latency, a --gantt without a launch
// estimate) throw UsageError, bad files InputError.
CubinLoops cubin_loops(LoopsOptions o);

}  // namespace tileperf
