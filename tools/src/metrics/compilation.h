// What decides one compilation's tool output (the bytecode, its dump
// record, the tools' releases, the flags), and the result-cache key made of
// it. `check` and `batch` both key the cache through here, so that an entry
// the batch fills is the one the check looks up.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "metrics/tool_outputs.h"
#include "toolchain/cache.h"
#include "toolchain/toolchain.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

// The dump record beside a bytecode file, for `arch`: cuTile version,
// bytecode version, signature, the export's time. For a configuration
// exported per architecture, that architecture's record, and `bytecode`
// replaced by the file of its own where it has one. InputError when either
// file is missing, the record is malformed or of another version
// (parse_dump_record), or the configuration's launch could not be taken
// (its located error).
nlohmann::json read_dump_record(std::string& bytecode, const std::string& dump_info, const std::string& arch);

// The kernel file's folder, where a check looks for the sources its cubin's
// line table names by file name.
std::string source_dir(const nlohmann::json& dump);

// The tools' releases and flags a compilation for `arch` records in its
// metrics.
struct CompileSetup {
  std::map<std::string, std::string> toolchain;  // tool -> version
  nlohmann::json flags = nlohmann::json::object();
  // How tileiras's process runs (ToolchainRecord::process_key): part of the
  // cache key, not of the metrics.
  std::string process;
};
CompileSetup compile_setup(const ToolchainRecord& tools, const nlohmann::json& dump, const std::string& arch,
                           const Toolchain& tc);

// The result-cache key of compiling `bytecode` for `arch` with `setup`: of
// the bytecode with the folders it names left out (cache_paths.h), and those
// folders, which the entry's text files hold as tokens.
CacheKey compile_key(const std::string& bytecode, const nlohmann::json& dump, const std::string& arch,
                     const CompileSetup& setup);

// One compilation's tool output, and where it came from.
struct Compiled {
  ToolOutputs outputs;
  std::string cache;    // "hit", "miss" or "off"
  std::string process;  // how tileiras ran (CompileOutput::process; "" on a hit)
  double seconds = 0;   // tileiras's time (0 on a hit)
};

// The tool output of compiling `bytecode` for `arch`, kept at `prefix`
// (<prefix>.cubin, .sass, ...): from the result cache when it holds `key`,
// else from the tools, then stored under `key`.
Compiled compiled_outputs(const Toolchain& tc, const ResultCache& cache, const CacheKey& key,
                          const std::string& bytecode, const std::string& arch, const std::string& prefix);

}  // namespace tileperf
