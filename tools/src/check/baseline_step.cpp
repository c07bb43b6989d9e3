// A check's step against its baseline: update it, or compare with it
// (kernel_check.h).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "check/kernel_check.h"
#include "gate/baseline.h"
#include "gate/compare.h"
#include "gate/judgement.h"
#include "gate/policy.h"
#include "report/comparison_text.h"
#include "report/investigation_text.h"
#include "results/result.h"
#include "support/error.h"
#include "support/process.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace fs = std::filesystem;

namespace {

bool same_toolchain(const Metrics& a, const Metrics& b) { return a.toolchain == b.toolchain && a.flags == b.flags; }

std::string toolchain_text(const Metrics& m) {
  std::string out;
  for (const auto& [tool, version] : m.toolchain) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", tool, version);
  }
  return out;
}

bool record_variant_requested() {
  const char* v = std::getenv("TILEPERF_RECORD_VARIANT");
  return v && *v && std::string(v) != "0";
}

// Update mode for a baseline that records what was compiled (a
// configuration whose compilation varies), or when a new variant is to be
// recorded: nullopt when the usual update applies (other bytecode: the code
// changed, and the old variants with it). A known variant whose metrics
// moved (tileperf measures otherwise) is rewritten in place; a new cubin of
// the same bytecode is recorded only when asked (TILEPERF_RECORD_VARIANT=1),
// else the state is compiler varies and nothing is written.
std::optional<int> update_variants(const CheckOptions& o, const Policy& policy, Metrics& old, const Metrics& current,
                                   TestResult& result) {
  bool asked = record_variant_requested();
  if (old.bytecode.empty() && !asked) return std::nullopt;
  if (!old.bytecode.empty() && old.bytecode != current.bytecode) return std::nullopt;
  if (old.toolchain != current.toolchain || old.flags != current.flags || old.signature != current.signature) {
    return std::nullopt;
  }
  old.bytecode = current.bytecode;
  if (old.cubin.empty() && old.values == current.values) old.cubin = current.cubin;  // it is the baseline's own
  std::vector<Metrics> known = known_variants(old);
  for (std::size_t k = 0; k < known.size(); ++k) {
    if (known[k].cubin != current.cubin) continue;
    // The variant met is measured again, under this model; the others keep
    // their estimates as measured, each with the model that measured it.
    std::string was = known[k].model;
    for (auto& v : old.variants) {
      if (!v.model) v.model = old.model;
    }
    if (k == 0) {
      old.values = current.values, old.lines = current.lines, old.line_text = current.line_text;
      old.model = current.model;
    } else {
      old.variants[k - 1].values = current.values;
      old.variants[k - 1].model = current.model;
    }
    // Every variant, the one met aside, whose estimate another model measured.
    std::vector<std::string> other_models;
    for (std::size_t j = 0; j < known.size(); ++j) {
      const std::string& model = j == 0 ? old.model : *old.variants[j - 1].model;
      if (j != k && model != current.model) {
        other_models.push_back(fmt::format("{} (model {})", j + 1, model.empty() ? "none" : model));
      }
    }
    for (auto& v : old.variants) {
      if (*v.model == old.model) v.model.reset();
    }
    old.library = current.library;
    old.generator = current.generator;
    if (baseline_is(o.baseline, old, policy)) {
      result.state = State::kUnchanged;
    } else {
      result.state = State::kUpdated;
      result.message = fmt::format("variant {} of {} of this varying compilation written", k + 1, known.size());
      if (was != current.model) {
        result.message += fmt::format("; model: {} -> {}", was.empty() ? "none" : was, current.model);
      }
      if (!other_models.empty()) {
        bool one = other_models.size() == 1;
        result.message +=
            fmt::format("; {} {} {} until met again", one ? "variant" : "variants", fmt::join(other_models, ", "),
                        one ? "keeps the estimate it was measured with" : "keep the estimates they were measured with");
      }
      write_baseline(o.baseline, old, policy);
    }
    return kExitOk;
  }
  if (!asked) {
    result.state = State::kCompilerVaries;
    result.message = fmt::format(
        "the compiler varies: the bytecode of the baseline's {} recorded variants gave another cubin "
        "(SHA-256 {}); nothing written; to record it as one more variant: TILEPERF_RECORD_VARIANT=1 {}",
        known.size(), current.cubin.substr(0, 16), o.update_command);
    return state_info(result.state).exit_code;
  }
  std::optional<std::string> model;
  if (current.model != old.model) model = current.model;
  old.variants.push_back({.cubin = current.cubin, .values = current.values, .model = model});
  result.state = State::kUpdated;
  result.message = fmt::format("recorded a new variant of this compilation: {} of {} (cubin SHA-256 {})",
                               known.size() + 1, known.size() + 1, current.cubin.substr(0, 16));
  write_baseline(o.baseline, old, policy);
  return kExitOk;
}

}  // namespace

