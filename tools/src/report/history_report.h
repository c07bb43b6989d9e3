// The history of the baselines as a person or a program reads it: text for
// the terminal, JSON, and an HTML page with one SVG chart per test and
// metric (no script needed), each change point linked to its commit.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/history.h"

namespace tileperf {

inline constexpr const char* kHistoryFormat = "tileperf-history/1";

struct HistoryView {
  const History* history = nullptr;
  std::vector<TestSeries> tests;  // the tests shown, by name
  std::string range;              // the revisions as given ("" : HEAD)
  // Where a commit links to: "{sha}" is replaced by the full SHA ("": an
  // anchor in the page's list of commits).
  std::string commit_url;
};

std::string history_text(const HistoryView& view);
nlohmann::json history_json(const HistoryView& view);
std::string history_html(const HistoryView& view);

// The drifts a --json file of `tileperf history` holds, as text, by test
// (for the summary's lines); an InputError names the file otherwise.
std::map<std::string, std::vector<std::string>> read_drift_notes(const std::string& path);

// One drift in words: "sass.instructions 100 -> 103 (+3, +3.0%; limit +1)
// over 3 step(s) each within it, from a1b2c3d to d4e5f6a, past the limit at
// c3d4e5f: b2c3d4e +1, c3d4e5f +1, d4e5f6a +1".
std::string describe_drift(const HistoryView& v, const TestSeries& t, const MetricSeries& s, const Drift& d);

}  // namespace tileperf
