// What a merge request changes, for its review. Two parts, each a list of
// results made from comparisons, so that every renderer shows them with the
// same view as the run itself:
// - the baselines it rewrote: each baseline file of the merge base against
//   the branch's own (what an update accepted, regressions included);
// - where its results stand against the merge base's baselines, whatever
//   the branch's own baselines say.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results/result.h"

namespace tileperf {

struct ReviewInputs {
  std::string base_baselines;     // the merge base's baseline folder
  std::string baselines;          // the branch's ("": only the comparison against the base)
  std::string checks = "checks";  // the policies (the branch's checks/)
};

struct Review {
  // One per baseline that differs, by name. State: created (added), regressed
  // (an accepted regression), improved, pass (moved within limits or only
  // informational metrics), toolchain or signature changed (named in the
  // message, the metrics compared all the same).
  std::vector<TestResult> accepted;
  std::vector<std::string> removed;  // tests whose baseline the branch deleted
  // One per result with a metrics file: new (the base has no baseline),
  // regressed, improved or pass against the base's baseline.
  std::vector<TestResult> against_base;
  std::size_t unmeasured = 0;  // results without a metrics file (skipped, failed early)
};

// Reads the baselines (errors name the file) and each result's metrics
// file beside it (<config>.<arch>.metrics.json).
Review make_review(const std::vector<TestResult>& results, const ReviewInputs& in);

}  // namespace tileperf