// Update mode: rewrite the baseline unless nothing at all changed (then the
// file stays byte-identical). The verdicts of what moved are kept for the
// review of the update (a toolchain bump, say): regressed, improved, ok.
int update_baseline(const CheckOptions& o, const Policy& policy, Metrics current, TestResult& result,
                    std::string& report) {
  current.generator = fmt::format("tileperf {} update_baselines", TILEPERF_VERSION);
  if (fs::exists(o.baseline)) {
    Metrics old = read_baseline(o.baseline);
    if (auto code = update_variants(o, policy, old, current, result)) return *code;
    Comparison c = compare_metrics(old, current, policy);
    // Unchanged only when every metric is: a metric that appears or goes
    // away with the value 0 is a change too.
    if (old.values == current.values && old.lines == current.lines && same_toolchain(old, current) &&
        old.signature == current.signature && old.generator == current.generator &&
        baseline_is(o.baseline, current, policy)) {
      result.state = State::kUnchanged;
      return kExitOk;
    }
    result.set_diff(c);
    result.state = State::kUpdated;
    result.message = fmt::format("{} metric(s) moved", c.changed());
    if (auto moves = line_moves(old.lines, current.lines, old.line_text, current.line_text); !moves.empty()) {
      result.message += fmt::format("; {} source line(s) changed their instruction count", moves.size());
    }
    if (!same_toolchain(old, current)) {
      result.message += fmt::format("; toolchain was: {}; now: {}", toolchain_text(old), toolchain_text(current));
    }
    if (auto changes = signature_changes(old, current); !changes.empty()) {
      result.message += fmt::format("; signature changed: {}", fmt::join(changes, "; "));
    }
    if (auto changes = library_changes(old, current); !changes.empty()) {
      result.message += fmt::format("; library: {}", fmt::join(changes, ", "));
    }
    if (old.model != current.model) {
      result.message += fmt::format("; model: {} -> {}", old.model.empty() ? "none" : old.model, current.model);
    }
    if (!old.variants.empty()) {
      result.message +=
          fmt::format("; the {} variants recorded for the old bytecode are dropped", old.variants.size() + 1);
    }
    report = format_diff_table(c.diffs, o.verbose);
  } else {
    result.state = State::kCreated;
  }
  write_baseline(o.baseline, current, policy);
  return kExitOk;
}

namespace {

// Another toolchain than the baseline's: the test fails (a bump is a
// reviewed step), and the metrics are compared under the usual policies all
// the same, as the preview of what accepting the new toolchain moves; the
// verdicts stay in the result for `tileperf summary` and `tileperf preview`.
void report_toolchain_change(const CheckOptions& o, const Metrics& baseline, const Metrics& current, const Judgement& j,
                             const CheckSeen& seen, TestResult& result, std::string& report) {
  const Comparison& c = j.comparison;
  result.toolchain_change = j.toolchain;
  report = format_broken(c.broken) + format_diff_table(c.diffs, o.verbose);
  if (c.changed_gated() != 0) {
    result.set_lines(line_moves(baseline.lines, current.lines, baseline.line_text, current.line_text), seen.line_paths);
    add_line_time(result.lines, seen.line_time);
    report += format_line_moves(result.lines, seen.line_time.term);
  }
}

}  // namespace

int compare_with_baseline(const CheckOptions& o, const Policy& policy, const Metrics& current, const CheckSeen& seen,
                          TestResult& result, std::string& report) {
  if (!fs::exists(o.baseline)) {
    result.state = State::kNew;
    result.message = fmt::format("no baseline at {}; create it with: {}", o.baseline, o.update_command);
    return state_info(result.state).exit_code;
  }
  auto t = std::chrono::steady_clock::now();
  Metrics baseline = read_baseline(o.baseline);
  Judgement j = judge(baseline, current, policy, {o.exact, o.strict});
  const Comparison& c = j.comparison;
  result.state = j.state;
  result.compared = j.compared;
  result.message = judgement_message(j, o.update_command);
  result.notes.insert(result.notes.end(), j.notes.begin(), j.notes.end());
  result.set_diff(c);
  result.library_change = j.library;
  result.model_change = j.model;
  result.unmoved = j.unmoved;
  if (j.state == State::kToolchainChanged) {
    report_toolchain_change(o, baseline, current, j, seen, result, report);
    return j.exit_code();
  }
  result.seconds["compare"] = seconds_since(t);
  if (j.tuning()) result.tuning = j.signature;
  for (const auto& line : split(format_broken(j.undecided), '\n')) {
    if (!trim(line).empty()) result.notes.push_back("not deciding a tuning change: " + trim(line));
  }
  report = format_broken(c.broken) + format_diff_table(c.diffs, o.verbose);
  bool loop_moved = std::any_of(c.diffs.begin(), c.diffs.end(), [](const MetricDiff& d) {
    return d.delta() != 0 && d.direction != Direction::kInfo &&
           (d.name.rfind("loop.", 0) == 0 || d.name.rfind("cost.", 0) == 0);
  });
  if (loop_moved) report += format_main_loop(seen.loops);
  if (c.changed_gated() != 0) {
    result.set_lines(line_moves(baseline.lines, current.lines, baseline.line_text, current.line_text), seen.line_paths);
    add_line_time(result.lines, seen.line_time);
    report += format_line_moves(result.lines, seen.line_time.term);
  }
  if (c.state == State::kRegressed || j.state == State::kSignatureChanged || j.state == State::kCompilerVaries) {
    report += fmt::format("  listing: {}\n", o.shown_path(prefixed_file(o.prefix(), FileKind::kSass)));
  }
  if (c.state == State::kRegressed) {
    report += fmt::format("  what to try, without a GPU: {}\n", investigate_command(o.id.name()));
  }
  return j.exit_code();
}

}  // namespace tileperf
