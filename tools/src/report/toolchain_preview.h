// A toolchain bump as one review: the tests of a run that ended `toolchain
// changed` carry the comparison of the new toolchain's metrics with the old
// baselines under the usual policies (nothing was written). This gathers
// them: what each test would become, totals per verdict and per metric,
// sorted by impact, and the Markdown a merge request comment can hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "results/result.h"
#include "support/states.h"

namespace tileperf {

// What accepting the new toolchain makes of one test: the state its check
// judged under every rule but the toolchain's (TestResult::compared).
State preview_state(const TestResult& r);

// One metric over the previewed tests.
struct PreviewMetric {
  std::string metric;
  std::size_t regressed = 0, improved = 0, ok = 0;  // tests, by the metric's verdict
  std::int64_t total_delta = 0;                     // summed over the tests that moved it
  double worst_percent = 0;                         // the largest move in the bad direction
  std::string worst_test;                           // where it is
  std::string worst_text;                           // "1 -> 4 (+300.0%)"
};

struct PreviewTest {
  const TestResult* result = nullptr;
  State state = State::kPass;  // preview_state
  double worst = 0;            // the largest percent a regressed metric moved
};

struct ToolchainPreview {
  std::vector<std::string> changes;  // every toolchain change seen, sorted
  std::vector<PreviewTest> tests;    // toolchain changed tests, by impact
  std::size_t regressed = 0, improved = 0, pass = 0;
  std::size_t other = 0;               // tests of the run in another state
  std::vector<PreviewMetric> metrics;  // gated metrics that moved, largest regressions first
};

// Of the results a report shows (view.h's tests: earlier runs left out).
ToolchainPreview make_toolchain_preview(const std::vector<const TestResult*>& results);

// "61 would regress, 80 would improve, 15 within limits".
std::string preview_counts_text(const ToolchainPreview& p);

// The terminal text: one line of totals, the metrics table (at most
// `max_metrics` rows; none for 0), the preview command (when given) and the
// one command that accepts everything.
std::string preview_text(const ToolchainPreview& p, const std::string& update_command, std::size_t max_metrics = 20,
                         const std::string& preview_command = "");

// Markdown of at most `max_chars` characters: totals, the per-metric table,
// then every test's detail (collapsed), shortened to one line per test and
// then cut, with a count of what was left out, when it would not fit.
inline constexpr std::size_t kMaxPreviewChars = 60000;
std::string preview_markdown(const ToolchainPreview& p, const std::string& update_command,
                             std::size_t max_chars = kMaxPreviewChars);

}  // namespace tileperf
