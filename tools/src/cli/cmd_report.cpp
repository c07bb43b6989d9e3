// tileperf report: merges the result files of one or several runs (shards)
// into a JSON report, Markdown for a merge-request comment, and an HTML page.
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.h"
#include "inspect/merge_review.h"
#include "report/formats.h"
#include "report/history_report.h"
#include "report/view.h"
#include "results/result.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

int run_report(const Args& args) {
  CLI::App app(
      "Merge the *.result.json files under the given folders (one run, or the shards "
      "of a run) into reports. Without an output option, prints the Markdown.",
      "report");
  std::vector<std::string> dirs;
  std::string json, markdown, html;
  MarkdownOptions md;
  bool all_runs = false;
  ReviewInputs review_in;
  std::size_t expect = 0;
  std::string history;
  app.add_option("dirs", dirs, "folders holding result files")->required();
  app.add_option("--json", json, "write the merged report as JSON");
  app.add_option("--markdown", markdown, "write Markdown for a merge-request comment");
  app.add_option("--html", html, "write a self-contained HTML page with charts");
  app.add_option("--max-comment-chars", md.max_chars,
                 "shorten the Markdown past this size (GitHub refuses comments over 65536)")
      ->capture_default_str();
  app.add_option("--full-report", md.full_report,
                 "where the full report is (a link), named by a shortened Markdown comment");
  auto* base = app.add_option("--base-baselines", review_in.base_baselines,
                              "the merge base's baseline folder (e.g. from git archive): the report shows "
                              "the results against it, and with --baselines every baseline the branch changed");
  app.add_option("--baselines", review_in.baselines, "the branch's baseline folder")->needs(base);
  app.add_option("--checks", review_in.checks, "the policies the review compares under")
      ->capture_default_str()
      ->needs(base);
  app.add_option("--commit", md.commit, "the commit the results are of, named in the Markdown");
  app.add_option("--commit-url", md.commit_url, "a link to that commit");
  app.add_option("--run-url", md.run_url, "a link to the CI run that made the results");
  app.add_option("--expect", expect,
                 "the number of results the run must have (every perf test): fewer, and the report says "
                 "which are missing and the command exits 9");
  app.add_option("--history", history,
                 "the --json of tileperf history: the drift of the reported tests' metrics, after the tests "
                 "that need a look");
  app.add_flag("--all-runs", all_runs,
               "include results that earlier runs left behind (flagged), which are left out by default");
  app.footer("A test found in two folders is an error: shards must not overlap.");
  if (parse_args(app, args)) return kExitOk;

  auto results = collect_results(dirs);
  ReportView view = make_report_view(results, all_runs);
  view.expected = expect;
  if (!history.empty()) view.drifts = read_drift_notes(history);
  std::optional<ReviewView> review;
  if (!review_in.base_baselines.empty()) {
    review.emplace(make_review_view(make_review(results, review_in)));
    md.review = &*review;
  }
  if (!json.empty()) write_file_atomic(json, report_json(view).dump(2) + "\n");
  if (!markdown.empty()) write_file_atomic(markdown, report_markdown(view, md));
  if (!html.empty()) write_file_atomic(html, report_html(view, review ? &*review : nullptr));
  if (json.empty() && markdown.empty() && html.empty()) std::cout << report_markdown(view, md);
  if (auto missing = view.missing_text(); !missing.empty()) {
    fmt::print(stderr, "tileperf: report {}\n", missing);
    return kExitIncomplete;
  }
  return kExitOk;
}

}  // namespace tileperf
