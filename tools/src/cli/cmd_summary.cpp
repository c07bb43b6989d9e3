// tileperf summary: one line per test from the result files a run left.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "report/bump_text.h"
#include "report/history_report.h"
#include "results/bump.h"
#include "metrics/metrics.h"
#include "report/toolchain_preview.h"
#include "results/run_record.h"
#include "report/comparison_text.h"
#include "report/view.h"
#include "results/result.h"
#include "support/text.h"

namespace tileperf {

namespace {

// Under a test: its message (why it was skipped, say); for one that needs a
// look, what went over its limit (for an update, every gated metric that
// moved, for its review), its broken invariants and its notes.
std::string details(const TestView& t) {
  // A toolchain bump is reviewed as one: see the lines under the counts.
  if (t.result->state == State::kToolchainChanged) return "";
  std::string out;
  if (!t.result->message.empty()) out += "    " + t.result->message + "\n";
  if (!t.needs_look) return out;
  for (const auto& d : t.result->state == State::kUpdated ? t.rows : t.regressed()) {
    out += fmt::format("    {}{}: {} -> {} ({}, {}, limit {}, {})\n", d.metric, d.marker, d.baseline, d.current,
                       d.delta_text, d.percent_text, d.limit_text, verdict_name(d.verdict));
  }
  for (const auto& b : t.result->broken) {
    out += fmt::format("    invariant broken: {}; found {}\n", b.require, b.found);
  }
  for (const auto& n : t.result->notes) out += "    note: " + n + "\n";
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median and total seconds of each step over the tests that ran it.
void print_timings(const std::vector<TestResult>& results) {
  std::map<std::string, std::vector<double>> steps;
  for (const auto& r : results) {
    for (const auto& [step, s] : r.seconds) steps[step].push_back(s);
  }
  fmt::print("{:<8}  {:>5}  {:>10}  {:>9}\n", "step", "tests", "median s", "total s");
  for (const char* step : {"dump", "compile", "extract", "compare"}) {
    const auto& v = steps[step];
    double total = 0;
    for (double s : v) total += s;
    fmt::print("{:<8}  {:>5}  {:>10.3f}  {:>9.2f}\n", step, v.size(), median(v), total);
  }
}

}  // namespace

int run_summary(const Args& args) {
  CLI::App app(
      "Print one line per test (name, state, key metrics) from the *.result.json files "
      "under the given folders, then the count of each state.",
      "summary");
  std::vector<std::string> dirs;
  bool timings = false, all_runs = false;
  std::string history;
  app.add_option("dirs", dirs, "folders to search")->required();
  app.add_option("--history", history, "the --json of tileperf history: each shown test's drift under its line");
  app.add_flag("--all-runs", all_runs,
               "include results that earlier runs left behind (flagged), which are left out by default");
  app.add_flag("--timings", timings,
               "instead of the lines, the median and total seconds of each step "
               "(dump: export per configuration; compile: tileiras; extract: cuobjdump and parsing)");
  app.footer("Tests that did not pass also show their message and the metrics over their limit.");
  if (parse_args(app, args)) return kExitOk;

  auto results = collect_results(dirs);
  if (timings) {
    print_timings(results);
    return kExitOk;
  }
  auto drifts = history.empty() ? std::map<std::string, std::vector<std::string>>() : read_drift_notes(history);
  ReportView view = make_report_view(results, all_runs);
  std::size_t width = 0;
  for (const auto& t : view.tests) width = std::max(width, t.name.size());
  for (const auto& t : view.tests) {
    fmt::print("{:<{}}  {:<17}{}{}\n{}", t.name, width, t.state, format_key_metrics(t.result->key_metrics),
               t.earlier_run ? "  (earlier run)" : "", details(t));
    for (const auto& d : drifts[t.name]) fmt::print("    drift: {}\n", d);
  }
  fmt::print("{} tests: {}\n", view.tests.size(), view.counts_text());
  std::vector<const TestResult*> shown;
  for (const auto& t : view.tests) shown.push_back(t.result);
  if (ToolchainPreview p = make_toolchain_preview(shown); !p.tests.empty()) {
    std::string preview = "tileperf preview";
    for (const auto& d : dirs) preview += " " + d;
    fmt::print("{}", preview_text(p, recorded_update_command(dirs), 0, preview + " --markdown preview.md"));
  }
  // Each with exactly its tests: a run of part of a build (ctest -R) must
  // not accept the rest.
  for (const auto& g : make_bumps(shown)) fmt::print("{}", bump_text(g, accept_command(dirs, tests_filter(g.tests))));
  if (auto same = unmoved_signatures(shown); !same.empty()) {
    fmt::print("{}", unmoved_signatures_text(same, accept_command(dirs, tests_filter(same))));
  }
  if (auto runs = view.runs_text(); !runs.empty()) fmt::print("{}\n", runs);
  return kExitOk;
}

}  // namespace tileperf
