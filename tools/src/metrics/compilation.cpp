#include "metrics/compilation.h"

#include <filesystem>

#include <fmt/format.h>

#include "metrics/dump_record.h"
#include "metrics/tool_outputs.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/cache.h"
#include "toolchain/cache_paths.h"
#include "toolchain/toolchain.h"

namespace tileperf {

namespace fs = std::filesystem;

nlohmann::json read_dump_record(std::string& bytecode, const std::string& dump_info, const std::string& arch) {
  nlohmann::json dump;
  if (fs::exists(dump_info)) {
    dump = record_for_arch(parse_dump_record(read_file(dump_info), dump_info), arch, dump_info);
    if (dump.contains("bytecode") && dump.at("bytecode").is_string()) {
      bytecode = (fs::path(dump_info).parent_path() / dump.at("bytecode").get<std::string>()).string();
    }
    // A configuration whose launch could not be taken has no bytecode: its error says why.
    if (dump.contains("problem_error")) problem_from_record(dump, dump_info);
  }
  if (!fs::exists(bytecode)) {
    throw InputError(bytecode, 0,
                     "bytecode not found: the dump step for this kernel did not run "
                     "or failed (see the dump.* test)");
  }
  if (!fs::exists(dump_info)) throw InputError(dump_info, 0, "dump record not found");
  return dump;
}

std::string source_dir(const nlohmann::json& dump) {
  std::string source = dump.value("source", "");
  return source.empty() ? "" : fs::path(source).parent_path().string();
}

CompileSetup compile_setup(const ToolchainRecord& tools, const nlohmann::json& dump, const std::string& arch,
                           const Toolchain& tc) {
  CompileSetup s;
  s.process = tools.process_key(tc);
  // cuobjdump --dump-sass runs nvdisasm: its release shapes the listing too.
  for (const auto& [name, tool] : tools.tools) s.toolchain[name] = tool.version;
  s.toolchain["cuda_tile"] = dump.value("cuda_tile", "unknown");
  s.toolchain["bytecode"] = dump.value("bytecode_version", "unknown");
  s.flags["tileiras"] = tileiras_flags(arch);
  s.flags["cuobjdump"] = {std::begin(kSassArgs)[0], std::begin(kResUsageArgs)[0]};
  return s;
}

CacheKey compile_key(const std::string& bytecode, const nlohmann::json&, const std::string& arch,
                     const CompileSetup& setup) {
  // The listing comes from nvdisasm run directly, the TileIR from
  // tileirdisasm: their arguments decide them too.
  // How tileiras's process ran, and the fixed folders it was shown
  // (fixed_roots: the cubin's line tables name them), too.
  std::string flags =
      setup.flags.dump() + fmt::format(" nvdisasm {} tileirdisasm {} process {} roots {}",
                                       fmt::join(kNvdisasmArgs, " "), fmt::join(kTileirdisasmArgs, " "),
                                       setup.process.empty() ? "randomized" : setup.process, fixed_roots(1).front());
  BytecodePaths paths = bytecode_paths(read_file(bytecode));
  return {cache_key(paths.identity, arch, setup.toolchain, flags), std::move(paths.roots)};
}

Compiled compiled_outputs(const Toolchain& tc, const ResultCache& cache, const CacheKey& key,
                          const std::string& bytecode, const std::string& arch, const std::string& prefix) {
  auto artifacts = artifact_paths(prefix);
  std::string remarks = prefixed_file(prefix, FileKind::kRemarks);
  Compiled out;
  if (cache.enabled() && cache.fetch(key, artifacts)) {
    out.outputs = saved_tool_outputs(prefix, remarks);
    out.cache = "hit";
    return out;
  }
  auto compiled = compile_bytecode(tc, bytecode, arch, prefixed_file(prefix, FileKind::kCubin), remarks);
  out.seconds = compiled.seconds;
  out.process = compiled.process;
  out.outputs = run_tool_outputs(tc, prefixed_file(prefix, FileKind::kCubin), bytecode, remarks, prefix);
  cache.store(key, artifacts);
  out.cache = cache.enabled() ? "miss" : "off";
  return out;
}

}  // namespace tileperf
