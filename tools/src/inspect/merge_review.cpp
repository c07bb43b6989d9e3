#include "inspect/merge_review.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/source_lines.h"
#include "gate/baseline.h"
#include "gate/compare.h"
#include "gate/judgement.h"
#include "gate/policy.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

// "<kernel>/<config>.<arch>.json" of every baseline under `dir` (detail
// files are read with their main file).
std::set<std::string> baseline_files(const std::string& dir) {
  std::set<std::string> out;
  if (dir.empty()) return out;
  if (!fs::is_directory(dir)) throw InputError(dir, 0, "not a folder of baselines");
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string rel = fs::relative(entry.path(), dir).generic_string();
    auto id = parse_relative_path(rel, true);
    if (!entry.is_regular_file() || !id || id->kind != FileKind::kBaseline) continue;
    out.insert(rel);
  }
  return out;
}

// Whether the two files hold the same bytes (both absent counts as the same).
bool same_bytes(const std::string& a, const std::string& b) {
  std::error_code ec;
  bool ea = fs::exists(a, ec), eb = fs::exists(b, ec);
  if (!ea || !eb) return ea == eb;
  return read_file(a) == read_file(b);
}

// The key metrics of `m` (kKeyMetrics), as a result holds them.
std::map<std::string, std::int64_t> key_metrics_of(const Metrics& m) {
  std::map<std::string, std::int64_t> out;
  for (const char* key : kKeyMetrics) {
    if (auto it = m.values.find(key); it != m.values.end()) out[key] = it->second;
  }
  return out;
}

// A result made from comparing `before` with `after` under the test's policy.
TestResult compared(const Metrics& before, const Metrics& after, const std::string& checks) {
  TestResult r;
  r.id = after.id;
  Policy policy = load_policy(checks, after.id.kernel, after.id.config);
  Judgement j = judge(before, after, policy);
  r.state = j.state;
  r.compared = j.compared;
  r.exit_code = j.exit_code();
  r.set_diff(j.comparison);
  r.set_lines(line_moves(before.lines, after.lines, before.line_text, after.line_text), {});
  r.key_metrics = key_metrics_of(after);
  r.message = judgement_message(j);
  r.notes = j.notes;
  if (j.tuning()) r.tuning = j.signature;
  if (!j.toolchain.empty()) r.toolchain_change = j.toolchain;
  return r;
}

}  // namespace

Review make_review(const std::vector<TestResult>& results, const ReviewInputs& in) {
  Review review;
  auto base = baseline_files(in.base_baselines);
  if (!in.baselines.empty()) {
    auto head = baseline_files(in.baselines);
    for (const auto& rel : head) {
      std::string after_file = (fs::path(in.baselines) / rel).string();
      Metrics after = read_baseline(after_file);
      if (!base.count(rel)) {
        TestResult r;
        r.id = after.id;
        r.state = State::kCreated;
        r.message = "baseline added";
        r.key_metrics = key_metrics_of(after);
        review.accepted.push_back(std::move(r));
        continue;
      }
      std::string before_file = (fs::path(in.base_baselines) / rel).string();
      if (same_bytes(before_file, after_file) && same_bytes(detail_path(before_file), detail_path(after_file))) {
        continue;
      }
      Metrics before = read_baseline(before_file);
      if (before.values == after.values && before.lines == after.lines && before.toolchain == after.toolchain &&
          before.flags == after.flags && before.signature == after.signature) {
        continue;  // rewritten, same content (another generator)
      }
      review.accepted.push_back(compared(before, after, in.checks));
    }
    for (const auto& rel : base) {
      if (!head.count(rel)) {
        Metrics gone = read_baseline((fs::path(in.base_baselines) / rel).string());
        review.removed.push_back(gone.id.name());
      }
    }
  }
  for (const auto& r : results) {
    auto prefix = prefix_of(r.file, FileKind::kResult);
    fs::path metrics_file = prefix ? prefixed_file(*prefix, FileKind::kMetrics) : "";
    if (!prefix || !fs::exists(metrics_file)) {
      ++review.unmeasured;
      continue;
    }
    Metrics now =
        metrics_from_json(parse_json(read_file(metrics_file.string()), metrics_file.string()), metrics_file.string());
    std::string rel = relative_path({FileKind::kBaseline, r.id.kernel, r.id.config, r.id.arch, ""});
    if (!base.count(rel)) {
      TestResult n;
      n.id = r.id;
      n.state = State::kNew;
      n.message = "no baseline at the merge base";
      n.key_metrics = r.key_metrics;
      review.against_base.push_back(std::move(n));
      continue;
    }
    Metrics before = read_baseline((fs::path(in.base_baselines) / rel).string());
    review.against_base.push_back(compared(before, now, in.checks));
  }
  auto by_name = [](const TestResult& a, const TestResult& b) { return a.id.name() < b.id.name(); };
  std::sort(review.accepted.begin(), review.accepted.end(), by_name);
  std::sort(review.against_base.begin(), review.against_base.end(), by_name);
  return review;
}

}  // namespace tileperf
