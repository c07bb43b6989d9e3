// The outcome of one test, written next to its artifacts as
// <config>.<arch>.result.json and read back by `tileperf summary`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/compare.h"
#include "metrics/metrics.h"
#include "analysis/source_lines.h"
#include "support/states.h"
#include "support/work_paths.h"

namespace tileperf {

inline constexpr const char* kResultFormat = "tileperf-result/1";

// The metrics a result keeps (key_metrics), which each test's one-line
// summary and every report's table of all tests show, in this order.
inline constexpr const char* kKeyMetrics[] = {"sass.instructions", "sass.mufu", "regs", "local.bytes", "cubin.bytes"};

// An invariant of checks/ that does not hold.
struct BrokenInvariantRecord {
  std::string require;  // "remarks.tensor_core.failed == 0"
  std::string metric;   // the metric it is about (a set invariant's prefix)
  std::string why, origin, found;
};

struct TestResult {
  TestId id;
  State state = State::kPass;
  // The state under every rule but the toolchain's (Judgement::compared):
  // what accepting a new toolchain would give. Set by a comparison with a
  // baseline; written only when it differs from `state`.
  std::optional<State> compared;
  int exit_code = 0;
  std::string message;
  std::map<std::string, std::int64_t> key_metrics;
  std::map<std::string, double> seconds;  // dump, compile, extract, compare
  std::string cache;  // the result cache: hit, miss or off; printed, not written (it depends on the run)
  std::string run;    // the run that wrote it (see run_record.h); "" for a result of no known run
  // Set by collect_results, never written: the nearest run.json above the
  // result names another run (a partial `ctest -R` left this one behind).
  bool earlier_run = false;
  std::string file;                           // the result file it was read from (collect_results); never written
  std::vector<MetricDiff> diff;               // metrics that moved, and every one over its limit
  std::vector<BrokenInvariantRecord> broken;  // invariants that do not hold
  std::vector<LineMove> lines;                // source lines that gained or lost instructions, most first
  std::vector<std::string> notes;             // diagnostics, never gating
  // State toolchain changed: what differs from the baseline's toolchain
  // ("tileiras 13.4.92 -> 13.5.37"); the diff then previews the new one.
  std::vector<std::string> toolchain_change;
  // A tuning change (only constants and hints moved): the fields that did,
  // as "parameters[5].value: 64 -> 128"; judged by the launch estimate.
  std::vector<std::string> tuning;
  // The library the kernel's code belongs to (Metrics::library), and how it
  // differs from the baseline's ("flashinfer-python 0.7.2.post1 -> 0.7.4");
  // the model's version when it differs ("1 -> 2"); whether a signature
  // change moved no gated metric. What `tileperf summary` groups a bump by.
  std::map<std::string, std::string> library;
  std::vector<std::string> library_change;
  std::string model_change;
  bool unmoved = false;
  // The launch estimate in one line ("est. 352 us, latency-bound: 1
  // block(s)/SM (registers), 249 wave(s), DRAM 9% busy, L2 6%"); "" without one.
  std::string launch;

  void set_diff(const Comparison& c);
  // The first kMaxLines moves, each with its source text where the file is at hand.
  void set_lines(std::vector<LineMove> moves, const std::map<std::string, std::string>& paths);
  static constexpr std::size_t kMaxLines = 12;
};

nlohmann::json to_json(const TestResult& r);
TestResult result_from_json(const nlohmann::json& j, const std::string& filename);

// Every *.result.json under the folders, sorted by test name. A test found
// twice (two shards that both ran it) is an InputError naming both files.
// Each result whose nearest run.json (from its folder up to the folder
// given) names another run is marked earlier_run.
std::vector<TestResult> collect_results(const std::vector<std::string>& dirs);

// Whether a test that cannot run must fail rather than be skipped: in CI
// (the environment variable CI set to anything but "", "0" or "false").
bool every_test_must_run();

// The record of `kind` (format `format`) that a check wrote beside its
// result file (<prefix>.result.json), when it is there; null, with
// `problem` saying why, when one is there that cannot be read.
nlohmann::json record_beside(const std::string& result_file, FileKind kind, const std::string& format,
                             std::string& problem);

}  // namespace tileperf
