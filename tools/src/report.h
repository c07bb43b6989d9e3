// Human-readable output of a comparison: the diff table and one-line summaries.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "compare.h"
#include "loops.h"
#include "metrics.h"

namespace tileperf {

// Table of gated metrics that moved (all moved metrics with `verbose`):
// metric, baseline, current, signed delta, percent, limit, verdict, sorted by
// impact, with [new] and [removed] markers; then the opcodes that moved most
// and a TOTAL line counting moved and unchanged metrics.
std::string format_diff_table(const Comparison& c, bool verbose = false);

// "main loop: 0x0b10-0x0f60 of matmul (matmul.py:35-38), depth 1, 128
// trips (k): ..." where the current kernel's main loop is, for a regression
// of a loop.* or cost.* metric.
std::string format_main_loop(const LoopReport& loops);

// CTest measurements of every gated metric, one <CTestMeasurement> per line:
// CTest records them in Test.xml, so that CDash plots each metric's history.
std::string format_measurements(const Metrics& m, const Policy& policy);

// One line per broken invariant: what it requires, why, and what was found.
std::string format_broken(const std::vector<BrokenInvariant>& broken);

// The metrics each test's one-line summary shows, in this order.
inline const char* const kKeyMetrics[] = {"sass.instructions", "sass.mufu", "regs", "local.bytes",
                                          "cubin.bytes"};

// " cubin.bytes=14289 local.bytes=0 regs=40 sass.instructions=255 sass.mufu=8"
std::string format_key_metrics(const std::map<std::string, std::int64_t>& key_metrics);

std::string format_signed(double v);
std::string format_percent(double pct);

}  // namespace tileperf
