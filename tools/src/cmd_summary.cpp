// tileperf summary: one line per test from the result files a run left.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "commands.h"
#include "error.h"
#include "metrics.h"
#include "report.h"
#include "result.h"
#include "text.h"

namespace tileperf {

namespace {

// Under a test that did not simply pass: why, and what went over its limit.
std::string details(const TestResult& r) {
  if (r.state == "pass" || r.state == "unchanged" || r.state == "created") return "";
  std::string out;
  if (!r.message.empty()) out += "    " + r.message + "\n";
  for (const auto& d : r.diff) {
    // An update lists what moved for its review; other states what failed.
    bool show = r.state == "updated" ? d.value("direction", "") != "info"
                                     : d.value("verdict", "") == "regressed";
    if (!show) continue;
    out += fmt::format("    {}: {} -> {} ({:+d}, limit {:g}, {})\n", d.value("metric", "?"),
                       d.value("baseline", 0), d.value("current", 0), d.value("delta", 0),
                       d.value("limit", 0.0), d.value("verdict", ""));
  }
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
  CLI::App app("Print one line per test (name, state, key metrics) from the *.result.json files "
               "under the given folders, then the count of each state.",
               "summary");
  std::vector<std::string> dirs;
  bool timings = false;
  app.add_option("dirs", dirs, "folders to search")->required();
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
  std::size_t width = 0;
  for (const auto& r : results) width = std::max(width, r.id.name().size());
  std::map<std::string, int> states;
  for (const auto& r : results) {
    fmt::print("{:<{}}  {:<17}{}\n{}", r.id.name(), width, r.state, format_key_metrics(r.key_metrics), details(r));
    ++states[r.state];
  }
  std::string counts;
  for (const auto& [state, n] : states) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, state);
  fmt::print("{} tests: {}\n", results.size(), counts.empty() ? "none" : counts);
  return kExitOk;
}

}  // namespace tileperf
