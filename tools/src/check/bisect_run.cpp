// tileperf bisect's steps and report (check/bisect_run.h).
#include "check/bisect_run.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>
#include <utility>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/kernel_check.h"
#include "gate/baseline.h"
#include "gate/bisect.h"
#include "gate/compare.h"
#include "gate/judgement.h"
#include "support/error.h"
#include "toolchain/git.h"
#include "gate/policy.h"
#include "report/comparison_text.h"
#include "analysis/source_lines.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

TestId bisected_test(const std::string& name) {
  auto id = parse_test_name(name);
  if (!id) throw UsageError("bisect: --test '" + name + "' must be a perf test's name: perf.<kernel>.<config>.<arch>");
  validate_test_id(*id);
  return *id;
}

// The value of an option in a command line ("" when it is not there).
std::string option_value(const nlohmann::json& command, const std::string& option) {
  for (std::size_t i = 0; i + 1 < command.size(); ++i) {
    if (command[i].is_string() && command[i].get<std::string>() == option) return command[i + 1].get<std::string>();
  }
  return "";
}

std::string ctest_regex(const TestId& id) {
  std::string out = "^";
  for (char c : id.name()) out += c == '.' ? std::string("\\.") : std::string(1, c);
  return out + "$";
}

namespace {

namespace fs = std::filesystem;

// What one commit measured: the test's metrics, with the policies and the
// baseline its build names.
struct MeasuredStep {
  Metrics metrics;
  std::string checks, baseline;
  bool cached = false;
};

struct StepResult {
  std::optional<MeasuredStep> measured;
  std::string skipped;  // why not
};

std::string last_line(const std::string& text) {
  std::vector<std::string> lines;
  for (const auto& l : split(text, '\n')) {
    if (!is_blank(l)) lines.push_back(trim(l));
  }
  return lines.empty() ? "" : cut_text(lines.back(), 160);
}

// Checks out, configures, builds and runs the one test at each commit.
class StepRunner {
 public:
  StepRunner(const BisectOptions& o, std::string worktree, std::string build, std::string cache, std::string logs)
      : o_(o),
        worktree_(std::move(worktree)),
        build_(std::move(build)),
        cache_(std::move(cache)),
        logs_(std::move(logs)) {}

  // At the commit the worktree has checked out.
  const StepResult& measure(const std::string& commit) {
    auto it = seen_.find(commit);
    if (it != seen_.end()) return it->second;
    log_ = (fs::path(logs_) / (commit.substr(0, 12) + ".log")).string();
    write_file_atomic(log_, "", Durability::kRenamed);
    return seen_[commit] = run_steps();
  }

  const StepResult& measure_at(const std::string& commit) {
    if (!seen_.count(commit)) git_output(worktree_, {"checkout", "--quiet", "--detach", "--force", commit});
    return measure(commit);
  }

 private:
  StepResult run_steps() {
    std::vector<std::string> configure = {"cmake", "-S", worktree_, "-B", build_};
    configure.insert(configure.end(), o_.cmake_args.begin(), o_.cmake_args.end());
    if (auto r = step(configure); !r.ok()) return skip("does not configure", r);
    if (auto r = step({"cmake", "--build", build_, "-j", std::to_string(o_.jobs)}); !r.ok()) {
      return skip("does not build", r);
    }
    auto listed = step({"ctest", "--test-dir", build_, "-R", ctest_regex(o_.id), "--show-only=json-v1"});
    nlohmann::json command = listed.ok() ? test_command(listed.out, o_.id) : nlohmann::json();
    if (command.is_null()) {
      // Configure went on past a kernel file it could not list: the
      // commit's kernel is broken, which is a skip with its reason.
      TestId unlisted{.kernel = o_.id.kernel, .config = "unlisted", .arch = o_.id.arch};
      auto other = step({"ctest", "--test-dir", build_, "-R", ctest_regex(unlisted), "--show-only=json-v1"});
      nlohmann::json failing = other.ok() ? test_command(other.out, unlisted) : nlohmann::json();
      if (!failing.is_null()) {
        return {std::nullopt, fmt::format("does not configure ({}; log {})", option_value(failing, "--reason"), log_)};
      }
      return {std::nullopt, "has no test " + o_.id.name()};
    }
    return run_test(command);
  }

  static nlohmann::json test_command(const std::string& listing, const TestId& id) {
    nlohmann::json j = nlohmann::json::parse(listing, nullptr, false);
    if (!j.is_object() || !j.contains("tests")) return nullptr;
    for (const auto& t : j.at("tests")) {
      if (t.value("name", "") == id.name() && t.contains("command")) return t.at("command");
    }
    return nullptr;
  }

