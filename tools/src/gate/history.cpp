#include "gate/history.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gate/baseline.h"
#include "support/error.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

// The main file a file belongs to: itself, or the one beside its detail file.
std::string main_file_of(const std::string& path) {
  auto prefix = prefix_of(path, FileKind::kBaselineDetail);
  return prefix ? prefixed_file(*prefix, FileKind::kBaseline) : path;
}

bool same_metrics(const Metrics& a, const Metrics& b) { return to_json(a) == to_json(b); }

// An error as a line of the history: its message without the prefix.
std::string error_text(const std::exception& e) { return e.what(); }

// Replays the commits: which file holds which test, and each test's versions.
class HistoryBuilder {
 public:
  explicit HistoryBuilder(const HistoryInput& input) : input_(input) {}

  History build() {
    if (input_.start) {
      history_.has_start = true;
      apply(*input_.start);
    }
    for (const auto& entry : input_.log) apply(entry);
    std::sort(history_.tests.begin(), history_.tests.end(),
              [](const TestHistory& a, const TestHistory& b) { return a.test < b.test; });
    return std::move(history_);
  }

 private:
  struct Found {
    std::string path;
    Metrics metrics;
  };

  void apply(const GitLogEntry& entry) {
    std::size_t commit = history_.commits.size();
    history_.commits.push_back(entry.commit);
    std::set<std::string> touched;
    for (const auto& change : entry.changes) {
      if (!change.path.ends_with(".json")) continue;
      if (change.blob.empty())
        files_.erase(change.path);
      else
        files_[change.path] = change.blob;
      touched.insert(main_file_of(change.path));
    }
    std::map<std::string, Found> found;
    std::set<std::string> gone;
    for (const auto& path : touched) read_main(commit, path, found, gone);
    for (auto& [test, f] : found) record(commit, test, f.path, std::move(f.metrics), false);
    for (const auto& test : gone) {
      if (!found.count(test) && !still_held(test)) record_removal(commit, test);
    }
  }

  void read_main(std::size_t commit, const std::string& path, std::map<std::string, Found>& found,
                 std::set<std::string>& gone) {
    auto held = test_at_.find(path);
    std::string old = held == test_at_.end() ? "" : held->second;
    if (!files_.count(path)) {
      if (!old.empty()) gone.insert(old);
      test_at_.erase(path);
      return;
    }
    std::string label = history_.commits[commit].sha.substr(0, 7) + ":" + path;
    try {
      Metrics m = parse_at(label, path);
      std::string test = m.id.name();
      if (found.count(test)) {
        throw InputError(label, 0, test + " is also in " + found[test].path);
      }
      if (!old.empty() && old != test) gone.insert(old);
      test_at_[path] = test;
      found[test] = {path, std::move(m)};
    } catch (const Error& e) {
      history_.unreadable.push_back({commit, path, error_text(e)});
    }
  }

  Metrics parse_at(const std::string& label, const std::string& path) {
    std::string prefix = label.substr(0, label.size() - path.size());
    auto read_detail = [&](const std::string& detail_label) -> std::optional<std::string> {
      auto it = files_.find(detail_label.substr(prefix.size()));
      if (it == files_.end()) return std::nullopt;
      return input_.blob_text(it->second);
    };
    return parse_baseline(label, input_.blob_text(files_.at(path)), read_detail);
  }

  bool still_held(const std::string& test) const {
    return std::any_of(test_at_.begin(), test_at_.end(), [&](const auto& e) { return e.second == test; });
  }

  TestHistory& test_history(const std::string& test) {
    auto it = index_.find(test);
    if (it != index_.end()) return history_.tests[it->second];
    index_[test] = history_.tests.size();
    history_.tests.push_back({test, {}});
    return history_.tests.back();
  }

  void record(std::size_t commit, const std::string& test, const std::string& path, Metrics m, bool removed) {
    TestHistory& t = test_history(test);
    if (!t.versions.empty() && t.versions.back().removed == removed && same_metrics(t.versions.back().metrics, m)) {
      t.versions.back().path = path;
      return;
    }
    t.versions.push_back({commit, path, removed, std::move(m)});
  }

  void record_removal(std::size_t commit, const std::string& test) {
    TestHistory& t = test_history(test);
    if (t.versions.empty() || t.versions.back().removed) return;
    BaselineVersion last = t.versions.back();
    record(commit, test, last.path, last.metrics, true);
  }

  const HistoryInput& input_;
  History history_;
  std::map<std::string, std::string> files_;    // path -> blob, as the commits so far left them
  std::map<std::string, std::string> test_at_;  // main file -> the test it holds
  std::map<std::string, std::size_t> index_;    // test -> history_.tests
};

