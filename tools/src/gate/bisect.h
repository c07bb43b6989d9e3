// Exact bisection with git's own `git bisect`, run in a worktree of its
// own: git picks each commit to test and checks it out there; a judge says
// whether that commit still has the good revision's value, changed it, or
// cannot be measured (skipped, as `git bisect skip`). The numbers are
// compiler output, the same on every run, so there is no noise to vote out.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tileperf {

enum class StepKind { kSame, kChanged, kSkipped };

struct StepOutcome {
  StepKind kind = StepKind::kSkipped;
  std::string note;  // what was found ("143"), or why the commit was skipped
};

struct BisectStep {
  std::string commit;
  StepOutcome outcome;
};

struct BisectResult {
  std::optional<std::string> first;     // the first commit that changed it
  std::vector<std::string> candidates;  // skipped commits left it among these
  std::vector<BisectStep> steps;        // in the order git asked for them
};

using Judge = std::function<StepOutcome(const std::string& commit)>;

// Runs `git bisect` in `worktree` (a worktree of its own: git checks out
// each commit there) between the commits `good` and `bad`, which the caller
// has judged already; ends the bisection (git bisect reset) however it ends.
BisectResult run_git_bisect(const std::string& worktree, const std::string& good, const std::string& bad,
                            const Judge& judge);

// What `git bisect good|bad|skip` printed: the first bad commit, or the
// candidates skipped commits left, or nothing while it goes on. Exposed for
// the unit tests.
struct BisectVerdict {
  std::optional<std::string> first;
  std::vector<std::string> candidates;
  bool done() const { return first || !candidates.empty(); }
};
BisectVerdict parse_bisect_output(const std::string& out);

}  // namespace tileperf
