// tileperf diff: two builds (or their tileperf/ result folders) test by
// test (inspect/build_diff.h, shown by report/build_diff_text.h).
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"
#include "inspect/build_diff.h"
#include "report/build_diff_text.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

int run_diff(const Args& args) {
  CLI::App app(
      "Compare two builds test by test: the metrics under the policies (base as the baseline, head as "
      "current), the source lines that gained or lost instructions, and a diff of the SASS of the main "
      "loop or of the functions that changed. Each test is judged as its check judges it, and the diff "
      "exits as the check of its most pressing test would: 3 when a gated metric regressed or an "
      "invariant broke, 7 when head exports another kernel, 6 when head was made with another toolchain.",
      "diff");
  DiffOptions o;
  app.add_option("base", o.base, "the base: a build folder, or its tileperf/ folder (a CI artifact)")->required();
  app.add_option("head", o.head, "the head: a build folder, or its tileperf/ folder")->required();
  app.add_option("--test", o.test, "only the tests whose name matches this regular expression");
  app.add_option("--json", o.json, "also write the diff as JSON to this file");
  app.add_option("--checks", o.checks,
                 "folder of policy files (default: the one the head's run record keeps, else ./checks)");
  app.add_option("--context", o.context, "unchanged SASS lines around each change")->capture_default_str();
  app.add_option("--max-lines", o.max_lines, "SASS diff lines shown per test, 0: all")->capture_default_str();
  app.add_flag("--ignore-registers", o.ignore_registers,
               "compare SASS with register numbers masked (R12 -> R?), so that renamed registers do not show");
  if (parse_args(app, args)) return kExitOk;
  BuildDiff d = diff_builds(o);
  std::cout << build_diff_text(d, o);
  if (!o.json.empty()) write_file_atomic(o.json, build_diff_json(d, o).dump(2) + "\n");
  return d.exit_code();
}

}  // namespace tileperf
