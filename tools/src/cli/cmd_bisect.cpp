// tileperf bisect: its options; the work is check/bisect_run's.
#include <CLI/CLI.hpp>

#include "check/bisect_run.h"
#include "cli/commands.h"
#include "support/error.h"

namespace tileperf {

int run_bisect(const Args& args) {
  CLI::App app(
      "The first commit between a good and a bad revision at which one test's metric (or its "
      "verdict against the good revision's baseline) changed: each step checks the commit "
      "out in a worktree of its own, configures and builds it, and runs that one test; "
      "commits that do not build or measure are skipped, as git bisect skip. Arguments "
      "after -- go to cmake's configure step.",
      "bisect");
  BisectOptions o;
  app.add_option("--good", o.good, "a revision with the old value")->required();
  app.add_option("--bad", o.bad, "a revision with the new value")->required();
  app.add_option("--test", o.test, "the perf test: perf.<kernel>.<config>.<arch>")->required();
  app.add_option("--metric", o.metric, "the metric to follow (default: the verdict against the good baseline)");
  app.add_option("--repo", o.repo, "a folder of the git repository")->capture_default_str();
  app.add_option("--work", o.work,
                 "folder for the worktree, the build, the result cache and the logs, kept "
                 "for the next bisection (default: a new temporary folder)");
  app.add_option("--jobs", o.jobs, "parallel build jobs")->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds each configure, build or test may take")->capture_default_str();
  app.add_flag("--keep-worktree", o.keep, "leave the worktree registered and checked out at the end");
  app.add_option("cmake-args", o.cmake_args, "after --: arguments of cmake's configure step");
  if (parse_args(app, args)) return kExitOk;
  return bisect(std::move(o));
}

}  // namespace tileperf
