// tileperf preview: a toolchain bump as one review. The tests of a run under
// a new toolchain end `toolchain changed` and carry the comparison of the new
// metrics with the old baselines; this prints the totals per verdict and per
// metric and writes every test's detail as Markdown a merge request can hold.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "metrics/variance.h"
#include "support/error.h"
#include "report/toolchain_preview.h"
#include "results/run_record.h"
#include "report/view.h"
#include "results/result.h"
#include "support/text.h"

namespace tileperf {

int run_preview(const Args& args) {
  CLI::App app(
      "Preview a toolchain bump from the result files of a run whose tests ended `toolchain "
      "changed`: what accepting the new toolchain would make of each test under the usual "
      "policies, totals per verdict and per metric, largest regressions first. Writes nothing "
      "but the files asked for.",
      "preview");
  std::vector<std::string> dirs;
  std::string markdown, update_command;
  std::size_t max_chars = kMaxPreviewChars, max_metrics = 20;
  app.add_option("dirs", dirs, "folders holding result files (one run, or the shards of a run)")->required();
  app.add_option("--markdown", markdown, "write the preview with every test's detail as Markdown");
  app.add_option("--max-chars", max_chars,
                 "shorten the Markdown to this size, for a merge request comment (0: no limit)")
      ->capture_default_str();
  app.add_option("--max-metrics", max_metrics, "rows of the per-metric table printed here")->capture_default_str();
  app.add_option("--update-command", update_command,
                 "the command that accepts the new toolchain (default: the one the results' run record keeps)");
  app.footer("Exit 0 when no test ended toolchain changed or none would regress, 3 when some would.");
  if (parse_args(app, args)) return kExitOk;

  auto results = collect_results(dirs);
  if (update_command.empty()) update_command = recorded_update_command(dirs);
  ReportView view = make_report_view(results);
  std::vector<const TestResult*> shown;
  for (const auto& t : view.tests) shown.push_back(t.result);
  ToolchainPreview p = make_toolchain_preview(shown);
  if (p.tests.empty()) {
    fmt::print("no test ended toolchain changed: nothing to preview ({} result(s))\n", results.size());
    return kExitOk;
  }
  // Which configurations' compilations vary under the new toolchain: what
  // `tileperf variance` measured for this run (its default folder), or how to.
  std::string varies;
  for (const auto& dir : dirs) {
    namespace fs = std::filesystem;
    varies += variance_summary((fs::path(dir) / "variance" / "variance.json").string(),
                               (fs::path(dir) / "run.json").string());
  }
  std::cout << preview_text(p, update_command, max_metrics) << varies;
  if (!markdown.empty()) {
    write_file_atomic(markdown, preview_markdown(p, update_command, max_chars) + "\n```\n" + varies + "```\n");
  }
  return p.regressed ? kExitRegression : kExitOk;
}

}  // namespace tileperf
