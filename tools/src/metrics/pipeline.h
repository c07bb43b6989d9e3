// The measurement steps shared by `extract` and `check`: tool output (run
// now, or captured earlier) and the cubin itself become metric values and
// diagnostic notes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/launch_model.h"
#include "analysis/loops.h"
#include "analysis/skeleton.h"
#include "analysis/source_lines.h"
#include "toolchain/toolchain.h"

namespace tileperf {

struct ToolOutputs {
  std::string sass_text, sass_name;            // cuobjdump --dump-sass
  std::string res_usage_text, res_usage_name;  // cuobjdump -res-usage
  std::string remarks_text, remarks_name;      // tileiras YAML remarks (optional)
  std::string tileir_text, tileir_name;        // tileirdisasm output (optional)
  // Run just now (not captured earlier): output tileperf cannot read is then
  // the tool's failure (a ToolError naming it), not the input's.
  bool from_tools = false;
};

// Runs cuobjdump on `cubin` and tileirdisasm on `bytecode`, reads the
// remarks tileiras wrote to `remarks`; with a non-empty `keep_prefix` also
// saves <prefix>.sass, <prefix>.res-usage.txt and <prefix>.tileir.
ToolOutputs run_tool_outputs(const Toolchain& tc, const std::string& cubin, const std::string& bytecode,
                             const std::string& remarks, const std::string& keep_prefix);

struct Measurement {
  std::map<std::string, std::int64_t> values;
  std::vector<std::string> notes;  // diagnostics: never gate by themselves
  Skeleton skeleton;               // the kernel's control skeleton, evaluated for the problem's launch
  LoopAnalysis loops;              // the loops behind the loop.* and cost.* metrics
  LaunchEstimate launch;           // the launch model behind cost.time_ns (its timeline without events)
  LineCounts lines;                // instructions per source line
};

// `problem`: the launch the configuration stands for (grid, declared loop
// trips), or null.
// The same outputs as run_tool_outputs(.., keep_prefix = `prefix`) saved, read
// back from <prefix>.sass, .res-usage.txt, .tileir and `remarks`.
ToolOutputs saved_tool_outputs(const std::string& prefix, const std::string& remarks);

// What a check keeps of one compilation, by name, at their paths beside
// `prefix` (<config>.<arch>): what the result cache stores.
std::map<std::string, std::string> artifact_paths(const std::string& prefix);

// With `keep_events`, the launch estimate keeps each loop's replay (the
// picture of `tileperf loops --gantt` and the HTML report).
Measurement measure(const ToolOutputs& outputs, const std::string& cubin, const Problem* problem = nullptr,
                    bool keep_events = false, const std::map<std::string, double>& latency_overrides = {});

// The attributes of the listing's kernel: the first function the cubin
// gives a thread count.
KernelAttributes kernel_of(const SassListing& sass, const std::string& cubin_data, const ElfFile& elf,
                           const std::string& cubin);

// Multiply-accumulates per tensor-core instruction whose opcode has no
// shape (tcgen05): the mean of the tensor-core remarks' shapes, 0 without.
std::int64_t tensor_macs_hint(const std::map<std::string, std::int64_t>& remark_metrics);

// The "problem" of a dump record, if it has one; InputError naming
// `filename` when it is malformed, and the configuration file's place
// when the dump step found the problem not to fit the kernel
// ("problem_error": a trip count naming no loop).
std::optional<Problem> problem_from_record(const nlohmann::json& record, const std::string& filename);

// The dump record as architecture `arch` sees it: a configuration exported
// per architecture (its launch or its problem depends on it) keeps each
// one's problem, signature and bytecode file name under "archs"; they
// replace the record's own (an empty `arch`: the record as it is, whose
// own are the first architecture's). InputError when it has none for `arch`.
nlohmann::json record_for_arch(const nlohmann::json& record, const std::string& arch, const std::string& filename);

// cuobjdump arguments, recorded in metrics next to the tileiras flags. The
// listing is what `cuobjdump --dump-sass` prints, byte for byte, whether
// cuobjdump or nvdisasm directly made it (see run_disassembler).
inline const char* const kSassArgs[] = {"--dump-sass"};
inline const char* const kResUsageArgs[] = {"-res-usage"};

}  // namespace tileperf
