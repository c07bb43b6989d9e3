// tileperf report: merges the result files of one or several runs (shards)
// into a JSON report, Markdown for a merge-request comment, and an HTML page.
#include <CLI/CLI.hpp>

#include <iostream>

#include <fmt/format.h>

#include "commands.h"
#include "error.h"
#include "report_formats.h"
#include "result.h"
#include "text.h"

namespace tileperf {

int run_report(const Args& args) {
  CLI::App app("Merge the *.result.json files under the given folders (one run, or the shards "
               "of a run) into reports. Without an output option, prints the Markdown.",
               "report");
  std::vector<std::string> dirs;
  std::string json, markdown, html;
  app.add_option("dirs", dirs, "folders holding result files")->required();
  app.add_option("--json", json, "write the merged report as JSON");
  app.add_option("--markdown", markdown, "write Markdown for a merge-request comment");
  app.add_option("--html", html, "write a self-contained HTML page with charts");
  app.footer("A test found in two folders is an error: shards must not overlap.");
  if (parse_args(app, args)) return kExitOk;

  nlohmann::json report = report_json(collect_results(dirs));
  if (!json.empty()) write_file_atomic(json, report.dump(2) + "\n");
  if (!markdown.empty()) write_file_atomic(markdown, report_markdown(report));
  if (!html.empty()) write_file_atomic(html, report_html(report));
  if (json.empty() && markdown.empty() && html.empty()) std::cout << report_markdown(report);
  return kExitOk;
}

}  // namespace tileperf
