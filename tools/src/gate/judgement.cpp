#include "gate/judgement.h"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "metrics/remark_metrics.h"
#include "readers/remarks.h"

namespace tileperf {

namespace {

// Only the launch estimate decides: every other verdict becomes
// informational, and the state follows the estimate (and the invariants).
void judge_as_tuning(Comparison& c) {
  bool regressed = false, improved = false;
  for (auto& d : c.diffs) {
    if (d.name == kLaunchEstimate) {
      regressed = d.verdict == Verdict::kRegressed;
      improved = d.verdict == Verdict::kImproved;
    } else if (d.verdict == Verdict::kRegressed || d.verdict == Verdict::kImproved) {
      d.verdict = Verdict::kInfo;
    }
  }
  c.state = regressed ? State::kRegressed : improved ? State::kImproved : State::kPass;
}

// A metric every measurement writes (a remark count, 0 when tileiras says
// nothing) that the baseline lacks was not reported by the old toolchain:
// informational, with a note; the comparison's state follows.
void unjudge_new_remarks(Comparison& c, std::vector<std::string>& notes) {
  const auto always = remark_metrics({});
  bool moved = false;
  for (auto& d : c.diffs) {
    if (d.change != Change::kNew || !always.count(d.name) || d.direction == Direction::kInfo) continue;
    moved = moved || d.verdict != Verdict::kInfo;
    d.verdict = Verdict::kInfo;
    notes.push_back(
        fmt::format("{} is new with this toolchain ({} now; the baseline's did not report it): "
                    "not judged",
                    d.name, d.current));
  }
  if (!moved || c.state == State::kPass) return;
  c.state = !c.with_verdict(Verdict::kRegressed).empty() || !c.broken.empty() ? State::kRegressed
            : !c.with_verdict(Verdict::kImproved).empty()                     ? State::kImproved
                                                                              : State::kPass;
}

// The most a trade-off line names of the metrics that regressed.
constexpr std::size_t kTradeOffMetrics = 3;

std::string trade_off(const Comparison& c) {
  const MetricDiff* estimate = nullptr;
  std::vector<std::string> worse;
  for (const auto& d : c.diffs) {
    if (d.name == kLaunchEstimate && d.verdict == Verdict::kImproved) estimate = &d;
    if (d.verdict == Verdict::kRegressed && worse.size() < kTradeOffMetrics) {
      worse.push_back(std::isinf(d.percent()) ? fmt::format("{} {:+}", d.name, d.delta())
                                              : fmt::format("{} {:+.1f}%", d.name, d.percent()));
    }
  }
  if (!estimate || worse.empty()) return "";
  std::size_t more = c.with_verdict(Verdict::kRegressed).size() - worse.size();
  return fmt::format("estimated {:.1f}% faster ({} {} -> {}) while {}{}", -estimate->percent(), estimate->name,
                     estimate->baseline, estimate->current, fmt::join(worse, ", "),
                     more ? fmt::format(" (and {} more)", more) : std::string());
}

Judgement judge_one(const Metrics& baseline, const Metrics& current, const Policy& policy, JudgeOptions options);

// How far a judgement is from a pass, to pick the nearest variant.
std::pair<int, std::size_t> distance(const Judgement& j) {
  int rank = j.compared == State::kPass        ? 0
             : j.compared == State::kImproved  ? 1
             : j.compared == State::kStale     ? 2
             : j.compared == State::kRegressed ? 3
                                               : 4;
  return {rank, j.comparison.with_verdict(Verdict::kRegressed).size() + j.comparison.broken.size() +
                    static_cast<std::size_t>(j.comparison.changed())};
}

Judgement judge_variants(const Metrics& baseline, const Metrics& current, const Policy& policy, JudgeOptions options) {
  std::vector<Metrics> known = known_variants(baseline);
  for (std::size_t k = 0; k < known.size(); ++k) {
    if (current.cubin.empty() || known[k].cubin != current.cubin) continue;
    Judgement j = judge_one(known[k], current, policy, options);
    j.variants = known.size();
    j.variant = j.compared_with = k + 1;
    return j;
  }
  std::optional<Judgement> best;
  for (std::size_t k = 0; k < known.size(); ++k) {
    Judgement j = judge_one(known[k], current, policy, options);
    j.compared_with = k + 1;
    if (!best || distance(j) < distance(*best)) best = std::move(j);
  }
  Judgement j = std::move(*best);
  j.variants = known.size();
  const Metrics& nearest = known[j.compared_with - 1];
  bool same_input = !current.bytecode.empty() && current.bytecode == baseline.bytecode && !current.cubin.empty();
  if (same_input && nearest.values != current.values && j.change == SignatureChange::kNone) {
    j.compared = State::kCompilerVaries;
    j.new_cubin = current.cubin;
    j.trade_off.clear();
    if (j.toolchain.empty()) j.state = State::kCompilerVaries;
  }
  return j;
}

}  // namespace

Judgement judge(const Metrics& baseline, const Metrics& current, const Policy& policy, JudgeOptions options) {
  if (!baseline.variants.empty()) return judge_variants(baseline, current, policy, options);
  return judge_one(baseline, current, policy, options);
}

namespace {

Judgement judge_one(const Metrics& baseline, const Metrics& current, const Policy& policy, JudgeOptions options) {
  Judgement j;
  j.comparison = compare_metrics(baseline, current, policy, options.exact);
  j.signature = signature_changes(baseline, current);
  j.change = classify_signature(baseline, current);
  j.toolchain = toolchain_changes(baseline, current);
  if (!j.toolchain.empty()) unjudge_new_remarks(j.comparison, j.notes);
  j.compared = j.comparison.state;
  bool estimated = baseline.values.count(kLaunchEstimate) && current.values.count(kLaunchEstimate);
  if (j.change == SignatureChange::kTuning && estimated && !options.exact) {
    // The policy's invariants pin per-configuration facts (TMA boxes, a
    // spill pair) that a retuned configuration changes: shown, not deciding.
    j.undecided = std::move(j.comparison.broken);
    j.comparison.broken.clear();
    judge_as_tuning(j.comparison);
    j.compared = j.comparison.state;
  } else if (j.change != SignatureChange::kNone) {
    j.compared = State::kSignatureChanged;
  }
  if (j.compared == State::kImproved && options.strict) j.compared = State::kStale;
  j.state = j.toolchain.empty() ? j.compared : State::kToolchainChanged;
  if (j.state == State::kRegressed && !j.tuning()) j.trade_off = trade_off(j.comparison);
  return j;
}

}  // namespace

std::string launch_moves(const Comparison& c) {
  bool cost = false;
  for (const auto* d : c.with_verdict(Verdict::kRegressed)) cost = cost || d->name.rfind("cost.", 0) == 0;
  if (!cost) return "";
  std::vector<std::string> moved;
  std::string limit_from, limit_to;
  for (const auto& d : c.diffs) {
    if (d.change == Change::kUnchanged) continue;
    if (d.name == "launch.ctas" || d.name == "launch.blocks_per_sm" || d.name == "launch.waves" ||
        d.name == "launch.cluster") {
      moved.push_back(fmt::format("{} {} -> {}", d.name, d.baseline, d.current));
    } else if (d.name.rfind("cost.limit.", 0) == 0) {
      (d.change == Change::kRemoved ? limit_from : limit_to) = d.name.substr(11);
    }
  }
  if (!limit_from.empty() || !limit_to.empty()) {
    moved.push_back(fmt::format("limiting term {} -> {}", limit_from.empty() ? "?" : limit_from,
                                limit_to.empty() ? "?" : limit_to));
  }
  return moved.empty() ? "" : fmt::format(" (the launch moved: {})", fmt::join(moved, ", "));
}

std::string judgement_message(const Judgement& j, const std::string& command) {
  const Comparison& c = j.comparison;
  auto with = [&](std::string text, const char* verb) {
    return command.empty() ? text : fmt::format("{}; {}: {}", text, verb, command);
  };
  auto regressed = c.with_verdict(Verdict::kRegressed);
  if (j.state == State::kToolchainChanged) {
    auto improved = c.with_verdict(Verdict::kImproved).size();
    std::string preview = regressed.size() + improved + c.broken.size() == 0
                              ? "no gated metric past its limit"
                              : fmt::format("{} metric(s) over the limit, {} improved, {} invariant(s) broken",
                                            regressed.size(), improved, c.broken.size());
    return with(fmt::format("the baseline was made with another toolchain ({}); compared under the new one, "
                            "nothing written: {}",
                            fmt::join(j.toolchain, ", "), preview),
                "review and update with");
  }
  std::string tuned =
      j.tuning() ? fmt::format("tuning change ({}), judged by the launch estimate {}: ", fmt::join(j.signature, "; "),
                               kLaunchEstimate)
                 : "";
  std::string over;  // what is over its limit
  if (!regressed.empty() || !c.broken.empty()) {
    std::vector<std::string> what;
    if (!regressed.empty()) {
      what.push_back(fmt::format("{} metric(s) over the limit{}", regressed.size(), launch_moves(c)));
    }
    if (!c.broken.empty()) what.push_back(fmt::format("{} invariant(s) broken", c.broken.size()));
    over = fmt::format("{}{}{}", j.trade_off.empty() ? "" : j.trade_off + ": ", tuned, fmt::join(what, ", "));
  }
  // Which of a varying compilation's variants this is, leading every message.
  std::string variant = j.variants == 0 ? ""
                        : j.variant > 0 ? fmt::format(
                                              "the compilation of this configuration varies: this is variant {} "
                                              "of the {} its baseline records; ",
                                              j.variant, j.variants)
                                        : fmt::format(
                                              "the compilation of this configuration varies ({} variants "
                                              "recorded), compared with the nearest, variant {}; ",
                                              j.variants, j.compared_with);
  switch (j.state) {
    case State::kCompilerVaries: {
      std::vector<std::string> moved;
      for (const auto& d : c.diffs) {
        if (d.change != Change::kUnchanged && moved.size() < 4) {
          moved.push_back(fmt::format("{} {} -> {}", d.name, d.baseline, d.current));
        }
      }
      std::size_t more = static_cast<std::size_t>(c.changed()) - std::min<std::size_t>(moved.size(), c.changed());
      std::string text = fmt::format(
          "the compiler varies: the bytecode its {} recorded variants were compiled from gave another cubin "
          "(SHA-256 {}), whose metrics are none of theirs; against the nearest, variant {}: {}{}",
          j.variants, j.new_cubin.substr(0, 16), j.compared_with, fmt::join(moved, ", "),
          more ? fmt::format(" (and {} more)", more) : std::string());
      return command.empty() ? text
                             : fmt::format(
                                   "{}; if it is another variant of the same code, record it with: "
                                   "TILEPERF_RECORD_VARIANT=1 {}",
                                   text, command);
    }
    case State::kSignatureChanged:
      return with(fmt::format("the configuration exports another kernel than the baseline's ({}){}",
                              fmt::join(j.signature, "; "), over.empty() ? "" : "; " + over),
                  "if intended, update with");
    case State::kRegressed:
      return with(variant + over, "if intended, accept with");
    case State::kStale:
      return with(variant + tuned + "improved beyond tolerance, and strict mode fails on a stale baseline",
                  "tighten it with");
    case State::kImproved:
      return with(variant + tuned + "improved beyond tolerance", "tighten the baseline with");
    default:
      if (j.tuning()) return with(variant + tuned + "within its limit", "record the tuned configuration with");
      return variant.empty() ? "" : variant.substr(0, variant.size() - 2);
  }
}

}  // namespace tileperf
