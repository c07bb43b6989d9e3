// Reports over many tests, laid out from one ReportView: a merged JSON, the
// Markdown of a merge-request comment, and a self-contained HTML page.
// None of them includes timings, so that a report depends only on what the
// tests found (a sharded run merges to the same report as an unsharded one).
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "report/view.h"

namespace tileperf {

inline constexpr const char* kReportFormat = "tileperf-report/1";

nlohmann::json report_json(const ReportView& view);

struct MarkdownOptions {
  // GitHub refuses a comment over 65,536 characters; past this size the
  // comment drops the table of all tests, then shortens the details, and
  // says where the full report is.
  std::size_t max_chars = 60000;
  std::string full_report;             // where the full report is: a link or a file name
  const ReviewView* review = nullptr;  // a merge request's review: shown first
  // Where the results come from, named under the title: the commit (its
  // first 12 characters, linked when commit_url is given) and the CI run.
  std::string commit{}, commit_url{}, run_url{};
};

// Grouped by kernel: per kernel its counts, per test that needs a look a
// collapsed line with the numbers (what went over its limit) over the
// details; then every test's key metrics.
std::string report_markdown(const ReportView& view, const MarkdownOptions& options = {});

// Readable without JavaScript: what needs a look first (baseline, current,
// delta and % side by side, an anchor per test), then every test, then the
// key metrics by architecture. The script only sorts and filters tables.
std::string report_html(const ReportView& view, const ReviewView* review = nullptr);

}  // namespace tileperf
