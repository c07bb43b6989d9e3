// What `check` and `compare` print about one comparison: the diff table,
// where the main loop is, the broken invariants, the key metrics; and the CTest
// measurements.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gate/compare.h"
#include "analysis/loops.h"
#include "metrics/metrics.h"
#include "report/view.h"
#include "analysis/source_lines.h"

namespace tileperf {

// A verdict as a table shows it: REGRESSED in capitals, the others by name.
const char* verdict_word(Verdict v);

// Table of the rows shown_rows picks (metric, baseline, current, signed
// delta, percent, limit, verdict), the opcodes that moved most in the kernel
// and in its main loop, and a TOTAL line counting moved and unchanged metrics.
std::string format_diff_table(const std::vector<MetricDiff>& diffs, bool verbose = false);

// "main loop: 0x0b10-0x0f60 of matmul (matmul.py:35-38), depth 1, 128
// trips (k): ..." where the current kernel's main loop is, for a regression
// of a loop.* or cost.* metric.
std::string format_main_loop(const LoopAnalysis& loops);

// "source lines that moved:" and one line per move: file:line, baseline ->
// current instructions, delta and the line's text.
// With `estimate_term` (what the launch estimate's shares are of), each
// line's share of the estimate now beside its instructions.
std::string format_line_moves(const std::vector<LineMove>& moves, const std::string& estimate_term = "");

// CTest measurements of every gated metric, one <CTestMeasurement> per line:
// CTest records them in Test.xml, so that CDash plots each metric's history.
std::string format_measurements(const Metrics& m, const Policy& policy);

// One line per broken invariant: what it requires, why, and what was found.
std::string format_broken(const std::vector<BrokenInvariant>& broken);

// " cubin.bytes=14289 local.bytes=0 regs=40 sass.instructions=255 sass.mufu=8"
std::string format_key_metrics(const std::map<std::string, std::int64_t>& key_metrics);

}  // namespace tileperf
