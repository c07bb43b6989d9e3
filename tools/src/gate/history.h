// The history of every baseline: each committed version of each test's
// baseline (both formats: one file, or a main file and its .detail.json),
// the series of each metric with the commit where it changed, what kind of
// step each change was (toolchain bump, tuning or identity change of the
// signature, the verdict under the policy), and drift: a run of accepted
// steps, each within the metric's tolerance, that adds up past it.
//
// Built from git's history alone (no build, no toolchain). Tests are keyed
// by the name their baseline records, not by path, so that a baseline that
// moved keeps its history; one that went away ends as removed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gate/compare.h"
#include "toolchain/git.h"
#include "metrics/metrics.h"
#include "gate/policy.h"

namespace tileperf {

// A version of one test's baseline: as one commit left it.
struct BaselineVersion {
  std::size_t commit = 0;  // index into History::commits
  std::string path;        // its main file
  bool removed = false;    // the commit deleted it (metrics: the last ones before)
  Metrics metrics;
};

struct TestHistory {
  std::string test;
  std::vector<BaselineVersion> versions;  // oldest first; consecutive ones differ
};

// A version that could not be read: the commit, the file and why.
struct UnreadableVersion {
  std::size_t commit = 0;
  std::string path, error;
};

struct History {
  // Oldest first. With `has_start`, commits[0] is where the range starts
  // (its versions are the state the range began from), not a change in it.
  std::vector<GitCommit> commits;
  bool has_start = false;
  std::vector<TestHistory> tests;  // by name
  std::vector<UnreadableVersion> unreadable;
};

// The commits that changed the baselines, in order, each with the files it
// changed (its path -> blob, "" when deleted); `start`, when the range has
// a beginning, gives every file there as it was. `blob_text` gives a
// blob's text.
struct HistoryInput {
  std::optional<GitLogEntry> start;
  std::vector<GitLogEntry> log;
  std::function<std::string(const std::string& blob)> blob_text;
};
History build_history(const HistoryInput& input);

// Reads the history of the baselines under `paths` (relative to the
// repository's top folder) over `revs` (as git log takes them).
History read_history(const std::string& repo, const std::vector<std::string>& revs,
                     const std::vector<std::string>& paths);

// What moved one metric at one version, against the version before.
struct SeriesPoint {
  std::size_t version = 0;             // index into TestHistory::versions
  std::optional<std::int64_t> value;   // none: the metric (or the baseline) is gone
  std::optional<std::int64_t> before;  // none: the first value, or it appeared
  Verdict verdict = Verdict::kInfo;    // of the step under the policy (the first value: kInfo)
  std::vector<std::string> toolchain;  // toolchain_changes of the step
  SignatureChange signature = SignatureChange::kNone;
  std::vector<std::string> signature_fields;  // signature_changes of the step
  // A step that a drift run does not sum: a toolchain bump, a signature
  // change, beyond the tolerance, or the metric appearing or going away.
  bool ends_run() const;
};

struct MetricSeries {
  std::string metric;
  Direction direction = Direction::kInfo;
  std::string rule;                 // "lower is better, 1%" ("" without a rule)
  std::vector<SeriesPoint> points;  // the first value, then each change
};

// A run of steps each within the tolerance whose sum is not.
struct Drift {
  std::string metric;
  std::size_t from = 0, to = 0, crossed = 0;  // indexes into MetricSeries::points
  std::int64_t from_value = 0, to_value = 0;
  double limit = 0;  // the tolerance at from_value
};

// A version whose toolchain or signature differs from the one before,
// whether or not a metric moved.
struct VersionEvent {
  std::size_t version = 0;
  std::vector<std::string> toolchain;  // toolchain_changes
  SignatureChange signature = SignatureChange::kNone;
  std::vector<std::string> signature_fields;
};

struct TestSeries {
  const TestHistory* test = nullptr;
  std::vector<MetricSeries> metrics;  // by name
  std::vector<Drift> drifts;
  std::vector<VersionEvent> events;  // oldest first
};

// The series of one test's metrics: those matching one of `patterns` ('*'
// globs; none: every gated metric that changed), judged under `policy`.
TestSeries test_series(const TestHistory& test, const Policy& policy, const std::vector<std::string>& patterns);

// The drift runs of one series under `policy` (at most one per run of
// steps: the one that moved furthest past the limit).
std::vector<Drift> find_drifts(const MetricSeries& series, const Policy& policy);

// "lower is better, 1%", "must not grow", "exact", "informational".
std::string describe_rule(const Rule* rule);

}  // namespace tileperf
