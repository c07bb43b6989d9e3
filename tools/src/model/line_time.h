// The launch estimate by source line: each line's share of the term that
// limits the launch, and that share of the estimated time.
//
//   limited by a pipe     the line's cycles on that pipe (its instructions'
//                         cycles, add_pipes, times how often each warp runs
//                         them) over the pipe's
//   limited by DRAM, L2   the line's tile bytes (TileIR loads and stores
//                         times their runs per block; the SASS's global
//                         accesses without the TileIR) over all
//   limited by latency    the line's executed warp instructions over all:
//                         a proxy, named as such (the replay's critical
//                         path is not split by line)
//   limited by launch     no line: the launch overhead is nobody's
//
// Per loop: each line's cycles per iteration on the loop's busiest pipe and
// its issued instructions per iteration, from the loop's own blocks.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/launch_model.h"
#include "analysis/source_lines.h"

namespace tileperf {

struct LineTime {
  std::string line;  // "gelu.py:21"
  double share = 0;  // of the limiting term, 0..1
  double ns = 0;     // that share of the launch's estimated time
};

struct LoopLineCycles {
  std::string line;
  double cycles = 0;        // per iteration, on the loop's busiest pipe
  double instructions = 0;  // warp instructions issued per iteration
};

struct LineAttribution {
  std::string term;             // what the shares are of: "mufu cycles", "DRAM bytes", ...
  std::vector<LineTime> lines;  // the largest share first
  // Per loop of LoopAnalysis::loops (by index): its busiest pipe and its lines.
  std::vector<std::string> loop_pipe;
  std::vector<std::vector<LoopLineCycles>> loop_lines;
};

// Lines are keyed as count_source_lines keys them (`here`: where a path the
// line table names lies on this machine); a TileIR location's path by
// source_key.
LineAttribution attribute_lines(const LaunchInputs& in, const LaunchEstimate& e,
                                const std::function<std::string(const std::string&)>& here = {});

// Each moved line's share of the current estimate and its time, where the
// attribution has the line.
void add_line_time(std::vector<LineMove>& moves, const LineAttribution& a);

// {"term", "lines": [{"line", "share", "ns"}...]}: what the timeline
// record and `tileperf loops --json` keep of the launch's attribution.
nlohmann::json line_time_json(const LineAttribution& a);

}  // namespace tileperf
