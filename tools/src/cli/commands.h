// The subcommands of `tileperf`, each a handler taking its own arguments.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tileperf {

using Args = std::vector<std::string>;  // arguments after the subcommand name

int run_extract(const Args& args);
int run_compare(const Args& args);
int run_diff(const Args& args);
int run_check(const Args& args);
int run_summary(const Args& args);
int run_report(const Args& args);
int run_loops(const Args& args);
int run_edit_report(const Args& args);
int run_not_run(const Args& args);
int run_toolchain(const Args& args);
int run_preview(const Args& args);
int run_run_start(const Args& args);
int run_progress(const Args& args);
int run_cache(const Args& args);
int run_history(const Args& args);
int run_bisect(const Args& args);
int run_batch(const Args& args);
int run_dump(const Args& args);
int run_states(const Args& args);
int run_variance(const Args& args);
int run_investigate(const Args& args);

// Parses `args` with `app`; --help prints usage and returns true (caller
// exits 0); bad arguments throw UsageError.
bool parse_args(CLI::App& app, const Args& args);

// Processes at a time for a batch of tools: TILEPERF_JOBS (1 to 1024,
// UsageError otherwise), else the number of cores.
int default_jobs();

}  // namespace tileperf
