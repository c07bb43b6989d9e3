// tileperf run-start: writes the record of a new run, which every check of
// the run stamps its result with (see run_record.h).
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "results/run_record.h"

namespace tileperf {

int run_run_start(const Args& args) {
  CLI::App app("Start a run: write a run record with a new id (TILEPERF_RUN_ID when set), which "
               "`tileperf check --run-file` stamps on each result, so that `summary` and `report` "
               "tell this run's results from those an earlier run left behind.",
               "run-start");
  std::string out;
  RunRecord record;
  app.add_option("-o,--out", out, "the run record to write")->required();
  app.add_option("--checks", record.checks, "the build's policy folder, which `tileperf diff` reads from the record");
  app.add_option("--update-command", record.update_command,
                 "the command that updates the build's baselines, which `tileperf diff` shows");
  if (parse_args(app, args)) return kExitOk;
  record.id = new_run_id();
  write_run_record(out, record);
  fmt::print("run {}: {}\n", record.id, out);
  return kExitOk;
}

}  // namespace tileperf
