// tileperf history: every committed version of the baselines, from git's
// log alone, as series per test and metric, with the steps a toolchain bump
// or a signature change made, and drift (see history.h).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "support/error.h"
#include "toolchain/git.h"
#include "gate/history.h"
#include "report/history_report.h"
#include "gate/policy.h"
#include "support/text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

struct HistoryOptions {
  std::vector<std::string> revs, metrics, baselines = {"baselines"};
  std::string repo = ".", test, checks, json, html, commit_url;
};

std::regex test_filter(const std::string& pattern) {
  try {
    return std::regex(pattern.empty() ? std::string(".") : pattern);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("history: --test '{}' is not a regular expression: {}", pattern, e.what()));
  }
}

// The baseline paths as the top folder sees them (given relative to it).
std::vector<std::string> top_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    if (p.empty() || fs::path(p).is_absolute() || p[0] == '-') {
      throw UsageError("history: --baselines '" + p + "' must be a path inside the repository, relative to its top");
    }
    out.push_back(p);
  }
  return out;
}

// Policies by kernel and configuration, each loaded once.
class PolicyCache {
 public:
  explicit PolicyCache(std::string dir) : dir_(std::move(dir)) {}
  const Policy& get(const TestId& id) {
    auto key = id.kernel + "." + id.config;
    auto it = policies_.find(key);
    if (it == policies_.end()) it = policies_.emplace(key, load_policy(dir_, id.kernel, id.config)).first;
    return it->second;
  }

 private:
  std::string dir_;
  std::map<std::string, Policy> policies_;
};

std::vector<TestSeries> shown_series(const History& h, const HistoryOptions& o, const std::string& checks) {
  std::regex filter = test_filter(o.test);
  PolicyCache policies(checks);
  std::vector<TestSeries> out;
  for (const auto& t : h.tests) {
    if (!std::regex_search(t.test, filter)) continue;
    TestSeries s = test_series(t, policies.get(t.versions.back().metrics.id), o.metrics);
    if (!s.metrics.empty() || !o.metrics.empty()) out.push_back(std::move(s));
  }
  return out;
}

// Every --metric pattern matches a metric some baseline of the shown tests
// holds: a name no baseline has (a typo, a metric renamed) is an error that
// names it, with the closest name there is, not an empty history.
void require_known_metrics(const History& h, const HistoryOptions& o) {
  if (o.metrics.empty()) return;
  std::regex filter = test_filter(o.test);
  std::set<std::string> names;
  for (const auto& t : h.tests) {
    if (!std::regex_search(t.test, filter)) continue;
    for (const auto& v : t.versions) {
      for (const auto& [name, value] : v.metrics.values) names.insert(name);
    }
  }
  for (const auto& pattern : o.metrics) {
    if (std::any_of(names.begin(), names.end(), [&](const auto& n) { return glob_match(pattern, n); })) continue;
    const std::string* best = nullptr;
    std::size_t best_distance = std::max<std::size_t>(3, pattern.size() / 3);  // suggest only close names
    for (const auto& n : names) {
      std::size_t d = edit_distance(pattern, n);
      if (d < best_distance) best = &n, best_distance = d;
    }
    throw UsageError(fmt::format("history: no baseline holds a metric matching --metric '{}'{}", pattern,
                                 best ? fmt::format(", did you mean '{}'?", *best) : std::string()));
  }
}

std::string join_revs(const std::vector<std::string>& revs) {
  std::string out;
  for (const auto& r : revs) out += (out.empty() ? "" : " ") + r;
  return out;
}

}  // namespace

int run_history(const Args& args) {
  CLI::App app(
      "The history of the baselines from git's log (no build, no toolchain): per test and "
      "metric the values with the commit where each changed, toolchain bumps and tuning "
      "or signature changes marked, and drift (steps each within the tolerance that add up "
      "past it).",
      "history");
  HistoryOptions o;
  app.add_option("revisions", o.revs, "revisions as git log takes them (main~20..main; default HEAD)");
  app.add_option("--test", o.test, "regular expression the test names must contain a match of");
  app.add_option("--metric", o.metrics,
                 "metrics to show ('*' globs; repeatable); default: every gated metric that changed")
      ->allow_extra_args(false);
  app.add_option("--repo", o.repo, "a folder of the git repository")->capture_default_str();
  app.add_option("--baselines", o.baselines, "the baselines' folder, relative to the repository's top (repeatable)")
      ->allow_extra_args(false)
      ->capture_default_str();
  app.add_option("--checks", o.checks, "folder of policy files (default: checks/ in the repository's top)");
  app.add_option("--json", o.json, "write the history as JSON");
  app.add_option("--html", o.html, "write an HTML page with one chart per test and metric");
  app.add_option("--commit-url", o.commit_url,
                 "where a commit links to, {sha} replaced (default: the page's commit list)");
  if (parse_args(app, args)) return kExitOk;
  std::string top = git_toplevel(o.repo);
  std::string checks = o.checks.empty() ? (fs::path(top) / "checks").string() : o.checks;
  History h = read_history(top, o.revs, top_paths(o.baselines));
  if (h.commits.empty()) {
    throw UsageError(fmt::format("history: no commit{} changed anything under {}",
                                 o.revs.empty() ? "" : " in " + join_revs(o.revs), fmt::join(o.baselines, ", ")));
  }
  std::regex filter = test_filter(o.test);
  if (std::none_of(h.tests.begin(), h.tests.end(), [&](const auto& t) { return std::regex_search(t.test, filter); })) {
    throw UsageError("history: no test matches --test '" + o.test + "'");
  }
  require_known_metrics(h, o);
  HistoryView view{
      .history = &h, .tests = shown_series(h, o, checks), .range = join_revs(o.revs), .commit_url = o.commit_url};
  std::cout << history_text(view);
  if (!o.json.empty()) write_file_atomic(o.json, history_json(view).dump(2) + "\n");
  if (!o.html.empty()) write_file_atomic(o.html, history_html(view));
  return kExitOk;
}

}  // namespace tileperf