// Every blob of a .json file that the history reads.
std::vector<std::string> json_blobs(const std::optional<GitLogEntry>& start, const std::vector<GitLogEntry>& log) {
  std::set<std::string> blobs;
  auto add = [&](const GitLogEntry& e) {
    for (const auto& c : e.changes) {
      if (!c.blob.empty() && c.path.ends_with(".json")) blobs.insert(c.blob);
    }
  };
  if (start) add(*start);
  for (const auto& e : log) add(e);
  return {blobs.begin(), blobs.end()};
}

std::optional<GitLogEntry> start_state(const std::string& repo, const GitLogEntry& first,
                                       const std::vector<std::string>& paths) {
  if (first.commit.parents.empty()) return std::nullopt;
  const std::string& parent = first.commit.parents.front();
  auto tree = git_tree(repo, parent, paths);
  if (tree.empty()) return std::nullopt;
  GitLogEntry start{.commit = git_commit_info(repo, parent), .changes = {}};
  for (const auto& [path, blob] : tree) start.changes.push_back({.path = path, .blob = blob});
  return start;
}

std::optional<std::int64_t> value_in(const BaselineVersion& v, const std::string& metric) {
  if (v.removed) return std::nullopt;
  auto it = v.metrics.values.find(metric);
  if (it == v.metrics.values.end()) return std::nullopt;
  return it->second;
}

// What one step (version k - 1 to k) did to every metric.
struct Step {
  std::map<std::string, Verdict> verdicts;
  std::vector<std::string> toolchain, signature_fields;
  SignatureChange signature = SignatureChange::kNone;
};

Step judge_version(const BaselineVersion& before, const BaselineVersion& now, const Policy& policy) {
  Step s;
  if (before.removed || now.removed) return s;
  for (const auto& d : compare_metrics(before.metrics, now.metrics, policy).diffs) s.verdicts[d.name] = d.verdict;
  s.toolchain = toolchain_changes(before.metrics, now.metrics);
  if (before.metrics.signature.empty()) return s;  // recorded for the first time: nothing to compare
  s.signature = classify_signature(before.metrics, now.metrics);
  s.signature_fields = signature_changes(before.metrics, now.metrics);
  return s;
}

std::set<std::string> metric_names(const TestHistory& test) {
  std::set<std::string> names;
  for (const auto& v : test.versions) {
    for (const auto& [name, value] : v.metrics.values) names.insert(name);
  }
  return names;
}

bool is_gated(const Policy& policy, const std::string& metric) {
  const Rule* rule = policy.find(metric);
  return rule && rule->direction != Direction::kInfo;
}

MetricSeries metric_series(const TestHistory& test, const std::vector<Step>& steps, const std::string& metric,
                           const Policy& policy) {
  MetricSeries s;
  s.metric = metric;
  const Rule* rule = policy.find(metric);
  s.direction = rule ? rule->direction : Direction::kInfo;
  s.rule = describe_rule(rule);
  for (std::size_t k = 0; k < test.versions.size(); ++k) {
    auto value = value_in(test.versions[k], metric);
    auto before = k == 0 ? std::nullopt : value_in(test.versions[k - 1], metric);
    bool first = s.points.empty();
    if (first ? !value : value == before) continue;
    SeriesPoint p;
    p.version = k;
    p.value = value;
    p.before = first ? std::nullopt : before;
    if (!first) {
      auto v = steps[k].verdicts.find(metric);
      p.verdict = v == steps[k].verdicts.end() || !p.before ? Verdict::kInfo : v->second;
      p.toolchain = steps[k].toolchain;
      p.signature = steps[k].signature;
      p.signature_fields = steps[k].signature_fields;
    }
    s.points.push_back(std::move(p));
  }
  return s;
}

// The verdict of moving one metric from `from` to `to` under the policy.
Verdict judge_values(const Policy& policy, const std::string& metric, std::int64_t from, std::int64_t to) {
  Metrics a, b;
  a.values[metric] = from;
  b.values[metric] = to;
  for (const auto& d : compare_metrics(a, b, policy).diffs) {
    if (d.name == metric) return d.verdict;
  }
  return Verdict::kInfo;
}

// The point in [first, end) with the lowest (or highest) value.
std::size_t extreme(const MetricSeries& s, std::size_t first, std::size_t end, bool lowest) {
  std::size_t best = first;
  for (std::size_t i = first + 1; i < end; ++i) {
    if (lowest ? *s.points[i].value < *s.points[best].value : *s.points[i].value > *s.points[best].value) best = i;
  }
  return best;
}

