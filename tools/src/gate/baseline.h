// A baseline as it is checked in, in two files: <config>.<arch>.json holds
// what a reviewer reads first (the gated metrics, the signature, the
// toolchain), <config>.<arch>.detail.json beside it the informational detail
// (per-opcode counts, TileIR operations, instructions per source line). The
// main file names the detail file's SHA-256, so that a detail file from
// another update (an interrupted one, a bad merge) is refused, not mixed in.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "metrics/metrics.h"
#include "gate/policy.h"

namespace tileperf {

inline constexpr const char* kDetailFormat = "tileperf-metrics-detail/1";

// "<dir>/f16_1024.sm_120.json" -> "<dir>/f16_1024.sm_120.detail.json".
std::string detail_path(const std::string& baseline);

// Writes the detail file (when there is any detail; else removes an old
// one), then the main file; each write is atomic. Metrics whose rule in
// `policy` is informational go to the detail file.
void write_baseline(const std::string& path, const Metrics& m, const Policy& policy);

// The two files write_baseline writes (detail "" when there is none), and
// whether the files at `path` are already those, byte for byte (a policy
// that moved a metric between gated and informational changes them).
struct BaselineTexts {
  std::string main, detail;
};
BaselineTexts baseline_texts(const std::string& path, const Metrics& m, const Policy& policy);
bool baseline_is(const std::string& path, const Metrics& m, const Policy& policy);

// Both files merged into one Metrics. A baseline without a detail entry
// (one file, as older releases wrote) is read whole.
Metrics read_baseline(const std::string& path);

// The same from text at hand: `text` is the main file's, named `path` in
// errors; `read_detail(detail path)` gives the detail file's text, or
// nothing when there is no such file (a baseline of another commit, read
// from git). Errors name the files as `path` and its detail path.
using DetailReader = std::function<std::optional<std::string>(const std::string&)>;
Metrics parse_baseline(const std::string& path, const std::string& text, const DetailReader& read_detail);

}  // namespace tileperf
