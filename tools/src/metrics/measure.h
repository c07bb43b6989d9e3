// The measurement of one compilation, shared by `extract`, `check` and
// `loops`: its tool output and the cubin itself become metric values and
// diagnostic notes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/launch_model.h"
#include "model/line_time.h"
#include "analysis/loops.h"
#include "model/skeleton.h"
#include "analysis/source_lines.h"
#include "metrics/tool_outputs.h"
#include "readers/elf.h"
#include "readers/sass.h"

namespace tileperf {

struct Measurement {
  std::map<std::string, std::int64_t> values;
  std::vector<std::string> notes;  // diagnostics: never gate by themselves
  Skeleton skeleton;               // the kernel's control skeleton, evaluated for the problem's launch
  LoopAnalysis loops;              // the loops behind the loop.* and cost.* metrics
  LaunchEstimate launch;           // the launch model behind cost.time_ns (its timeline without events)
  LineCounts lines;                // instructions per source line
  LineAttribution line_time;       // the estimate by source line (line_time.h)
};

// Measures one compilation from its tool output and `cubin`: the metric
// values, the notes, the loops and the launch estimate. `problem`: the
// launch the configuration stands for (grid, declared loop trips), or null.
// With `keep_events`, the launch estimate keeps each loop's replay (the
// picture of `tileperf loops --gantt` and the HTML report).
Measurement measure(const ToolOutputs& outputs, const std::string& cubin, const Problem* problem = nullptr,
                    bool keep_events = false, const std::map<std::string, double>& latency_overrides = {});

// The attributes of the listing's kernel: the first function the cubin
// gives a thread count.
KernelAttributes kernel_of(const SassListing& sass, const std::string& cubin_data, const ElfFile& elf,
                           const std::string& cubin);

// The warps a block of the kernel runs: its threads rounded up to whole
// warps, at most kMaxWarps; 0 when the cubin gives no thread count.
int kernel_warps(const KernelAttributes& attributes);

// Multiply-accumulates per tensor-core instruction whose opcode has no
// shape (tcgen05): the mean of the tensor-core remarks' shapes, 0 without.
std::int64_t tensor_macs_hint(const std::map<std::string, std::int64_t>& remark_metrics);

}  // namespace tileperf
