#include "gate/judgement.h"

#include <algorithm>
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

// The metrics the model makes from the counts: a move of these alone,
// under another version of the model, is the model's.
bool made_by_model(const std::string& name) {
  for (const char* prefix : {"cost.", "loop.", "launch."}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool only_model_moved(const Comparison& c) {
  if (!c.broken.empty() || c.changed() == 0) return false;
  return std::all_of(c.diffs.begin(), c.diffs.end(),
                     [](const MetricDiff& d) { return d.change == Change::kUnchanged || made_by_model(d.name); });
}

// The counts the estimate follows, and the model's inputs a baseline
// records, by what they are.
constexpr const char* kCounts[] = {"sass.instructions", "sass.mufu", "loop.main.ii", "loop.all.ii"};
struct ModelInput {
  const char* what;
  std::vector<std::string> metrics;  // a name ending in '.' stands for every metric under it
};
const std::vector<ModelInput>& model_inputs() {
  static const std::vector<ModelInput> kInputs = {
      {"trips", {"loop.main.trips"}},
      {"occupancy", {"launch.blocks_per_sm", "launch.occupancy_pct", "launch.occupancy_limit."}},
      {"the launch", {"launch.ctas", "launch.waves", "launch.cluster", "launch.block_classes"}},
      {"the limiting term", {"cost.limit."}},
  };
  return kInputs;
}

std::string percent_text(const MetricDiff& d) {
  return std::isinf(d.percent()) ? fmt::format("{} {:+}", d.name, d.delta())
                                 : fmt::format("{} {:+.1f}%", d.name, d.percent());
}

// The model's inputs that moved: "trips (loop.main.trips 4 -> 64)".
std::vector<std::string> moved_inputs(const Comparison& c) {
  std::vector<std::string> out;
  for (const auto& input : model_inputs()) {
    std::vector<std::string> moved;
    for (const auto& d : c.diffs) {
      if (d.change == Change::kUnchanged) continue;
      for (const auto& m : input.metrics) {
        bool under = m.back() == '.' ? d.name.rfind(m, 0) == 0 : d.name == m;
        if (under) moved.push_back(fmt::format("{} {} -> {}", d.name, d.baseline, d.current));
      }
    }
    if (!moved.empty()) out.push_back(fmt::format("{} ({})", input.what, fmt::join(moved, ", ")));
  }
  return out;
}

std::string disagreement(const Comparison& c) {
  const MetricDiff* estimate = nullptr;
  for (const auto& d : c.diffs) {
    if (d.name == kLaunchEstimate && (d.verdict == Verdict::kRegressed || d.verdict == Verdict::kImproved)) {
      estimate = &d;
    }
  }
  if (!estimate || estimate->delta() == 0) return "";
  bool up = estimate->delta() > 0;
  std::vector<std::string> against;
  for (const char* name : kCounts) {
    auto it = std::find_if(c.diffs.begin(), c.diffs.end(), [&](const MetricDiff& d) { return d.name == name; });
    if (it == c.diffs.end() || it->change == Change::kUnchanged || it->delta() == 0) continue;
    if ((it->delta() > 0) == up) return "";  // a count that moved with the estimate
    against.push_back(percent_text(*it));
  }
  if (against.empty()) return "";
  std::vector<std::string> inputs = moved_inputs(c);
  std::string why = inputs.empty()
                        ? "none of the model's inputs the baseline records moved (trips, occupancy, the launch): "
                          "the loops it matched to the kernel's, or the warps it gave them, did (tileperf loops "
                          "shows them)"
                        : fmt::format("the model's inputs that moved: {}", fmt::join(inputs, ", "));
  return fmt::format("the estimate and the counts disagree: {} while {}; {}", percent_text(*estimate),
                     fmt::join(against, ", "), why);
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
  // A baseline without a library stamp (an older release's) cannot tell.
  if (!baseline.library.empty()) j.library = library_changes(baseline, current);
  if (!baseline.model.empty() && !current.model.empty() && baseline.model != current.model) {
    j.model = baseline.model + " -> " + current.model;
  }
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
    j.unmoved = j.comparison.changed_gated() == 0 && j.comparison.broken.empty() &&
                std::none_of(j.comparison.diffs.begin(), j.comparison.diffs.end(), [](const MetricDiff& d) {
                  return d.change != Change::kUnchanged && d.name.rfind("sass.opcode.", 0) == 0;
                });
  }
  if (j.compared == State::kImproved && options.strict) j.compared = State::kStale;
  if (!j.model.empty() && j.change == SignatureChange::kNone && !options.exact && j.compared != State::kPass &&
      only_model_moved(j.comparison)) {
    j.compared = State::kModelChanged;
  } else if (!j.model.empty() && j.comparison.changed() != 0) {
    j.notes.push_back(fmt::format(
        "the model changed too (version {}): a verdict of a cost.*, loop.* or launch.* metric may be the model's",
        j.model));
  }
  j.state = j.toolchain.empty() ? j.compared : State::kToolchainChanged;
  if (j.state == State::kRegressed && !j.tuning()) j.trade_off = trade_off(j.comparison);
  if ((j.state == State::kRegressed || j.state == State::kImproved || j.state == State::kStale) && !j.tuning() &&
      j.trade_off.empty()) {
    j.disagreement = disagreement(j.comparison);
  }
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

namespace {

// `text`, then what to run about it: "<text>; <verb>: <command>".
std::string with_command(std::string text, const char* verb, const std::string& command) {
  return command.empty() ? text : fmt::format("{}; {}: {}", text, verb, command);
}

std::string toolchain_message(const Judgement& j, const std::string& command) {
  const Comparison& c = j.comparison;
  auto regressed = c.with_verdict(Verdict::kRegressed).size();
  auto improved = c.with_verdict(Verdict::kImproved).size();
  std::string preview = regressed + improved + c.broken.size() == 0
                            ? "no gated metric past its limit"
                            : fmt::format("{} metric(s) over the limit, {} improved, {} invariant(s) broken", regressed,
                                          improved, c.broken.size());
  return with_command(fmt::format("the baseline was made with another toolchain ({}); compared under the new one, "
                                  "nothing written: {}",
                                  fmt::join(j.toolchain, ", "), preview),
                      "review and update with", command);
}

std::string compiler_varies_message(const Judgement& j, const std::string& command) {
  const Comparison& c = j.comparison;
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

std::string model_changed_message(const Judgement& j, const std::string& command) {
  std::vector<std::string> moved;
  for (const auto& d : j.comparison.diffs) {
    if (d.verdict == Verdict::kRegressed || d.verdict == Verdict::kImproved) moved.push_back(percent_text(d));
  }
  return with_command(fmt::format("only the model's metrics moved, under another version of tileperf's model ({}): "
                                  "{}; every count is the baseline's",
                                  j.model, fmt::join(moved, ", ")),
                      "accept the model's estimates with", command);
}

// What is over its limit: the trade-off, the tuning change, the metrics
// over the limit (and how the launch moved), the invariants broken.
std::string over_text(const Judgement& j, const std::string& tuned) {
  const Comparison& c = j.comparison;
  auto regressed = c.with_verdict(Verdict::kRegressed);
  if (regressed.empty() && c.broken.empty()) return "";
  std::vector<std::string> what;
  if (!regressed.empty()) {
    what.push_back(fmt::format("{} metric(s) over the limit{}", regressed.size(), launch_moves(c)));
  }
  if (!c.broken.empty()) what.push_back(fmt::format("{} invariant(s) broken", c.broken.size()));
  return fmt::format("{}{}{}", j.trade_off.empty() ? "" : j.trade_off + ": ", tuned, fmt::join(what, ", "));
}

// Which of a varying compilation's variants this is, leading every message.
std::string variant_text(const Judgement& j) {
  if (j.variants == 0) return "";
  if (j.variant > 0) {
    return fmt::format(
        "the compilation of this configuration varies: this is variant {} of the {} its baseline "
        "records; ",
        j.variant, j.variants);
  }
  return fmt::format(
      "the compilation of this configuration varies ({} variants recorded), compared with the "
      "nearest, variant {}; ",
      j.variants, j.compared_with);
}

}  // namespace

std::string judgement_message(const Judgement& j, const std::string& command) {
  auto with = [&](std::string text, const char* verb) { return with_command(std::move(text), verb, command); };
  switch (j.state) {
    case State::kToolchainChanged:
      return toolchain_message(j, command);
    case State::kCompilerVaries:
      return compiler_varies_message(j, command);
    case State::kModelChanged:
      return model_changed_message(j, command);
    default:
      break;
  }
  std::string tuned =
      j.tuning() ? fmt::format("tuning change ({}), judged by the launch estimate {}: ", fmt::join(j.signature, "; "),
                               kLaunchEstimate)
                 : "";
  std::string over = over_text(j, tuned);
  // The estimate against every count, leading the message.
  std::string disagree = j.disagreement.empty() ? "" : j.disagreement + ": ";
  std::string variant = variant_text(j);
  switch (j.state) {
    case State::kSignatureChanged:
      if (j.unmoved) {
        return with(fmt::format("the signature changed ({}) and no gated metric or opcode moved: the same code",
                                fmt::join(j.signature, "; ")),
                    "accept with");
      }
      return with(fmt::format("the configuration exports another kernel than the baseline's ({}){}",
                              fmt::join(j.signature, "; "), over.empty() ? "" : "; " + over),
                  "if intended, update with");
    case State::kRegressed:
      return with(variant + disagree + over, "if intended, accept with");
    case State::kStale:
      return with(variant + disagree + tuned + "improved beyond tolerance, and strict mode fails on a stale baseline",
                  "tighten it with");
    case State::kImproved:
      return with(variant + disagree + tuned + "improved beyond tolerance", "tighten the baseline with");
    default:
      if (j.tuning()) return with(variant + tuned + "within its limit", "record the tuned configuration with");
      return variant.empty() ? "" : variant.substr(0, variant.size() - 2);
  }
}

}  // namespace tileperf
