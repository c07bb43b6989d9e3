#include "pipeline.h"

#include <sstream>

#include "elf.h"
#include "extract.h"
#include "resusage.h"
#include "sass.h"
#include "text.h"

namespace tileperf {

ToolOutputs run_tool_outputs(const Toolchain& tc, const std::string& cubin,
                             const std::string& keep_prefix) {
  ToolOutputs o;
  o.sass_text = run_cuobjdump(tc, {std::begin(kSassArgs), std::end(kSassArgs)}, cubin);
  o.res_usage_text = run_cuobjdump(tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin);
  o.sass_name = keep_prefix.empty() ? "cuobjdump --dump-sass " + cubin : keep_prefix + ".sass";
  o.res_usage_name =
      keep_prefix.empty() ? "cuobjdump -res-usage " + cubin : keep_prefix + ".res-usage.txt";
  if (!keep_prefix.empty()) {
    write_file_atomic(o.sass_name, o.sass_text);
    write_file_atomic(o.res_usage_name, o.res_usage_text);
  }
  return o;
}

std::map<std::string, std::int64_t> metrics_from(const ToolOutputs& outputs,
                                                 const std::string& cubin) {
  std::istringstream sass_in(outputs.sass_text);
  std::istringstream res_in(outputs.res_usage_text);
  SassListing sass = parse_sass(sass_in, outputs.sass_name);
  ResourceUsage res = parse_resource_usage(res_in, outputs.res_usage_name);
  ElfFile elf = parse_elf(read_file(cubin), cubin);
  return extract_metrics(sass, res, elf);
}

}  // namespace tileperf
