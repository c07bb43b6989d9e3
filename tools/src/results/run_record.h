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

// TILEPERF_RUN_ID when set (CI: the pipeline's id, shared by its shards),
// else the UTC time, the process id and a random suffix.
std::string new_run_id();

// What a run record keeps: the run's id, and every fact of the build that
// started it that its tests share, written once here rather than given to
// each test (empty, or 0, in a record of an older tileperf, which kept
// fewer). A check reads them from the record of its run (check/kernel_check.h).
struct RunRecord {
  std::string id{};
  std::string checks{};          // the build's policy folder
  std::string update_command{};  // the command that updates the build's baselines, run from project_dir
  std::string project_dir{};     // the project's source folder: paths in messages are shown relative to it
  std::string build_dir{};       // the top build folder, where ctest lists its selection
  std::string work_dir{};        // the work folder (build/tileperf): the path table's root
  std::string toolchain{};       // the toolchain record of `tileperf toolchain`
  std::string cache_dir{};       // the result cache ("off": none)
  double timeout = 0;            // seconds before a tool counts as hung (0: not recorded)
  bool strict = false;           // an improvement beyond its tolerance fails
  bool require_run = false;      // a test that cannot run fails instead of being skipped
  bool measurements = false;     // checks print CTest measurements
};

// Writes {"format", "run", "started", and each fact that is set} atomically.
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

// The command that accepts tests of that build from the current folder,
// wherever in the project it is: the recorded command when the current
// folder is the project's, else the same with the build folder relative to
// the current one (absolute where it is not below it); with `filter`, led
// by TILEPERF_FILTER='<filter>'. The placeholder of recorded_update_command
// when no run record names the build folder.
std::string accept_command(const std::vector<std::string>& results_dirs, const std::string& filter = "");

}  // namespace tileperf
