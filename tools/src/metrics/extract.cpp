#include "metrics/extract.h"

#include <algorithm>

namespace tileperf {

namespace {

// A launch uses one function's resources; with several functions in one
// cubin the largest figure is the one that limits occupancy.
std::int64_t max_over_functions(const ResourceUsage& usage, const std::string& key) {
  std::int64_t best = 0;
  for (const auto& fn : usage.functions) best = std::max(best, fn.get(key));
  return best;
}

}  // namespace

std::map<std::string, std::int64_t> extract_metrics(const SassListing& sass, const ResourceUsage& resources,
                                                    const ElfFile& cubin) {
  std::map<std::string, std::int64_t> m;
  SassCounts counts = count_sass(sass);
  m["sass.instructions"] = static_cast<std::int64_t>(counts.instructions);
  std::int64_t mufu_total = 0;
  for (const auto& [fn, n] : counts.mufu) {
    m["sass.mufu." + fn] = static_cast<std::int64_t>(n);
    mufu_total += static_cast<std::int64_t>(n);
  }
  m["sass.mufu"] = mufu_total;
  for (const auto& [op, n] : counts.opcodes) m["sass.opcode." + op] = static_cast<std::int64_t>(n);

  m["regs"] = max_over_functions(resources, "REG");
  m["stack.bytes"] = max_over_functions(resources, "STACK");
  m["local.bytes"] = max_over_functions(resources, "LOCAL");
  m["shared.bytes"] = max_over_functions(resources, "SHARED");

  m["cubin.bytes"] = static_cast<std::int64_t>(cubin_bytes_without_debug(cubin));
  m["cubin.text_bytes"] = static_cast<std::int64_t>(text_bytes(cubin));
  return m;
}

}  // namespace tileperf