  // What the test's check reads: as its command line gives it (an older
  // revision's), else from the run record and the kernel's record, as the
  // check itself finds them (apply_run_record), once run.start has written
  // this revision's record.
  struct CheckFacts {
    std::string work_dir, checks, baseline;
  };
  CheckFacts facts_of(const nlohmann::json& command) {
    std::string test = option_value(command, "--test");
    if (test.empty()) {
      return {option_value(command, "--work-dir"), option_value(command, "--checks"),
              option_value(command, "--baseline")};
    }
    step({"ctest", "--test-dir", build_, "-R", "^run\\.start$"});
    CheckOptions o;
    o.run_file = option_value(command, "--run-file");
    std::set<std::string> given;
    for (auto [option, field] :
         {std::pair{"--work-dir", &o.work_dir}, {"--checks", &o.checks}, {"--baseline", &o.baseline}}) {
      *field = option_value(command, option);
      if (!field->empty()) given.insert(option + 2);
    }
    apply_run_record(o, test, given);
    return {o.work_dir, o.checks, o.baseline};
  }

  StepResult run_test(const nlohmann::json& command) {
    CheckFacts facts;
    try {
      facts = facts_of(command);
    } catch (const Error& e) {
      return {std::nullopt, std::string("cannot tell where its check writes: ") + e.what()};
    }
    std::string prefix = test_prefix(facts.work_dir, o_.id.config, o_.id.arch);
    std::error_code ignored;
    for (FileKind kind : {FileKind::kMetrics, FileKind::kResult}) fs::remove(prefixed_file(prefix, kind), ignored);
    auto r = step({"ctest", "--test-dir", build_, "-R", ctest_regex(o_.id), "-V", "--timeout",
                   fmt::format("{:.0f}", o_.timeout)});
    if (!fs::exists(prefixed_file(prefix, FileKind::kMetrics)))
      return skip("measured nothing", r, prefixed_file(prefix, FileKind::kResult));
    MeasuredStep m{read_metrics(prefixed_file(prefix, FileKind::kMetrics)), facts.checks, facts.baseline,
                   r.out.find("(cached") != std::string::npos};
    return {std::move(m), ""};
  }

  ProcessResult step(const std::vector<std::string>& argv) {
    ProcessOptions po;
    po.timeout_seconds = o_.timeout;
    po.set_env["TILEPERF_CACHE_DIR"] = cache_;
    po.unset_env = {"TILEPERF_UPDATE_BASELINES", "TILEPERF_FILTER", "TILEPERF_LABEL", "MAKEFLAGS"};
    ProcessResult r = run_process(argv, po);
    append_log(fmt::format("$ {}\n{}{}[{}]\n", fmt::join(argv, " "), r.out, r.err, r.describe()));
    return r;
  }

  void append_log(const std::string& text) {
    std::string old = fs::exists(log_) ? read_file(log_) : "";
    write_file_atomic(log_, old + text, Durability::kRenamed);
  }

  // A commit that cannot be measured, with the reason in one line.
  StepResult skip(const std::string& what, const ProcessResult& r, const std::string& result_file = "") {
    std::string why = r.ok() ? "" : r.describe();
    if (!result_file.empty() && fs::exists(result_file)) {
      auto j = nlohmann::json::parse(read_file(result_file), nullptr, false);
      if (j.is_object()) why = j.value("state", "") + ": " + j.value("message", "");
    } else if (std::string line = last_line(r.err.empty() ? r.out : r.err); !line.empty()) {
      why += (why.empty() ? "" : ": ") + line;
    }
    return {std::nullopt, fmt::format("{} ({}; log {})", what, why, log_)};
  }

  const BisectOptions& o_;
  std::string worktree_, build_, cache_, logs_, log_;
  std::map<std::string, StepResult> seen_;
};

}  // namespace

std::string bisect_verdict(const Metrics& good_baseline, const Metrics& measured, const Policy& policy) {
  return state_name(judge(good_baseline, measured, policy).compared);
}

namespace {

// What a commit is judged by: the metric's value, or the verdict against the
// good revision's baseline under its policies.
class Reference {
 public:
  Reference(const BisectOptions& o, const MeasuredStep& good, const std::string& checks) : o_(o), checks_(checks) {
    if (o.metric.empty()) {
      if (!fs::exists(good.baseline)) {
        throw UsageError("bisect: " + o.id.name() + " has no baseline at the good revision " + o.good + " (" +
                         good.baseline + "); give --metric");
      }
      baseline_ = read_baseline(good.baseline);
    }
    policy_ = load_policy(checks_, o.id.kernel, o.id.config);
    good_ = describe(good.metrics);
  }

