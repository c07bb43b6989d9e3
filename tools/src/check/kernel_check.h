// One kernel configuration's check on one architecture, the work behind
// `tileperf check` and each perf.<kernel>.<config>.<arch> test:
//
// bytecode --tileiras--> cubin + remarks --cuobjdump--> SASS, resource usage
// --> metrics JSON --> compared with the baseline (or written to it in update
// mode) --> result JSON and a report.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/line_time.h"
#include "analysis/loops.h"
#include "gate/policy.h"
#include "metrics/metrics.h"
#include "results/result.h"
#include "toolchain/toolchain.h"

namespace tileperf {

struct CheckOptions {
  TestId id;
  std::string bytecode, dump_info, work_dir, baseline, checks = "checks";
  std::string edit, edit_manifest;  // a self-test of an edited kernel: judge the check
  std::string toolchain_file;       // the probed toolchain record (else the tools are asked)
  std::string cache_dir;            // the result cache ("": off)
  std::string run_file;             // run.json of the run this check belongs to
  std::string update_command = "cmake --build <build-dir> --target update_baselines";
  Toolchain tc;
  bool update = false, exact = false, verbose = false, strict = false, require_run = false;
  bool measurements = false;  // print CTest measurements

  std::string project_dir;  // paths in messages are shown relative to it ("": as given)

  std::string prefix() const;
  std::string shown_path(const std::string& path) const;
};

// Fills in what the command line did not give (`given`: the options given,
// without their dashes: "toolchain", "cache-dir", ...) from the run record
// at o.run_file: the toolchain record, the cache, the tool timeout, the
// policies, the project's folder, strict, require-run, measurements and the
// update command (narrowed to the test by TILEPERF_FILTER). With `test`
// (perf.<kernel>.<config>.<arch>), the test's kernel, configuration and
// architecture come from its name, and, unless given, its work folder from
// the record's through the path table, and its bytecode, baseline and
// policies from its kernel's record (<work>/<kernel>/configs.json). A missing or malformed
// record, or a test the kernel record does not list, is an InputError
// naming the file.
void apply_run_record(CheckOptions& o, const std::string& test, const std::set<std::string>& given);

// What a measurement saw beside the metrics, for the report.
struct CheckSeen {
  LoopAnalysis loops;                             // the main loop, for a loop regression
  std::map<std::string, std::string> line_paths;  // "gelu.py" -> the path the line table names
  LineAttribution line_time;                      // the estimate by source line
};

// Runs the check `o` describes (its options as given on the command line;
// `args` the command line itself, which the check's memo keys on), prints
// its lines and writes its result; returns the exit code. Bad options throw
// UsageError, bad input files InputError.
int check_kernel(CheckOptions o, const std::vector<std::string>& args);

// Compares `current` with the baseline at o.baseline: sets the result's
// state, message and diff, appends the report's lines; returns the exit code.
int compare_with_baseline(const CheckOptions& o, const Policy& policy, const Metrics& current, const CheckSeen& seen,
                          TestResult& result, std::string& report);

// Update mode: writes `current` as the baseline unless nothing changed
// (state unchanged, the file stays byte-identical); created or updated.
int update_baseline(const CheckOptions& o, const Policy& policy, Metrics current, TestResult& result,
                    std::string& report);

// Writes the result file and prints the result's lines; returns what it printed.
std::string finish_check(const CheckOptions& o, TestResult& result, const std::string& report,
                         bool print_message = true);

}  // namespace tileperf
