// tileperf edit-report: the catch rate of the gate's self-test corpus, from
// the result files its edit checks left.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "cli/commands.h"
#include "results/edits.h"
#include "support/error.h"
#include "metrics/metrics.h"
#include "support/text.h"

namespace tileperf {

int run_edit_report(const Args& args) {
  CLI::App app(
      "Print, for every edit of the self-test corpus, whether each of its checks went "
      "as its patch says (a mutant caught by the metrics it expects, a no-op edit "
      "moving nothing), and the catch rate. Exit 3 when one did not.",
      "edit-report");
  std::string manifest, work_dir, archs;
  app.add_option("--manifest", manifest, "the edits manifest written at configure time")->required();
  app.add_option("--work-dir", work_dir, "folder with one subfolder of results per edit")->required();
  app.add_option("--archs", archs, "comma-separated architectures each edit was checked on")->required();
  if (parse_args(app, args)) return kExitOk;
  auto edits = edits_from_json(parse_json(read_file(manifest), manifest), manifest);
  std::string report;
  bool ok = report_edits(edits, work_dir, split(archs, ','), report);
  fmt::print("{}", report);
  return ok ? kExitOk : kExitRegression;
}

}  // namespace tileperf
