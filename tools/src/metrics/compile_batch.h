// The compile-and-disassemble batch: for every perf test in a list (every
// architecture's, or one's), the tool output a check would make (cubin,
// remarks, SASS listing, resource usage, TileIR text), made ahead of the
// checks and put into the result cache, where each check then finds it.
// tileiras runs once per configuration, in up to `jobs` processes at a time;
// nvdisasm runs a few raw calls per architecture for the whole batch (one
// per 2 MiB of code, split further so that each of the `jobs` workers has
// one; see disasm_batch.h) instead of once per cubin. A configuration the batch cannot compile or disassemble
// is left to its check, which repeats the step alone and reports it; the
// batch itself never fails a test.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "toolchain/cache.h"
#include "toolchain/toolchain.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

struct BatchEntry {
  std::string test;  // perf.<kernel>.<config>.<arch>, for messages
  std::string arch, bytecode, dump_info;
};

// The entries of the batch list `file` (format tileperf-compile-batch/2,
// which the CMake API writes at configure time): the `compile_batch`
// entries of each registration record it names (<work>/<kernel>/configs.json),
// in order; InputError naming the list or the record that is malformed or
// cannot be read.
std::vector<BatchEntry> read_batch_list(const std::string& file);

struct BatchOutcome {
  std::size_t entries = 0, cached = 0, compiled = 0, disassembler_calls = 0;
  std::vector<std::string> left;                  // "<test>: <why>": left to their checks
  std::map<std::string, double> compile_seconds;  // test -> tileiras's time
  // Wall seconds of each phase: the cache lookups, the compilations (with
  // cuobjdump -res-usage and tileirdisasm), the disassembly, the storing.
  double lookup_seconds = 0, compile_wall_seconds = 0, disassembly_seconds = 0, store_seconds = 0;
};

BatchOutcome run_compile_batch(const std::vector<BatchEntry>& entries, const ToolchainRecord& tools,
                               const Toolchain& tc, const ResultCache& cache, int jobs);

}  // namespace tileperf
