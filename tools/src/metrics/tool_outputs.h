// The tool output a compilation is measured from: cuobjdump's listing and
// resource usage, tileirdisasm's TileIR, tileiras's remarks; run now, or
// read back from the files a check saved.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "toolchain/toolchain.h"

namespace tileperf {

struct ToolOutputs {
  std::string sass_text, sass_name;            // cuobjdump --dump-sass
  std::string res_usage_text, res_usage_name;  // cuobjdump -res-usage
  std::string remarks_text, remarks_name;      // tileiras YAML remarks (optional)
  std::string tileir_text, tileir_name;        // tileirdisasm output (optional)
  // The folders the bytecode names, in order: the cubin's line table names
  // them as /tileperf/source-0, ... (compile_bytecode); its lines are keyed
  // and read from these. Empty: the table's paths are taken as they are.
  std::vector<std::string> source_roots;
  // Run just now (not captured earlier): output tileperf cannot read is then
  // the tool's failure (a ToolError naming it), not the input's.
  bool from_tools = false;
};

// Runs cuobjdump on `cubin` and tileirdisasm on `bytecode`, reads the
// remarks tileiras wrote to `remarks`; with a non-empty `keep_prefix` also
// saves <prefix>.sass, <prefix>.res-usage.txt and <prefix>.tileir.
ToolOutputs run_tool_outputs(const Toolchain& tc, const std::string& cubin, const std::string& bytecode,
                             const std::string& remarks, const std::string& keep_prefix);

// The same outputs as run_tool_outputs(.., keep_prefix = `prefix`) saved, read
// back from <prefix>.sass, .res-usage.txt, .tileir and `remarks`.
ToolOutputs saved_tool_outputs(const std::string& prefix, const std::string& remarks);

// What a check keeps of one compilation, by name, at their paths beside
// `prefix` (<config>.<arch>): what the result cache stores.
std::map<std::string, std::string> artifact_paths(const std::string& prefix);

// cuobjdump arguments, recorded in metrics next to the tileiras flags. The
// listing is what `cuobjdump --dump-sass` prints, byte for byte, whether
// cuobjdump or nvdisasm directly made it (see run_disassembler).
inline const char* const kSassArgs[] = {"--dump-sass"};
inline const char* const kResUsageArgs[] = {"-res-usage"};

}  // namespace tileperf
