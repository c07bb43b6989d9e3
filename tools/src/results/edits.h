// The gate's self-test: edits of shipped kernels (tests/mutants,
// tests/noop, tests/validation) and the verdict on each check of an edited
// kernel.
//
// A mutant is caught when its check failed (regressed, or signature changed:
// a mutant of the configuration changes what is exported) and every metric
// its patch expects is, by its exact name, over its limit or the metric of a
// broken invariant (a set invariant, "<prefix>.* == {...}", names its prefix). A
// no-op edit is clean when its check, run with --exact, moved nothing. A
// mutant that expects "signature" must end as "signature changed": it
// exports another kernel (a dtype, a constraint, a hint) than the baseline's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/result.h"

namespace tileperf {

// A mutant must be caught; a no-op edit must move nothing; a validation
// edit (timed on a GPU against the launch model) must be judged as its
// measured runtime says: failed when it runs 5% slower or more, not
// regressed when it runs 10% faster or more.
enum class EditKind { kMutant, kNoop, kValidation };

// The runtime change a validation edit's patch records for `config`
// ("measured: f16_1024=-69.7% bf16_4096=+2.5%"), or nothing when it is
// "untimed" or names no such configuration.
std::optional<double> measured_change(const std::string& measured, const std::string& config);
// Whether `measured` is "untimed" or a list of <config>=<+N.N%>.
bool valid_measured(const std::string& measured);
const char* kind_name(EditKind k);

inline constexpr const char* kSignatureExpectation = "signature";
// "expect: tuning <state>": a tuning change (only constants and hints
// moved) whose checks must end in <state> (pass, improved, regressed), as
// the launch estimate judges it.
inline constexpr const char* kTuningExpectation = "tuning";

struct EditExpectation {
  std::string name;  // the patch file's name without .patch
  EditKind kind = EditKind::kMutant;
  std::vector<std::string> metrics;  // a mutant's expected metrics
  std::vector<std::string> configs;  // configurations its checks run
  std::vector<std::string> archs;    // architectures it is checked on ("archs:"), empty: all
  std::string measured;              // a validation edit's "measured:" ("f16_1024=+12.5%", "untimed")
  // A validation edit the launch model is known to judge against its
  // measurement ("miss:", why): its checks must keep missing, so that a
  // model that gets it right is noticed and the line removed.
  std::string miss;
};

struct EditVerdict {
  bool as_expected = false;  // caught (mutant) or clean (no-op)
  std::string text;          // "caught", "clean", or what happened instead
};

// `result` is null when the check left no result file.
EditVerdict judge_edit(const EditExpectation& edit, const TestResult* result);

// The edits manifest tests/edits/edits.py writes at configure time: a JSON
// list of {"name", "kind": "mutant"|"noop"|"validation", "expect": [...],
// "configs": [...]}, with "archs" where an edit is for some architectures
// only, and a validation edit's "measured" runtime change and known "miss".
std::vector<EditExpectation> edits_from_json(const nlohmann::json& j, const std::string& filename);
const EditExpectation& find_edit(const std::vector<EditExpectation>& edits, const std::string& name,
                                 const std::string& filename);

// The catch-rate report over every edit and architecture, from the result
// files under `work_dir`/<edit>/: one line per edit, then the totals. Returns
// whether every mutant was caught and every no-op edit clean.
bool report_edits(const std::vector<EditExpectation>& edits, const std::string& work_dir,
                  const std::vector<std::string>& archs, std::string& report);

}  // namespace tileperf
