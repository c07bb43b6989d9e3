// A bump reviewed once: the tests of a run whose baselines were made with
// another release of the library their kernels belong to, or with another
// version of tileperf's model, grouped by what moved in each; and the tests
// whose signature changed with no gated metric moved. `tileperf summary`
// shows each group once, with the one command that accepts it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results/result.h"

namespace tileperf {

// What moved in one test of a bump.
enum class BumpMove {
  kNew,        // no baseline: a kernel the old release did not have
  kSignature,  // the configuration exports another kernel
  kCounts,     // the compiler's counts moved (the code changed)
  kEstimate,   // only the model's metrics moved (cost.*, loop.*, launch.*)
  kNothing,    // no metric moved
};

struct BumpGroup {
  std::string what;                      // "flashinfer-python 0.7.2.post1 -> 0.7.4", "tileperf's model 1 -> 2"
  std::vector<const TestResult*> tests;  // by name
  std::size_t signature_unmoved = 0;     // of kSignature: no gated metric moved
  // Tests by what moved, and by state within each.
  std::size_t moved(BumpMove m) const;
  std::size_t moved(BumpMove m, State s) const;
  std::vector<BumpMove> moves;  // each test's, in the order of `tests`
};

BumpMove bump_move(const TestResult& r);

// One group per library release change (a test whose kernel belongs to the
// library and which has no baseline joins its library's group: a new
// kernel), then one per model version change; each test once per group.
std::vector<BumpGroup> make_bumps(const std::vector<const TestResult*>& results);

// The tests whose signature changed and moved no gated metric.
std::vector<const TestResult*> unmoved_signatures(const std::vector<const TestResult*>& results);

// A TILEPERF_FILTER regex that selects exactly these tests, grouped by
// kernel ("^perf\.(gemm\.(a\.sm_90|b\.sm_90)|moe\.c\.sm_100)$").
std::string tests_filter(const std::vector<const TestResult*>& tests);

}  // namespace tileperf
