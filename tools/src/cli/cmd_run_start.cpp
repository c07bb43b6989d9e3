// tileperf run-start: writes the record of a new run: its id, which every
// check of the run stamps its result with, and the facts its tests share
// (see run_record.h).
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "results/run_record.h"
#include "support/work_paths.h"

namespace tileperf {

int run_run_start(const Args& args) {
  CLI::App app(
      "Start a run: write a run record with a new id (TILEPERF_RUN_ID when set) and the facts "
      "every test of the run shares, which each check reads from it (`tileperf check --run-file "
      "<record> --test <name>`), so that `summary` and `report` tell this run's results from those "
      "an earlier run left behind.",
      "run-start");
  std::string out;
  RunRecord record;
  app.add_option("-o,--out", out, "the run record to write (default: run.json in --work-dir)");
  app.add_option("--work-dir", record.work_dir, "the work folder, where the checks find their files");
  app.add_option("--checks", record.checks, "the build's policy folder");
  app.add_option("--update-command", record.update_command,
                 "the command that updates the build's baselines, run from --project-dir");
  app.add_option("--project-dir", record.project_dir,
                 "the project's folder: paths in messages are shown relative to it");
  app.add_option("--build-dir", record.build_dir, "the top build folder, where ctest lists the tests it runs");
  app.add_option("--toolchain", record.toolchain, "the toolchain record of `tileperf toolchain`");
  app.add_option("--cache-dir", record.cache_dir, "the result cache (off: none)");
  app.add_option("--timeout", record.timeout, "seconds before a tool counts as hung")->check(CLI::PositiveNumber);
  app.add_flag("--strict", record.strict, "an improvement beyond its tolerance fails the check");
  app.add_flag("--require-run", record.require_run, "a test that cannot run fails instead of being skipped");
  app.add_flag("--measurements", record.measurements, "checks print each gated metric as a <CTestMeasurement>");
  if (parse_args(app, args)) return kExitOk;
  if (out.empty()) {
    if (record.work_dir.empty()) throw UsageError("run-start: give --out or --work-dir");
    out = work_file(record.work_dir, FileKind::kRun);
  }
  record.id = new_run_id();
  write_run_record(out, record);
  fmt::print("run {}: {}\n", record.id, out);
  return kExitOk;
}

}  // namespace tileperf
