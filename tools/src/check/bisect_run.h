// tileperf bisect's work: the first commit at which one test's metric (or
// its verdict against the good revision's baseline) changed. Each step checks
// the commit out in a worktree of its own, configures and builds it in a
// build folder of its own and runs that one test there, the result cache
// shared across steps (TILEPERF_CACHE_DIR), so an unchanged kernel costs
// nothing; the user's checkout and build are never touched.
#pragma once

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/policy.h"
#include "metrics/metrics.h"

namespace tileperf {

struct BisectOptions {
  std::string good, bad, test, metric, repo = ".", work;
  std::vector<std::string> cmake_args;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  double timeout = 3600;
  bool keep = false;
  TestId id;  // from test, filled by bisect()
};

// The perf test --test names; a UsageError unless it is one.
TestId bisected_test(const std::string& name);

// The value of an option in a command line ("" when it is not there).
std::string option_value(const nlohmann::json& command, const std::string& option);

// The ctest -R expression that selects exactly this test.
std::string ctest_regex(const TestId& id);

// What a commit's measurement is judged as against the good revision's
// baseline, without --metric: the name of the state judge() gives under
// every rule but the toolchain's (each commit is measured with the same
// tools, and the good baseline may be of another toolchain).
std::string bisect_verdict(const Metrics& good_baseline, const Metrics& measured, const Policy& policy);

// Checks the options and revisions, runs the bisection, prints each step and
// the first commit that changed; the exit code. UsageError on bad input.
int bisect(BisectOptions o);

}  // namespace tileperf