  std::string describe(const Metrics& m) const {
    if (!o_.metric.empty()) {
      auto it = m.values.find(o_.metric);
      return it == m.values.end() ? "(none)" : std::to_string(it->second);
    }
    return bisect_verdict(baseline_, m, policy_);
  }

  StepOutcome judge(const StepResult& m) const {
    if (!m.measured) return {StepKind::kSkipped, m.skipped};
    std::string now = describe(m.measured->metrics);
    return {now == good_ ? StepKind::kSame : StepKind::kChanged, now};
  }

  const std::string& good() const { return good_; }
  const Policy& policy() const { return policy_; }
  std::string what() const { return o_.metric.empty() ? "verdict against the good baseline" : o_.metric; }

 private:
  const BisectOptions& o_;
  std::string checks_, good_;
  Metrics baseline_;
  Policy policy_;
};

// The worktree, the build folder, the cache and the logs under one folder.
struct WorkFolder {
  std::string root, worktree, build, cache, logs, checks;
};

WorkFolder work_folder(const BisectOptions& o) {
  std::string root = o.work;
  if (root.empty()) {
    std::string pattern = (fs::temp_directory_path() / "tileperf-bisect-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw ToolError("bisect: cannot create a folder in " + fs::temp_directory_path().string());
    root = pattern;
  }
  root = fs::absolute(root).lexically_normal().string();
  WorkFolder w{root, root + "/src", root + "/build", root + "/cache", root + "/logs", root + "/checks-good"};
  const char* shared = std::getenv("TILEPERF_CACHE_DIR");
  if (shared && *shared) w.cache = shared;
  fs::create_directories(w.logs);
  return w;
}

// The worktree of the bisection, registered while it runs.
class Worktree {
 public:
  Worktree(std::string repo, std::string path, const std::string& commit, bool keep)
      : repo_(std::move(repo)), path_(std::move(path)), keep_(keep) {
    if (fs::exists(path_)) run_git(repo_, {"worktree", "remove", "--force", path_});
    std::error_code ignored;
    fs::remove_all(path_, ignored);
    run_git(repo_, {"worktree", "prune"});
    git_output(repo_, {"worktree", "add", "--detach", "--force", path_, commit});
  }
  ~Worktree() {
    if (keep_) return;
    run_git(repo_, {"worktree", "remove", "--force", path_});
    run_git(repo_, {"worktree", "prune"});
  }

 private:
  std::string repo_, path_;
  bool keep_;
};

void copy_checks(const std::string& from, const std::string& to) {
  std::error_code ignored;
  fs::remove_all(to, ignored);
  fs::copy(from, to, fs::copy_options::recursive);
}

void print_step(const std::string& label, const std::string& commit, const StepResult& m, const StepOutcome& s) {
  const char* kind = s.kind == StepKind::kSame ? "same" : s.kind == StepKind::kChanged ? "changed" : "skipped";
  std::string cached = m.measured && m.measured->cached ? " (cached)" : "";
  fmt::print("  {:<5} {} {}: {}{}\n", label, commit.substr(0, 12), kind, s.note, cached);
  std::cout.flush();
}

// The text of the lines that moved, from the first changed commit's tree.
void add_line_text(const std::string& repo, const std::string& commit, std::vector<LineMove>& moves) {
  auto tree = git_tree(repo, commit, {});
  std::map<std::string, std::string> blob_of;  // "scale.py" -> blob
  for (const auto& [path, blob] : tree) blob_of.emplace(fs::path(path).filename().string(), blob);
  std::vector<std::string> wanted;
  for (const auto& m : moves) {
    auto it = blob_of.find(m.line.substr(0, m.line.rfind(':')));
    if (it != blob_of.end()) wanted.push_back(it->second);
  }
  auto texts = git_blobs(repo, wanted);
  for (auto& m : moves) {
    auto it = blob_of.find(m.line.substr(0, m.line.rfind(':')));
    if (it == blob_of.end()) continue;
    auto number = parse_count(m.line.substr(m.line.rfind(':') + 1), 1 << 30);
    if (number) m.text = cut_text(trim(line_at(texts[it->second], static_cast<int>(*number))), 120);
  }
}

std::string percent_text(std::int64_t before, std::int64_t now) {
  if (before == 0) return now == 0 ? "0.0%" : "inf%";
  return fmt::format("{:+.1f}%", 100.0 * static_cast<double>(now - before) / std::fabs(static_cast<double>(before)));
}

void print_first(const std::string& repo, const GitCommit& c, const std::string& before_label,
                 const MeasuredStep& before, const MeasuredStep& after, const Reference& ref, const BisectOptions& o) {
  fmt::print("first commit that changed the {} of {}: {} {} {}\n", ref.what(), o.id.name(), c.sha.substr(0, 12), c.date,
             c.subject);
  if (!o.metric.empty()) {
    auto was = before.metrics.get(o.metric), now = after.metrics.get(o.metric);
    fmt::print("  {}: {} at {} -> {} ({:+}, {})\n", o.metric, was, before_label, now, now - was,
               percent_text(was, now));
  } else {
    fmt::print("  verdict: {} at {} -> {}\n", ref.describe(before.metrics), before_label, ref.describe(after.metrics));
  }
  Comparison diff = compare_metrics(before.metrics, after.metrics, ref.policy());
  fmt::print("  metrics from {} to {}:\n{}", before_label, c.sha.substr(0, 12), format_diff_table(diff.diffs));
  auto moves = line_moves(before.metrics.lines, after.metrics.lines, before.metrics.line_text, after.metrics.line_text);
  if (moves.size() > 12) moves.resize(12);
  add_line_text(repo, c.sha, moves);
  if (!moves.empty()) fmt::print("{}", format_line_moves(moves));
}

int report_result(const BisectResult& r, const std::string& repo, StepRunner& runner, const Reference& ref,
                  const MeasuredStep& good, const BisectOptions& o) {
  if (!r.first) {
    fmt::print("skipped commits leave the first change among {} commit(s): ", r.candidates.size());
    for (const auto& c : r.candidates) fmt::print("{} ", c.substr(0, 12));
    fmt::print("\n");
    return kExitOk;
  }
  GitCommit c = git_commit_info(repo, *r.first);
  const MeasuredStep& after = *runner.measure_at(*r.first).measured;
  const MeasuredStep* before = &good;
  std::string label = "good " + o.good;
  if (!c.parents.empty()) {
    const StepResult& parent = runner.measure_at(c.parents.front());
    if (parent.measured) before = &*parent.measured, label = c.parents.front().substr(0, 12);
  }
  print_first(repo, c, label, *before, after, ref, o);
  return kExitOk;
}

}  // namespace

int bisect(BisectOptions o) {
  o.id = bisected_test(o.test);
  if (!std::isfinite(o.timeout) || o.timeout <= 0)
    throw UsageError("bisect: --timeout must be a positive number of seconds");

  std::string repo = git_toplevel(o.repo);
  std::string good = git_commit_of(repo, o.good), bad = git_commit_of(repo, o.bad);
  if (good == bad) throw UsageError("bisect: --good and --bad name the same commit " + good.substr(0, 12));
  WorkFolder w = work_folder(o);
  fmt::print("bisect {} ({}): good {}, bad {}; work folder {}\n", o.id.name(), o.metric.empty() ? "verdict" : o.metric,
             good.substr(0, 12), bad.substr(0, 12), w.root);
  Worktree tree(repo, w.worktree, good, o.keep);
  StepRunner runner(o, w.worktree, w.build, w.cache, w.logs);
  const StepResult& at_good = runner.measure_at(good);
  if (!at_good.measured) throw UsageError("bisect: the good revision " + o.good + " " + at_good.skipped);
  copy_checks(at_good.measured->checks, w.checks);
  Reference ref(o, *at_good.measured, w.checks);
  print_step("good", good, at_good, {StepKind::kSame, ref.good()});
  const StepResult& at_bad = runner.measure_at(bad);
  StepOutcome bad_outcome = ref.judge(at_bad);
  print_step("bad", bad, at_bad, bad_outcome);
  if (bad_outcome.kind == StepKind::kSkipped)
    throw UsageError("bisect: the bad revision " + o.bad + " " + at_bad.skipped);
  if (bad_outcome.kind == StepKind::kSame) {
    fmt::print("the {} is {} at both revisions: nothing to bisect\n", ref.what(), ref.good());
    return kExitOk;
  }
  BisectResult r = run_git_bisect(w.worktree, good, bad, [&](const std::string& commit) {
    const StepResult& m = runner.measure(commit);
    StepOutcome s = ref.judge(m);
    print_step("step", commit, m, s);
    return s;
  });
  for (const auto& s : r.steps) {
    if (s.outcome.kind == StepKind::kSkipped) fmt::print("skipped {}: {}\n", s.commit.substr(0, 12), s.outcome.note);
  }
  return report_result(r, repo, runner, ref, *at_good.measured, o);
}

}  // namespace tileperf