// The worst drift among the steps from `base` to `end` (exclusive), if any.
std::optional<Drift> run_drift(const MetricSeries& s, const Policy& policy, const Rule& rule, std::size_t base,
                               std::size_t end) {
  std::optional<Drift> worst;
  double worst_excess = 0;
  for (std::size_t j = base + 2; j < end; ++j) {
    for (bool lowest : {true, false}) {
      std::size_t i = extreme(s, base, j, lowest);
      std::int64_t from = *s.points[i].value, to = *s.points[j].value;
      if (judge_values(policy, s.metric, from, to) != Verdict::kRegressed) continue;
      double excess = std::fabs(static_cast<double>(to - from)) - rule.tolerance.limit(from);
      if (worst && excess <= worst_excess) continue;
      std::size_t crossed = i + 1;
      while (judge_values(policy, s.metric, from, *s.points[crossed].value) != Verdict::kRegressed) ++crossed;
      worst = Drift{s.metric, i, j, crossed, from, to, rule.tolerance.limit(from)};
      worst_excess = excess;
    }
  }
  return worst;
}

}  // namespace

bool SeriesPoint::ends_run() const {
  return !value || !before || !toolchain.empty() || signature != SignatureChange::kNone ||
         verdict == Verdict::kRegressed || verdict == Verdict::kImproved;
}

History build_history(const HistoryInput& input) { return HistoryBuilder(input).build(); }

History read_history(const std::string& repo, const std::vector<std::string>& revs,
                     const std::vector<std::string>& paths) {
  HistoryInput input;
  input.log = git_path_log(repo, revs, paths);
  if (!input.log.empty()) input.start = start_state(repo, input.log.front(), paths);
  auto texts = git_blobs(repo, json_blobs(input.start, input.log));
  input.blob_text = [&texts](const std::string& blob) { return texts.at(blob); };
  return build_history(input);
}

std::string describe_rule(const Rule* rule) {
  if (!rule || rule->direction == Direction::kInfo) return "informational";
  if (rule->direction == Direction::kExact) return "exact";
  std::vector<std::string> parts;
  if (rule->tolerance.relative > 0) parts.push_back(fmt::format("{:g}%", rule->tolerance.relative * 100));
  if (rule->tolerance.absolute > 0) parts.push_back(fmt::format("{}", rule->tolerance.absolute));
  bool lower = rule->direction == Direction::kLower;
  if (parts.empty()) return lower ? "must not grow" : "must not shrink";
  return fmt::format("{} is better, {}", lower ? "lower" : "higher", fmt::join(parts, " | "));
}

TestSeries test_series(const TestHistory& test, const Policy& policy, const std::vector<std::string>& patterns) {
  std::vector<Step> steps(test.versions.size());
  for (std::size_t k = 1; k < test.versions.size(); ++k) {
    steps[k] = judge_version(test.versions[k - 1], test.versions[k], policy);
  }
  TestSeries out;
  out.test = &test;
  for (std::size_t k = 1; k < steps.size(); ++k) {
    if (!steps[k].toolchain.empty() || steps[k].signature != SignatureChange::kNone) {
      out.events.push_back({k, steps[k].toolchain, steps[k].signature, steps[k].signature_fields});
    }
  }
  for (const auto& name : metric_names(test)) {
    bool wanted = patterns.empty() ? is_gated(policy, name)
                                   : std::any_of(patterns.begin(), patterns.end(),
                                                 [&](const std::string& p) { return glob_match(p, name); });
    if (!wanted) continue;
    MetricSeries s = metric_series(test, steps, name, policy);
    if (s.points.empty() || (patterns.empty() && s.points.size() < 2)) continue;
    for (auto& d : find_drifts(s, policy)) out.drifts.push_back(d);
    out.metrics.push_back(std::move(s));
  }
  return out;
}

std::vector<Drift> find_drifts(const MetricSeries& series, const Policy& policy) {
  const Rule* rule = policy.find(series.metric);
  if (!rule || rule->direction == Direction::kInfo) return {};
  std::vector<Drift> drifts;
  std::size_t base = 0;
  const auto& points = series.points;
  while (base < points.size()) {
    if (!points[base].value) {
      ++base;
      continue;
    }
    std::size_t end = base + 1;
    while (end < points.size() && !points[end].ends_run()) ++end;
    if (auto d = run_drift(series, policy, *rule, base, end)) drifts.push_back(*d);
    base = end;
  }
  return drifts;
}

}  // namespace tileperf
