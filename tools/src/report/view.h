// What every report shows, decided once: which metrics a diff table lists
// and how, which opcodes moved most, which tests need a look and in what
// order, the count of each state. The renderers (the terminal table of
// `check`, `summary`, Markdown, HTML) only lay this out.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/compare.h"
#include "results/result.h"
#include "support/states.h"

namespace tileperf {

// Prefixes of the per-opcode counts, of the whole kernel and of its main loop.
inline constexpr std::string_view kOpcodePrefix = "sass.opcode.";
inline constexpr std::string_view kLoopOpcodePrefix = "loop.main.opcode.";

// One row of a diff table.
struct DiffRow {
  std::string metric;
  Change change = Change::kChanged;
  Direction direction = Direction::kInfo;
  Verdict verdict = Verdict::kOk;
  std::int64_t baseline = 0, current = 0, delta = 0;
  double percent = 0;
  std::string delta_text;    // "+8"
  std::string percent_text;  // "+88.9%", "+inf%"
  std::string limit_text;    // "+1.43" (may grow by), "-2" (may shrink by), "=" (exact), "-" (info)
  std::string marker;        // " [new]", " [removed]" or ""
};

DiffRow diff_row(const MetricDiff& d);

// The rows a diff table lists, by impact: every regressed metric and every
// gated one that moved; with `verbose`, informational ones that moved too.
std::vector<DiffRow> shown_rows(const std::vector<MetricDiff>& diffs, bool verbose = false);

// The metrics under a prefix that moved most, by size of the change.
struct Moved {
  std::string name;  // without the prefix: "MUFU.EX2"
  std::int64_t delta = 0;
};
struct TopMoved {
  std::vector<Moved> top;
  std::size_t more = 0;  // how many more moved
  bool empty() const { return top.empty(); }
  std::string text() const;  // "FFMA +48, MUFU.EX2 +8 (and 4 more)"
};
inline constexpr std::size_t kTopMoved = 6;
TopMoved top_moved(const std::vector<MetricDiff>& diffs, std::string_view prefix, std::size_t n = kTopMoved);

// Counts of a comparison's metrics, for the bottom line of a table.
struct DiffTotals {
  std::size_t metrics = 0, moved = 0, regressed = 0, improved = 0, ok = 0, info = 0, added = 0, removed = 0;
};
DiffTotals diff_totals(const std::vector<MetricDiff>& diffs);

// One test as every report shows it.
struct TestView {
  const TestResult* result = nullptr;
  std::string name;    // "perf.gelu.f16_1024.sm_120"
  std::string anchor;  // an HTML id: the name
  std::string state;   // its state's name
  bool needs_look = false;
  bool earlier_run = false;   // left behind by an earlier run (shown only when asked for)
  std::vector<DiffRow> rows;  // shown_rows of its diff
  std::vector<DiffRow> regressed() const;
  TopMoved opcodes, loop_opcodes;
  std::vector<std::optional<std::int64_t>> key;  // kKeyMetrics, in order; none when not measured
  // The check's replay of the main loop (and the producer loop), from the
  // <config>.<arch>.timeline.json beside the result file; null without one.
  nlohmann::json timeline;
  std::string timeline_problem;  // why a timeline file beside the result could not be read
  // `tileperf investigate`'s record of the test, from the
  // <config>.<arch>.investigation.json beside the result; null without one.
  nlohmann::json investigation;
  // "sass.mufu 9 -> 17 (+88.9%), regs 27 -> 40 (+48.1%) and 5 more": the
  // first metrics over their limit, for one collapsed line.
  std::string headline(std::size_t n = 3) const;
};

struct StateCount {
  State state;
  std::string name;
  std::size_t n = 0;
};

struct KernelView {
  std::string kernel;
  std::vector<const TestView*> tests;  // by name
  std::vector<StateCount> counts;
};

// Holds pointers into its own tests: moved, never copied.
struct ReportView {
  ReportView() = default;
  ReportView(ReportView&&) = default;
  ReportView& operator=(ReportView&&) = default;
  ReportView(const ReportView&) = delete;
  ReportView& operator=(const ReportView&) = delete;

  std::vector<TestView> tests;                // by name
  std::vector<StateCount> counts;             // states that occur, in report order
  std::vector<const TestView*> needs_look;    // state order, then name
  std::vector<const TestView*> investigated;  // passed tests with an investigation beside them, by name
  std::vector<KernelView> kernels;            // by kernel name
  std::string counts_text() const;            // "2 regressed, 7 pass", "no tests"
  // Results an earlier run left behind (its run.json names another run).
  std::size_t earlier_left_out = 0, earlier_included = 0;
  std::size_t expected = 0;  // results the run must have (report --expect); 0: not known
  // Drift of the shown tests' metrics over the baselines' git log (report
  // --history: tileperf history's notes), by test name.
  std::map<std::string, std::vector<std::string>> drifts;
  // (test, note) per shown test and drift run, by test name; empty without drift.
  std::vector<std::pair<std::string, std::string>> drift_lines() const;
  // "" when complete; else "150 of 156 expected results found: ..."
  std::string missing_text() const;
  // "" when every result is of the latest run; else what was left out or
  // flagged, and how to change that.
  std::string runs_text() const;
};

std::string counts_text(const std::vector<StateCount>& counts);

// A merge request's review (see merge_review.h), laid out like a run: the
// baselines it changed, and its results against the merge base's
// baselines. Anchors are prefixed ("accepted-", "base-") so that they do not
// clash with the run's.
struct Review;
struct ReviewView {
  std::shared_ptr<const Review> review;     // what the views below point into
  ReportView accepted;                      // every changed baseline
  std::vector<std::string> removed;         // tests whose baseline was deleted
  ReportView against_base;                  // every result compared with the base
  std::vector<const TestView*> base_moved;  // those that are not pass, in state order
  std::size_t unmeasured = 0;
  // "this merge request changes 3 baselines (1 regressed, 2 improved);
  // against the merge base: 1 regressed, 155 pass"
  std::string headline() const;
};

// Results marked earlier_run are left out (and counted) unless
// `include_earlier`; then they are kept and flagged.
ReportView make_report_view(const std::vector<TestResult>& results, bool include_earlier = false);

ReviewView make_review_view(Review review);

std::string format_signed(double v);
std::string format_percent(double pct);
// "850 ns", "41.2 us", "1.87 ms".
std::string format_time_ns(double ns);

}  // namespace tileperf
