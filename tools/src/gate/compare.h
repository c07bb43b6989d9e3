// Comparison of current metrics with a baseline under a policy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/metrics.h"
#include "gate/policy.h"
#include "support/states.h"

namespace tileperf {

enum class Change { kUnchanged, kChanged, kNew, kRemoved };
enum class Verdict { kOk, kImproved, kRegressed, kInfo };

struct MetricDiff {
  std::string name;
  std::int64_t baseline = 0;  // 0 when the baseline lacks the metric
  std::int64_t current = 0;   // 0 when the current run lacks it
  Change change = Change::kUnchanged;
  Direction direction = Direction::kInfo;
  double limit = 0;  // allowed change in the bad direction
  Verdict verdict = Verdict::kOk;

  // current - baseline, held at +-INT64_MAX where it would overflow (its
  // sign stays right).
  std::int64_t delta() const;
  // Signed percent change; +inf when the baseline is 0 and current is not.
  double percent() const;
};

struct Comparison {
  std::vector<MetricDiff> diffs;        // every metric of either side, sorted by impact
  std::vector<BrokenInvariant> broken;  // invariants of the policy that do not hold
  State state = State::kPass;           // kPass, kImproved or kRegressed
  std::size_t changed() const;
  std::size_t changed_gated() const;  // moved metrics that are not informational
  std::vector<const MetricDiff*> with_verdict(Verdict v) const;
};

// With `exact`, any change of any metric, informational ones included,
// counts as a regression (used to prove that an edit moves nothing). A broken
// invariant of the policy makes the state regressed whatever the baseline says.
Comparison compare_metrics(const Metrics& baseline, const Metrics& current, const Policy& policy, bool exact = false);

// Names in result files and reports.
const char* change_name(Change c);
const char* verdict_name(Verdict v);
Change change_from_name(const std::string& name);    // kChanged for an unknown name
Verdict verdict_from_name(const std::string& name);  // kInfo for an unknown name

}  // namespace tileperf
