// What `tileperf loops` shows: the loop tree of a cubin or SASS listing,
// with the metrics of each loop and the cost estimate; for a cubin also the
// launch estimate and, asked for, the replayed schedule of the main loop.
#pragma once

#include <string>
#include <vector>

#include "toolchain/toolchain.h"

namespace tileperf {

struct LoopsOptions {
  std::string input, sass, remarks, dump_info, res_usage;
  Toolchain tc;
  bool json = false, gantt = false;
  std::vector<std::string> latencies;  // NAME=CYCLES
};

// The report on o.input (a cubin, or a `cuobjdump --dump-sass` listing),
// as text or (o.json) JSON. The listing, remarks, resource usage and dump
// record a test left beside a cubin are read when not given; cuobjdump runs
// for what is missing. Bad options throw UsageError, bad files InputError.
std::string loops_report(LoopsOptions o);

}  // namespace tileperf
