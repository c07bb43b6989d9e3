// The tool output a compilation is measured from (tool_outputs.h).
#include "metrics/tool_outputs.h"

#include <iterator>

#include <fmt/format.h>

#include "readers/elf.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/cache_paths.h"

namespace tileperf {

namespace {

// A cubin that tileiras left incomplete is its failure, not cuobjdump's.
void check_cubin(const std::string& cubin) {
  try {
    parse_elf(read_file(cubin), cubin);
  } catch (const InputError& e) {
    throw ToolError(fmt::format("tileiras wrote a cubin that is not a complete ELF file: {}", e.what()));
  }
}

}  // namespace

ToolOutputs saved_tool_outputs(const std::string& prefix, const std::string& remarks) {
  ToolOutputs o;
  o.from_tools = true;
  o.sass_name = prefixed_file(prefix, FileKind::kSass);
  o.res_usage_name = prefixed_file(prefix, FileKind::kResUsage);
  o.tileir_name = prefixed_file(prefix, FileKind::kTileir);
  o.remarks_name = remarks;
  o.sass_text = read_file(o.sass_name);
  o.res_usage_text = read_file(o.res_usage_name);
  o.tileir_text = read_file(o.tileir_name);
  o.remarks_text = read_file(remarks);
  return o;
}

std::map<std::string, std::string> artifact_paths(const std::string& prefix) {
  std::map<std::string, std::string> paths;
  for (const char* ext : {"cubin", "remarks.yaml", "sass", "res-usage.txt", "tileir"}) {
    paths[ext] = prefix + "." + ext;
  }
  return paths;
}

ToolOutputs run_tool_outputs(const Toolchain& tc, const std::string& cubin, const std::string& bytecode,
                             const std::string& remarks, const std::string& keep_prefix) {
  check_cubin(cubin);
  ToolOutputs o;
  o.from_tools = true;
  o.sass_text = run_disassembler(tc, cubin);
  o.res_usage_text = run_cuobjdump(tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin);
  o.tileir_text = run_tileirdisasm(tc, bytecode);
  o.remarks_text = read_file(remarks);
  o.remarks_name = remarks;
  o.source_roots = bytecode_paths(read_file(bytecode)).roots;
  bool keep = !keep_prefix.empty();
  o.sass_name = keep ? prefixed_file(keep_prefix, FileKind::kSass) : "cuobjdump --dump-sass " + cubin;
  o.res_usage_name = keep ? prefixed_file(keep_prefix, FileKind::kResUsage) : "cuobjdump -res-usage " + cubin;
  o.tileir_name = keep ? prefixed_file(keep_prefix, FileKind::kTileir) : "tileirdisasm " + bytecode;
  if (keep) {
    write_file_atomic(o.sass_name, o.sass_text, Durability::kRenamed);
    write_file_atomic(o.res_usage_name, o.res_usage_text, Durability::kRenamed);
    write_file_atomic(o.tileir_name, o.tileir_text, Durability::kRenamed);
  }
  return o;
}

}  // namespace tileperf
