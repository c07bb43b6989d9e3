// Human-readable output of a comparison: the diff table and one-line summaries.
#pragma once

#include <string>

#include "compare.h"
#include "metrics.h"

namespace tileperf {

// Table of gated metrics that moved (all moved metrics with `verbose`):
// metric, baseline, current, signed delta, percent, limit, verdict, sorted by
// impact, with [new] and [removed] markers; then the opcodes that moved most
// and a TOTAL line counting moved and unchanged metrics.
std::string format_diff_table(const Comparison& c, bool verbose = false);

// CTest measurements of every gated metric, one <CTestMeasurement> per line:
// CTest records them in Test.xml, so that CDash plots each metric's history.
std::string format_measurements(const Metrics& m, const Policy& policy);

// One line per broken invariant: what it requires, why, and what was found.
std::string format_broken(const std::vector<BrokenInvariant>& broken);

// "sass.instructions=255 sass.mufu=8 regs=40 local.bytes=0 cubin.bytes=14289"
std::string key_metrics(const Metrics& m);

std::string format_signed(double v);
std::string format_percent(double pct);

}  // namespace tileperf
