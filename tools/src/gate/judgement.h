// The one decision: the final state of a test's metrics against its
// baseline, its exit code and its message. `tileperf check`, `compare`, the
// merge-request review, `diff`, the toolchain preview and `bisect` all take
// their state from judge() and their exit code from the states table;
// none adjusts it afterwards.
#pragma once

#include <string>
#include <vector>

#include "gate/compare.h"
#include "gate/policy.h"
#include "support/states.h"
#include "metrics/metrics.h"

namespace tileperf {

// The launch model's estimate: what alone decides a tuning change.
inline constexpr const char* kLaunchEstimate = "cost.time_ns";

struct JudgeOptions {
  bool exact = false;   // any change of any metric, informational ones included, regresses (no-op edits)
  bool strict = false;  // an improvement beyond tolerance fails as stale: the baseline must be tightened
};

// The precedence, highest first:
//   toolchain changed (other tool versions or flags: the metrics are a
//   preview) > signature changed (an identity change: another kernel) >
//   regressed > stale (improved, in strict mode) > improved > pass.
// A tuning change (classify_signature: only constant values and compiler
// hints moved) is the same kernel tuned: it is judged on the launch estimate
// alone; every other metric's verdict and the policy's invariants are shown,
// not deciding. A tuning change against a baseline without a launch estimate
// cannot be judged so: signature changed. When the toolchain moved, a
// remark metric that every measurement writes and the baseline lacks was not
// reported by the old toolchain: shown (a note), not judged.
struct Judgement {
  State state = State::kPass;
  // The state under every rule but the toolchain's: what accepting the new
  // toolchain would give (the toolchain preview), and what a bisection under
  // one toolchain compares. Equal to `state` when the toolchain is the same.
  State compared = State::kPass;
  Comparison comparison;
  std::vector<std::string> toolchain;  // toolchain_changes, when the toolchain moved
  std::vector<std::string> signature;  // signature_changes, when the signature moved
  SignatureChange change = SignatureChange::kNone;
  std::vector<BrokenInvariant> undecided;  // a tuning change's broken invariants: shown, not deciding
  std::vector<std::string> notes;          // metrics new with this toolchain: not judged
  // A code change whose counts regress while the launch estimate improves
  // past its limit: it fails (counts are gated), and every message leads
  // with the trade-off: "estimated 18.2% faster (cost.time_ns 2250000 ->
  // 1840000) while sass.instructions +45.0%, loop.main.ii +93.0%". Empty
  // otherwise.
  std::string trade_off;
  // A baseline that records several variants of its compilation (a
  // configuration whose compilation varies): how many, the one the current
  // cubin is (0: none), and the one it was compared with (the nearest, when
  // it is none of them).
  std::size_t variants = 0, variant = 0, compared_with = 0;
  std::string new_cubin;  // compiler varies: the unknown cubin's SHA-256
  bool tuning() const { return change == SignatureChange::kTuning && compared != State::kSignatureChanged; }
  int exit_code() const { return state_info(state).exit_code; }
};

// A baseline with variants (Metrics::variants): the current cubin, when it is
// one of them, is judged against that one's metrics; otherwise against the
// nearest (the best state, then the fewest metrics past their limit). A
// cubin that is none of them, compiled from the very bytecode the variants
// were recorded for, is the compiler varying (compiler varies), unless its
// metrics are exactly those of one of them; from other bytecode, a change
// judged as usual. A baseline without variants is judged as it always was.
Judgement judge(const Metrics& baseline, const Metrics& current, const Policy& policy, JudgeOptions options = {});

// Why the judgement ends in its state, as one line ("" for a pass that
// records nothing): what is over its limit, the signature or toolchain that
// moved, the tuning rule; with `command`, followed by the command that
// accepts, tightens or records it ("if intended, accept with: ...").
std::string judgement_message(const Judgement& j, const std::string& command = "");

// The launch facts that moved behind a regressed estimate (" (the launch
// moved: launch.ctas 528 -> 132, limiting term l2 -> latency)"): the grid,
// the blocks per SM, the waves and the estimate's limiting term; empty when
// no cost metric regressed.
std::string launch_moves(const Comparison& c);

}  // namespace tileperf
