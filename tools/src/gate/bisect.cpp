#include "gate/bisect.h"

#include "support/error.h"
#include "toolchain/git.h"
#include "support/text.h"

namespace tileperf {

namespace {

bool is_hex_id(const std::string& s) {
  return s.size() >= 40 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

const char* bisect_term(StepKind kind) {
  switch (kind) {
    case StepKind::kSame:
      return "good";
    case StepKind::kChanged:
      return "bad";
    case StepKind::kSkipped:
      return "skip";
  }
  return "skip";
}

// One `git bisect <term>`: what git said (it exits 2 when only skipped
// commits are left, which parse_bisect_output reads).
std::string bisect_call(const std::string& worktree, const std::vector<std::string>& args) {
  ProcessResult r = run_git(worktree, args);
  if (r.exit_code != 0 && r.exit_code != 2) {
    throw ToolError("git " + args[0] + " " + args[1] + " in " + worktree + ": " + trim(r.err + r.out));
  }
  return r.out + r.err;
}

// Ends the bisection however the loop ended.
class BisectSession {
 public:
  explicit BisectSession(std::string worktree) : worktree_(std::move(worktree)) {}
  ~BisectSession() { run_git(worktree_, {"bisect", "reset"}); }

 private:
  std::string worktree_;
};

}  // namespace

BisectVerdict parse_bisect_output(const std::string& out) {
  BisectVerdict v;
  bool listing = false;
  for (const auto& raw : split(out, '\n')) {
    std::string line = trim(raw);
    const std::string first = " is the first bad commit";
    if (line.ends_with(first) && is_hex_id(line.substr(0, line.size() - first.size()))) {
      v.first = line.substr(0, line.size() - first.size());
      return v;
    }
    if (line.starts_with("The first bad commit could be any of"))
      listing = true;
    else if (listing && is_hex_id(line))
      v.candidates.push_back(line);
    else
      listing = false;
  }
  return v;
}

BisectResult run_git_bisect(const std::string& worktree, const std::string& good, const std::string& bad,
                            const Judge& judge) {
  BisectResult result;
  run_git(worktree, {"bisect", "reset"});  // a bisection an interrupted run left behind
  BisectSession session(worktree);
  BisectVerdict verdict = parse_bisect_output(bisect_call(worktree, {"bisect", "start", bad, good, "--"}));
  while (!verdict.done()) {
    std::string commit = trim(git_output(worktree, {"rev-parse", "HEAD"}));
    StepOutcome outcome = judge(commit);
    result.steps.push_back({commit, outcome});
    verdict = parse_bisect_output(bisect_call(worktree, {"bisect", bisect_term(outcome.kind), commit}));
  }
  result.first = verdict.first;
  result.candidates = verdict.candidates;
  return result;
}

}  // namespace tileperf
