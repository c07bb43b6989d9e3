// Reports over many tests, from their result files: one merged JSON, Markdown
// for a merge-request comment, and a self-contained HTML page with charts.
// None of them includes timings, so that a report depends only on what the
// tests found (a sharded run merges to the same report as an unsharded one).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "result.h"

namespace tileperf {

inline constexpr const char* kReportFormat = "tileperf-report/1";

nlohmann::json report_json(const std::vector<TestResult>& results);
std::string report_markdown(const nlohmann::json& report);
std::string report_html(const nlohmann::json& report);

}  // namespace tileperf
