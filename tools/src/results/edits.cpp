#include "results/edits.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "gate/judgement.h"
#include "support/error.h"
#include "metrics/metrics.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

// Metrics the check names as failing: those over their limit, and the
// metric (or set prefix) of each broken invariant.
std::set<std::string> failing_metrics(const TestResult& r) {
  std::set<std::string> names;
  for (const auto& d : r.diff) {
    if (d.verdict == Verdict::kRegressed) names.insert(d.name);
  }
  for (const auto& b : r.broken) names.insert(b.metric);
  return names;
}

EditVerdict judge_tuning(const std::string& want, const TestResult& r) {
  if (r.tuning.empty()) return {false, fmt::format("not a tuning change (state {})", state_name(r.state))};
  if (state_name(r.state) != want) {
    return {false, fmt::format("judged {} by the launch estimate, not {}", state_name(r.state), want)};
  }
  return {true, "caught"};
}

EditVerdict judge_mutant(const EditExpectation& edit, const TestResult& r) {
  if (edit.metrics.size() == 2 && edit.metrics[0] == kTuningExpectation) return judge_tuning(edit.metrics[1], r);
  if (edit.metrics == std::vector<std::string>{kSignatureExpectation}) {
    if (r.state == State::kSignatureChanged && r.exit_code == kExitSignatureChanged) return {true, "caught"};
    return {false, fmt::format("escaped (state {}, not signature changed)", state_name(r.state))};
  }
  // A mutant of the configuration (a constraint, a tile size) also changes
  // the signature: its check fails as signature changed, with the metrics.
  bool failed = (r.state == State::kRegressed && r.exit_code == kExitRegression) ||
                (r.state == State::kSignatureChanged && r.exit_code == kExitSignatureChanged);
  if (!failed) {
    return {false, fmt::format("escaped (state {}, exit {})", state_name(r.state), r.exit_code)};
  }
  auto failing = failing_metrics(r);
  for (const auto& metric : edit.metrics) {
    if (!failing.count(metric)) {
      return {false, fmt::format("escaped ({} neither over its limit nor in a broken invariant; state {})", metric,
                                 state_name(r.state))};
    }
  }
  return {true, "caught"};
}

// Failed means a state that fails the check; judged means the check ran to a verdict.
bool failed_state(const TestResult& r) {
  return r.state == State::kRegressed || r.state == State::kSignatureChanged || r.state == State::kStale;
}

// Whether the launch estimate calls the edit faster: its row of the diff
// improved past its limit.
bool estimate_improved(const TestResult& r) {
  return std::any_of(r.diff.begin(), r.diff.end(),
                     [](const MetricDiff& d) { return d.name == kLaunchEstimate && d.verdict == Verdict::kImproved; });
}

// Whether the check's verdict agrees with the measured runtime change, and
// why not. A code change that runs faster while its counts regress fails
// by design (counts are gated): it agrees when the estimate, which its
// message then leads with, calls it faster.
EditVerdict as_measured(double change, const TestResult& r, const std::string& verdict) {
  if (change >= 5 && !failed_state(r))
    return {false, fmt::format("runs {:+.1f}% slower but passed ({})", change, verdict)};
  if (change <= -10 && r.state == State::kRegressed) {
    if (r.tuning.empty() && estimate_improved(r)) {
      return {true,
              fmt::format("measured {:+.1f}%, {}: the estimate calls it faster, the counts regress", change, verdict)};
    }
    return {false, fmt::format("runs {:+.1f}% faster but was gated as regressed", change)};
  }
  return {true, fmt::format("measured {:+.1f}%, {}", change, verdict)};
}

EditVerdict judge_validation(const EditExpectation& edit, const TestResult& r) {
  bool judged = failed_state(r) || r.state == State::kPass || r.state == State::kImproved;
  if (!judged) return {false, fmt::format("not judged (state {})", state_name(r.state))};
  auto change = measured_change(edit.measured, r.id.config);
  std::string verdict = fmt::format("state {}{}", state_name(r.state), r.tuning.empty() ? "" : ", a tuning change");
  if (!change) return {true, "untimed, " + verdict};
  EditVerdict v = as_measured(*change, r, verdict);
  if (edit.miss.empty()) return v;
  if (v.as_expected) return {false, "judged as measured (" + v.text + "): remove the patch's 'miss:' line"};
  return {true, "known miss (" + edit.miss + "): " + v.text};
}

EditVerdict judge_noop(const TestResult& r) {
  if (r.state == State::kPass && r.exit_code == kExitOk) return {true, "clean"};
  return {false, fmt::format("moved (state {})", state_name(r.state))};
}

std::vector<std::string> string_list(const nlohmann::json& j, const char* key, const std::string& where,
                                     const std::string& filename) {
  if (!j.contains(key) || !j.at(key).is_array()) {
    throw InputError(filename, 0, fmt::format("{}: '{}' must be a list of strings", where, key));
  }
  std::vector<std::string> out;
  for (const auto& v : j.at(key)) {
    if (!v.is_string()) throw InputError(filename, 0, fmt::format("{}: '{}' must be a list of strings", where, key));
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::unique_ptr<TestResult> read_result_if_any(const std::string& path) {
  if (!std::filesystem::exists(path)) return nullptr;
  return std::make_unique<TestResult>(result_from_json(parse_json(read_file(path), path), path));
}

struct Tally {
  int edits = 0, edits_ok = 0, checks = 0, checks_ok = 0;
};

}  // namespace

const char* kind_name(EditKind k) {
  switch (k) {
    case EditKind::kMutant:
      return "mutant";
    case EditKind::kNoop:
      return "noop";
    case EditKind::kValidation:
      return "validation";
  }
  return "mutant";
}

EditVerdict judge_edit(const EditExpectation& edit, const TestResult* result) {
  if (!result) return {false, "not run (no result file)"};
  switch (edit.kind) {
    case EditKind::kMutant:
      return judge_mutant(edit, *result);
    case EditKind::kValidation:
      return judge_validation(edit, *result);
    case EditKind::kNoop:
      break;
  }
  return judge_noop(*result);
}

namespace {

std::optional<double> percent(std::string t) {
  if (t.empty() || t.back() != '%') return std::nullopt;
  t.pop_back();
  bool negative = !t.empty() && t[0] == '-';
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.erase(0, 1);
  auto v = parse_decimal(t, 12);
  if (!v) return std::nullopt;
  return negative ? -*v : *v;
}

}  // namespace

std::optional<double> measured_change(const std::string& measured, const std::string& config) {
  for (const auto& item : split(measured, ' ')) {
    auto eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == config) return percent(item.substr(eq + 1));
  }
  return std::nullopt;
}

