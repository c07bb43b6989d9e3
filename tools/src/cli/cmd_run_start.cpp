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
  app.add_option("-o,--out", out, "the run record to write")->required();
  if (parse_args(app, args)) return kExitOk;
  std::string id = new_run_id();
  write_run_record(out, id);
  fmt::print("run {}: {}\n", id, out);
  return kExitOk;
}

}  // namespace tileperf
