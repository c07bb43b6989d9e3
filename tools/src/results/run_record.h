// Which run a result belongs to. The fixture `run.start`, set up before
// every perf test of a ctest invocation, writes <work dir>/run.json with a
// new run id; each check stamps its result with the id it finds there. A
// summary or report then knows the results of the latest run from results
// an earlier run (a partial `ctest -R`, a filtered update) left behind.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tileperf {

inline constexpr const char* kRunFormat = "tileperf-run/1";
inline constexpr const char* kRunFileName = "run.json";

// TILEPERF_RUN_ID when set (CI: the pipeline's id, shared by its shards),
// else the UTC time, the process id and a random suffix.
std::string new_run_id();

// What a run record keeps: the run's id, and, from the build that started
// it, its policy folder and the command that updates its baselines (empty in
// a record of an older tileperf, which kept neither).
struct RunRecord {
  std::string id;
  std::string checks;
  std::string update_command;
};

// Writes {"format", "run", "started", "checks", "update_command"} atomically
// (the last two when not empty).
void write_run_record(const std::string& path, const RunRecord& record);

// The run record at `path`; nullopt when there is no such file. A malformed
// record is an InputError naming it.
std::optional<RunRecord> read_run_record(const std::string& path);

// The id of the run record at `path`; nullopt when there is no such file.
// A malformed record is an InputError naming it.
std::optional<std::string> read_run_id(const std::string& path);

// The id of the nearest run.json from the folder of `file` up to `root`
// (both included); nullopt when there is none.
std::optional<std::string> nearest_run_id(const std::string& file, const std::string& root);

// The record of the run whose results are in `results_dir` (a build
// folder, its tileperf/ folder or a kernel's folder in it): run.json there,
// in its tileperf/ folder or in the folder above; nullopt when none of them
// has one. A malformed record is an InputError naming it.
std::optional<RunRecord> run_record_near(const std::string& results_dir);

// The command that updates the baselines of the build whose results are in
// the folders: the one its run record keeps, else a placeholder with
// <build-dir> for the reader to fill in.
std::string recorded_update_command(const std::vector<std::string>& results_dirs);

}  // namespace tileperf