bool valid_measured(const std::string& measured) {
  if (trim(measured) == "untimed") return true;
  bool any = false;
  for (const auto& item : split(measured, ' ')) {
    if (trim(item).empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || !percent(item.substr(eq + 1))) return false;
    any = true;
  }
  return any;
}

std::vector<EditExpectation> edits_from_json(const nlohmann::json& j, const std::string& filename) {
  if (!j.is_array()) throw InputError(filename, 0, "expected a list of edits");
  std::vector<EditExpectation> edits;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& e = j[i];
    std::string where = fmt::format("edits[{}]", i);
    if (!e.is_object() || !e.contains("name") || !e.at("name").is_string()) {
      throw InputError(filename, 0, where + ": needs a 'name'");
    }
    EditExpectation edit;
    edit.name = e.at("name");
    std::string kind = e.value("kind", "");
    if (kind != "mutant" && kind != "noop" && kind != "validation") {
      throw InputError(filename, 0, where + ": 'kind' must be \"mutant\", \"noop\" or \"validation\"");
    }
    edit.kind = kind == "mutant" ? EditKind::kMutant : kind == "noop" ? EditKind::kNoop : EditKind::kValidation;
    edit.metrics = string_list(e, "expect", where, filename);
    edit.configs = string_list(e, "configs", where, filename);
    if (e.contains("archs")) edit.archs = string_list(e, "archs", where, filename);
    edit.measured = e.value("measured", "");
    edit.miss = e.value("miss", "");
    if (edit.kind == EditKind::kValidation && !valid_measured(edit.measured)) {
      throw InputError(filename, 0,
                       where +
                           ": a validation edit's 'measured' must be \"untimed\" or like "
                           "\"f16_1024=+12.5% bf16_4096=-3.0%\"");
    }
    if (edit.kind == EditKind::kMutant && edit.metrics.empty()) {
      throw InputError(filename, 0, where + ": a mutant must expect at least one metric");
    }
    edits.push_back(std::move(edit));
  }
  return edits;
}

const EditExpectation& find_edit(const std::vector<EditExpectation>& edits, const std::string& name,
                                 const std::string& filename) {
  auto it = std::find_if(edits.begin(), edits.end(), [&](const auto& e) { return e.name == name; });
  if (it == edits.end()) throw InputError(filename, 0, "no edit named '" + name + "'");
  return *it;
}

bool report_edits(const std::vector<EditExpectation>& edits, const std::string& work_dir,
                  const std::vector<std::string>& archs, std::string& report) {
  Tally mutants, noops, validations;
  for (const auto& edit : edits) {
    Tally& t = edit.kind == EditKind::kMutant ? mutants : edit.kind == EditKind::kNoop ? noops : validations;
    std::string details;
    bool all = true;
    for (const auto& config : edit.configs) {
      for (const auto& arch : archs) {
        if (!edit.archs.empty() && std::find(edit.archs.begin(), edit.archs.end(), arch) == edit.archs.end()) continue;
        std::string path = prefixed_file(test_prefix(work_dir + "/" + edit.name, config, arch), FileKind::kResult);
        auto result = read_result_if_any(path);
        EditVerdict v = judge_edit(edit, result.get());
        ++t.checks;
        t.checks_ok += v.as_expected;
        if (!v.as_expected) details += fmt::format("\n      {}.{}: {}", config, arch, v.text);
        all = all && v.as_expected;
      }
    }
    ++t.edits;
    t.edits_ok += all;
    std::string expected = edit.kind == EditKind::kMutant ? fmt::format("{}", fmt::join(edit.metrics, " "))
                           : edit.kind == EditKind::kNoop ? std::string("no change")
                                                          : "measured " + edit.measured;
    report += fmt::format("  {} {} {} (expect: {}){}\n", all ? "ok  " : "FAIL", kind_name(edit.kind), edit.name,
                          expected, details);
  }
  int rate = mutants.edits ? 100 * mutants.edits_ok / mutants.edits : 0;
  report += fmt::format(
      "mutant catch rate: {}/{} mutants caught by their expected metrics ({}%; "
      "{}/{} checks over {})\n",
      mutants.edits_ok, mutants.edits, rate, mutants.checks_ok, mutants.checks, fmt::join(archs, ","));
  report += fmt::format("no-op edits: {}/{} moved no metric ({}/{} checks)\n", noops.edits_ok, noops.edits,
                        noops.checks_ok, noops.checks);
  if (validations.edits) {
    report += fmt::format("validation edits: {}/{} judged as their GPU runtime says ({}/{} checks)\n",
                          validations.edits_ok, validations.edits, validations.checks_ok, validations.checks);
  }
  return mutants.edits_ok == mutants.edits && noops.edits_ok == noops.edits &&
         validations.edits_ok == validations.edits;
}

}  // namespace tileperf
