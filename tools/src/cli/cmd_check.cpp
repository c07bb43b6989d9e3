// tileperf check: its options, then check_kernel (check/kernel_check.h).
#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "check/kernel_check.h"
#include "cli/commands.h"
#include "support/error.h"

namespace tileperf {

int run_check(const Args& args) {
  CLI::App app(
      "Compile one kernel configuration for one architecture, extract its metrics and "
      "compare them with the baseline (or rewrite the baseline with --update or "
      "TILEPERF_UPDATE_BASELINES=1).",
      "check");
  CheckOptions o;
  std::string test;
  auto* by_test = app.add_option("--test", test,
                                 "the perf test perf.<kernel>.<config>.<arch> of the run of --run-file: its "
                                 "kernel record (found through the work folder's path table) gives the rest");
  std::vector<CLI::Option*> per_test = {app.add_option("--kernel", o.id.kernel, "kernel name"),
                                        app.add_option("--config", o.id.config, "configuration name"),
                                        app.add_option("--arch", o.id.arch, "target architecture, e.g. sm_120")};
  for (auto* option : per_test) option->excludes(by_test);
  // With --test these override what the kernel's record says.
  per_test.push_back(app.add_option("--bytecode", o.bytecode, "TileIR bytecode of the configuration"));
  per_test.push_back(app.add_option("--work-dir", o.work_dir, "folder for the cubin, listings and results"));
  per_test.push_back(app.add_option("--baseline", o.baseline, "baseline metrics JSON"));
  app.add_option("--dump-info", o.dump_info, "dump record (default: <bytecode>.json)");
  app.add_option("--checks", o.checks, "folder of policy files (default: the run's, else checks)");
  app.add_option("--project-dir", o.project_dir,
                 "the project's folder: paths in messages are shown relative to it, as the update "
                 "command that runs from there");
  auto* tileiras = app.add_option("--tileiras", o.tc.tileiras, "tileiras executable");
  auto* cuobjdump = app.add_option("--cuobjdump", o.tc.cuobjdump, "cuobjdump executable");
  auto* record = app.add_option("--toolchain", o.toolchain_file,
                                "the toolchain record of `tileperf toolchain` (instead of "
                                "--tileiras and --cuobjdump)");
  record->excludes(tileiras)->excludes(cuobjdump);
  app.add_option("--cache-dir", o.cache_dir,
                 "the result cache: what the tools made of a bytecode, reused by later checks of "
                 "the same bytecode, tools and flags (TILEPERF_CACHE_DIR overrides it; off: none)");
  app.add_option("--timeout", o.tc.timeout_seconds, "seconds before a tool counts as hung")->capture_default_str();
  app.add_option("--update-command", o.update_command, "command shown to create baselines");
  app.add_option("--run-file", o.run_file,
                 "the record of `tileperf run-start`: the result is stamped with its run id, and what "
                 "is not given here (toolchain, cache, timeout, policies, project folder, strict, "
                 "require-run, measurements, update command) is the run's");
  app.add_flag("--update", o.update, "write the baseline instead of comparing");
  app.add_flag("--exact", o.exact, "fail on any change of any metric");
  app.add_flag("--strict", o.strict, "fail (state stale, exit 3) when a metric improved beyond its tolerance");
  app.add_flag("-v,--verbose", o.verbose, "list every metric that moved");
  app.add_flag("--measurements", o.measurements,
               "print each gated metric as a <CTestMeasurement>, which `ctest -T Test` records for CDash");
  app.add_flag("--require-run", o.require_run,
               "a test that cannot run (tool or architecture missing) fails (state not run, exit "
               "8) instead of being skipped; also when the environment variable CI is set");
  app.add_option("--edit", o.edit,
                 "the check is a self-test of this edit (a mutant must be caught by the metrics "
                 "it expects, a no-op edit must move nothing): exit 0 when it is, 3 when not");
  app.add_option("--edit-manifest", o.edit_manifest, "the edits manifest naming --edit's expectations");
  if (parse_args(app, args)) return kExitOk;
  std::set<std::string> given;
  for (const char* name : {"--bytecode", "--work-dir", "--baseline", "--checks", "--project-dir", "--toolchain",
                           "--tileiras", "--cuobjdump", "--cache-dir", "--timeout", "--update-command"}) {
    if (app.count(name) != 0) given.insert(name + 2);
  }
  if (!test.empty() || !o.run_file.empty()) apply_run_record(o, test, given);
  for (auto* option : per_test) {
    if (option->empty() && test.empty()) throw UsageError("check: " + option->get_name() + " is required (or --test)");
  }
  return check_kernel(std::move(o), args);
}

}  // namespace tileperf
