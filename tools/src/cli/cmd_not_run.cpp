// tileperf not-run: the command of a perf test that cannot run (a tool was
// missing when the project was configured). It says why, leaves a result
// file that summaries count, and ends as skipped (77, CTest: Not Run), or
// as not run (8, a failure) where every test must run.
#include <CLI/CLI.hpp>

#include <filesystem>

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
  std::string work_dir;
  bool require = false;
  app.add_option("--kernel", r.id.kernel, "kernel name")->required();
  app.add_option("--config", r.id.config, "configuration name")->required();
  app.add_option("--arch", r.id.arch, "architecture")->required();
  app.add_option("--reason", r.message, "why the test cannot run")->required();
  app.add_option("--work-dir", work_dir, "folder for the result file")->required();
  app.add_flag("--require-run", require, "every test must run: not running fails");
  std::string run_file;
  app.add_option("--run-file", run_file, "the record of `tileperf run-start`: the result is stamped with its run id");
  if (parse_args(app, args)) return kExitOk;
  validate_test_id(r.id);
  if (!run_file.empty()) r.run = read_run_id(run_file).value_or("");
  require = require || every_test_must_run();
  r.state = require ? State::kNotRun : State::kSkipped;
  r.exit_code = require ? kExitNotRun : kExitSkipped;
  std::filesystem::create_directories(work_dir);
  write_file_atomic(prefixed_file(test_prefix(work_dir, r.id.config, r.id.arch), FileKind::kResult),
                    to_json(r).dump(2) + "\n");
  fmt::print("{}: {}: {}{}\n", r.id.name(), state_name(r.state), r.message,
             require ? " (every test must run here: CI is set or --require-run was given)" : "");
  return r.exit_code;
}

}  // namespace tileperf
