// The measurement steps shared by `extract` and `check`: cuobjdump output
// (run now, or captured earlier) and the cubin itself become metric values.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "toolchain.h"

namespace tileperf {

struct ToolOutputs {
  std::string sass_text, sass_name;            // cuobjdump --dump-sass
  std::string res_usage_text, res_usage_name;  // cuobjdump -res-usage
};

// Runs cuobjdump on `cubin`; when `keep_prefix` is not empty, also saves its
// output to <keep_prefix>.sass and <keep_prefix>.res-usage.txt.
ToolOutputs run_tool_outputs(const Toolchain& tc, const std::string& cubin,
                             const std::string& keep_prefix);

std::map<std::string, std::int64_t> metrics_from(const ToolOutputs& outputs,
                                                 const std::string& cubin);

// cuobjdump arguments, recorded in metrics next to the tileiras flags.
inline const char* const kSassArgs[] = {"--dump-sass"};
inline const char* const kResUsageArgs[] = {"-res-usage"};

}  // namespace tileperf
