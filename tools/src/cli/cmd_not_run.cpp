// tileperf not-run: the command of a perf test that cannot run (a tool was
// missing when the project was configured, or its kernel file could not be
// listed). It says why, leaves a result file that summaries count, and ends
// as skipped (77, CTest: Not Run), or as not run (8, a failure) where every
// test must run; a kernel file that could not be listed ends as bad input
// (2, --bad-input).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "metrics/metrics.h"
#include "results/result.h"
#include "results/run_record.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

int run_not_run(const Args& args) {
  CLI::App app(fmt::format("Report a perf test that cannot run, with the reason: exit {} (skipped), or {} "
                           "(a failure) with --require-run or when the environment variable CI is set.",
                           static_cast<int>(kExitSkipped), static_cast<int>(kExitNotRun)),
               "not-run");
  TestResult r;
  std::string work_dir, test, run_file;
  bool require = false, bad_input = false;
  auto* by_test = app.add_option("--test", test,
                                 "the perf test perf.<kernel>.<config>.<arch> of the run of --run-file, whose "
                                 "work folder holds the result");
  for (auto* option : {app.add_option("--kernel", r.id.kernel, "kernel name"),
                       app.add_option("--config", r.id.config, "configuration name"),
                       app.add_option("--arch", r.id.arch, "architecture"),
                       app.add_option("--work-dir", work_dir, "folder for the result file")}) {
    option->excludes(by_test);
  }
  app.add_option("--reason", r.message, "why the test cannot run")->required();
  app.add_flag("--require-run", require, "every test must run: not running fails (also when the run's record says so)");
  app.add_flag("--bad-input", bad_input,
               "the test cannot run because its input is bad (a kernel file that could not "
               "be listed): it fails as bad input");
  app.add_option("--run-file", run_file, "the record of `tileperf run-start`: the result is stamped with its run id");
  if (parse_args(app, args)) return kExitOk;
  auto record = run_file.empty() ? std::nullopt : read_run_record(run_file);
  if (!test.empty()) {
    if (!record || record->work_dir.empty()) {
      throw InputError(run_file.empty() ? "--run-file" : run_file, 0,
                       "--test needs a run record that names its work folder");
    }
    auto id = parse_test_name(test);
    if (!id) throw UsageError("not-run: --test " + test + ": expected perf.<kernel>.<config>.<arch>");
    r.id = *id;
    work_dir = record->work_dir + "/" + r.id.kernel;
  } else if (work_dir.empty() || r.id.kernel.empty() || r.id.config.empty() || r.id.arch.empty()) {
    throw UsageError("not-run: give --test, or --kernel, --config, --arch and --work-dir");
  }
  validate_test_id(r.id);
  if (record) r.run = record->id;
  require = require || every_test_must_run() || (record && record->require_run);
  r.state = bad_input ? State::kBadInput : require ? State::kNotRun : State::kSkipped;
  r.exit_code = bad_input ? kExitBadInput : require ? kExitNotRun : kExitSkipped;
  std::filesystem::create_directories(work_dir);
  write_file_atomic(prefixed_file(test_prefix(work_dir, r.id.config, r.id.arch), FileKind::kResult),
                    to_json(r).dump(2) + "\n");
  fmt::print("{}: {}: {}{}\n", r.id.name(), state_name(r.state), r.message,
             require && !bad_input ? " (every test must run here: CI is set or --require-run was given)" : "");
  return r.exit_code;
}

}  // namespace tileperf
