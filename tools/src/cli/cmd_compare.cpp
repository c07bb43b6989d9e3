// tileperf compare: a metrics JSON against its baseline.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "gate/baseline.h"
#include "gate/judgement.h"
#include "support/error.h"
#include "metrics/metrics.h"
#include "gate/policy.h"
#include "report/comparison_text.h"

namespace tileperf {

int run_compare(const Args& args) {
  CLI::App app(
      "Compare current metrics with a baseline. Exit 3 on a regression, 5 when the "
      "baseline does not exist.",
      "compare");
  std::string baseline_path, current_path, checks = "checks";
  bool exact = false, verbose = false, strict = false;
  app.add_option("baseline", baseline_path, "baseline metrics JSON")->required();
  app.add_option("current", current_path, "current metrics JSON")->required();
  app.add_option("--checks", checks, "folder of policy files")->capture_default_str();
  app.add_flag("--exact", exact, "fail on any change of any metric, informational ones included");
  app.add_flag("--strict", strict, "fail (exit 3) when a metric improved beyond its tolerance");
  app.add_flag("-v,--verbose", verbose, "list every metric that moved");
  if (parse_args(app, args)) return kExitOk;

  Metrics current = read_baseline(current_path);
  if (!std::filesystem::exists(baseline_path)) {
    fmt::print("{}: new (no baseline at {})\n", current.id.name(), baseline_path);
    return kExitNew;
  }
  Metrics baseline = read_baseline(baseline_path);
  Policy policy = load_policy(checks, current.id.kernel, current.id.config);
  Judgement j = judge(baseline, current, policy, {exact, strict});
  std::string message = judgement_message(j);
  fmt::print("{}: {}\n{}{}{}", current.id.name(), state_name(j.state), message.empty() ? "" : "  " + message + "\n",
             format_broken(j.comparison.broken), format_diff_table(j.comparison.diffs, verbose));
  return j.exit_code();
}

}  // namespace tileperf
