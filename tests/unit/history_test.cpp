// The history of baselines (both formats, moves, removals, unreadable
// versions), series and drift, git's log and cat-file output, and git bisect
// driven on a real repository.
#define BOOST_TEST_MODULE history
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "gate/baseline.h"
#include "gate/bisect.h"
#include "support/error.h"
#include "toolchain/git.h"
#include "gate/history.h"
#include "report/history_report.h"
#include "gate/policy.h"
#include "support/sha256.h"
#include "support/text.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

const char* kPolicy = R"({"rules": [
  {"metric": "sass.opcode.*", "direction": "info"},
  {"metric": "sass.instructions", "direction": "lower", "tolerance": "1%"},
  {"metric": "*", "direction": "lower", "tolerance": "0"}]})";

Policy policy() { return parse_policy(kPolicy, "checks/default.json", "f16_1024"); }

Metrics metrics(std::int64_t instructions, std::string tileiras = "13.5.37") {
  Metrics m;
  m.id = {"gelu", "f16_1024", "sm_120"};
  m.toolchain = {{"tileiras", tileiras}};
  m.signature = {{"symbol", "gelu"}, {"parameters[2].kind", "ConstantConstraint"}, {"parameters[2].value", "1024"}};
  m.values = {{"sass.instructions", instructions}, {"sass.opcode.FFMA", instructions / 4}, {"regs", 27}};
  return m;
}

// Blobs by content: the blob id is the text's digest.
struct Blobs {
  std::map<std::string, std::string> texts;
  std::string add(const std::string& text) {
    std::string id = sha256_hex(text).substr(0, 40);
    texts[id] = text;
    return id;
  }
};

GitLogEntry commit(const std::string& sha, std::vector<GitChange> changes) {
  GitLogEntry e;
  e.commit.sha = sha + std::string(40 - sha.size(), '0');
  e.commit.date = "2026-12-01";
  e.commit.subject = "commit " + sha;
  e.changes = std::move(changes);
  return e;
}

// A baseline in one file, as releases before the detail split wrote it.
std::string one_file(const Metrics& m) { return to_json_text(m); }

const std::string kMain = "baselines/gelu/f16_1024.sm_120.json";
const std::string kDetail = "baselines/gelu/f16_1024.sm_120.detail.json";

// A baseline as two files, written by write_baseline into a scratch folder.
std::pair<std::string, std::string> two_files(const Metrics& m) {
  fs::path dir = fs::temp_directory_path() / ("tileperf-history-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string path = (dir / "f16_1024.sm_120.json").string();
  write_baseline(path, m, policy());
  auto out = std::make_pair(read_file(path), read_file(detail_path(path)));
  fs::remove_all(dir);
  return out;
}

History build(Blobs& blobs, std::vector<GitLogEntry> log) {
  HistoryInput in;
  in.log = std::move(log);
  in.blob_text = [&blobs](const std::string& b) { return blobs.texts.at(b); };
  return build_history(in);
}

std::vector<std::int64_t> values(const MetricSeries& s) {
  std::vector<std::int64_t> out;
  for (const auto& p : s.points) out.push_back(p.value.value_or(-1));
  return out;
}

const MetricSeries* find_series(const TestSeries& t, const std::string& metric) {
  for (const auto& s : t.metrics) {
    if (s.metric == metric) return &s;
  }
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(both_baseline_formats_make_one_history) {
  Blobs b;
  auto [main2, detail2] = two_files(metrics(101));
  History h = build(b, {commit("a1", {{kMain, b.add(one_file(metrics(100)))}}),
                        commit("b2", {{kMain, b.add(main2)}, {kDetail, b.add(detail2)}})});
  BOOST_REQUIRE_EQUAL(h.tests.size(), 1u);
  const auto& versions = h.tests[0].versions;
  BOOST_REQUIRE_EQUAL(versions.size(), 2u);
  BOOST_TEST(versions[0].metrics.get("sass.opcode.FFMA") == 25);
  BOOST_TEST(versions[1].metrics.get("sass.opcode.FFMA") == 25);  // from the detail file
  BOOST_TEST(versions[1].metrics.get("sass.instructions") == 101);
  BOOST_TEST(h.unreadable.empty());
}

BOOST_AUTO_TEST_CASE(a_moved_baseline_keeps_its_history_and_a_deleted_one_ends_removed) {
  Blobs b;
  std::string text = one_file(metrics(100));
  const std::string moved = "perf/baselines/gelu/f16_1024.sm_120.json";
  History h = build(b, {commit("a1", {{kMain, b.add(text)}}), commit("b2", {{kMain, ""}, {moved, b.add(text)}}),
                        commit("c3", {{moved, ""}})});
  BOOST_REQUIRE_EQUAL(h.tests.size(), 1u);
  const auto& versions = h.tests[0].versions;
  BOOST_REQUIRE_EQUAL(versions.size(), 2u);  // the move changed nothing
  BOOST_TEST(!versions[0].removed);
  BOOST_TEST(versions[0].path == moved);
  BOOST_TEST(versions[1].removed);
  BOOST_TEST(versions[1].commit == 2u);
}

BOOST_AUTO_TEST_CASE(an_unreadable_version_is_listed_and_the_history_goes_on) {
  Blobs b;
  auto [main2, detail2] = two_files(metrics(101));
  History h =
      build(b, {commit("a1", {{kMain, b.add(one_file(metrics(100)))}}), commit("b2", {{kMain, b.add("{not json")}}),
                commit("c3", {{kMain, b.add(main2)}}),  // its detail file is missing
                commit("d4", {{kDetail, b.add(detail2)}})});
  BOOST_REQUIRE_EQUAL(h.unreadable.size(), 2u);
  BOOST_TEST(h.unreadable[0].error.find("b200000:baselines/gelu/f16_1024.sm_120.json:1") == 0);
  BOOST_TEST(h.unreadable[1].error ==
             "c300000:baselines/gelu/f16_1024.sm_120.detail.json: missing: "
             "c300000:baselines/gelu/f16_1024.sm_120.json names it as its detail");
  BOOST_REQUIRE_EQUAL(h.tests[0].versions.size(), 2u);
  BOOST_TEST(h.tests[0].versions[1].commit == 3u);
}

BOOST_AUTO_TEST_CASE(steps_within_the_tolerance_that_add_up_past_it_are_drift) {
  Blobs b;
  std::vector<GitLogEntry> log;
  std::int64_t values_in[] = {1000, 1008, 1016, 1024, 1200, 1205, 1209};
  for (std::size_t i = 0; i < std::size(values_in); ++i) {
    log.push_back(commit("c" + std::to_string(i), {{kMain, b.add(one_file(metrics(values_in[i])))}}));
  }
  History h = build(b, log);
  TestSeries t = test_series(h.tests[0], policy(), {});
  const MetricSeries* s = find_series(t, "sass.instructions");
  BOOST_REQUIRE(s);
  BOOST_TEST(values(*s) == std::vector<std::int64_t>({1000, 1008, 1016, 1024, 1200, 1205, 1209}),
             boost::test_tools::per_element());
  BOOST_TEST((s->points[4].verdict == Verdict::kRegressed));  // 1024 -> 1200 is a step past the limit
  BOOST_REQUIRE_EQUAL(t.drifts.size(), 1u);                   // 1200 -> 1209 stays within 1% of 1200
  const Drift& d = t.drifts[0];
  BOOST_TEST(d.from == 0u);
  BOOST_TEST(d.to == 3u);
  BOOST_TEST(d.crossed == 2u);  // 1000 -> 1016 is past +10
  BOOST_TEST(d.limit == 10.0);
  BOOST_TEST(!find_series(t, "sass.opcode.FFMA"));  // informational: shown only when asked for
  BOOST_TEST(find_series(test_series(h.tests[0], policy(), {"sass.opcode.*"}), "sass.opcode.FFMA"));
}

BOOST_AUTO_TEST_CASE(a_toolchain_bump_or_a_tuning_change_ends_a_drift_run) {
  Blobs b;
  Metrics tuned = metrics(1016);
  tuned.signature["parameters[2].value"] = "2048";
  History h = build(
      b, {commit("a1", {{kMain, b.add(one_file(metrics(1000, "13.4.92")))}}),
          commit("b2", {{kMain, b.add(one_file(metrics(1008)))}}), commit("c3", {{kMain, b.add(one_file(tuned))}})});
  TestSeries t = test_series(h.tests[0], policy(), {});
  BOOST_TEST(t.drifts.empty());
  BOOST_REQUIRE_EQUAL(t.events.size(), 2u);
  BOOST_TEST(t.events[0].toolchain == std::vector<std::string>({"tileiras 13.4.92 -> 13.5.37"}));
  BOOST_TEST((t.events[1].signature == SignatureChange::kTuning));
  BOOST_TEST(t.events[1].signature_fields == std::vector<std::string>({"parameters[2].value: 1024 -> 2048"}));
  const MetricSeries* s = find_series(t, "sass.instructions");
  BOOST_REQUIRE(s);
  BOOST_TEST(s->points[1].ends_run());
  BOOST_TEST(s->points[2].ends_run());
}

BOOST_AUTO_TEST_CASE(the_text_names_each_change_and_the_drift) {
  Blobs b;
  std::vector<GitLogEntry> log;
  for (std::int64_t v : {1000, 1008, 1016}) {
    log.push_back(commit("c" + std::to_string(v), {{kMain, b.add(one_file(metrics(v)))}}));
  }
  History h = build(b, log);
  HistoryView view{&h, {test_series(h.tests[0], policy(), {"sass.instructions"})}, "", ""};
  std::string text = history_text(view);
  BOOST_TEST(text.find("    c101600 2026-12-01         1016        +8    +0.8%  within") != std::string::npos, text);
  BOOST_TEST(text.find("  drift: sass.instructions 1000 -> 1016 (+16, +1.6%; limit +10) over 2 step(s) each "
                       "within it, from c100000 to c101600, past the limit at c101600: c100800 +8, c101600 +8\n") !=
                 std::string::npos,
             text);
  auto json = history_json(view);
  BOOST_TEST(json["tests"][0]["drifts"][0]["crossed"] == h.commits[2].sha);
  fs::path file = fs::temp_directory_path() / ("tileperf-history-notes-" + std::to_string(getpid()) + ".json");
  write_file_atomic(file.string(), json.dump());
  auto notes = read_drift_notes(file.string());
  fs::remove(file);
  BOOST_REQUIRE_EQUAL(notes["perf.gelu.f16_1024.sm_120"].size(), 1u);
  BOOST_TEST(notes["perf.gelu.f16_1024.sm_120"][0].find("sass.instructions 1000 -> 1016") == 0);
  std::string html = history_html(view);
  BOOST_TEST(html.find("<rect class=\"drift\"") != std::string::npos);
  BOOST_TEST(html.find("<a href=\"#commit-" + h.commits[2].sha + "\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(git_log_output_is_read_commit_by_commit) {
  std::string out = std::string("\x1e") + "aaa\x1f" + "ppp qqq\x1f" + "1700000000\x1f" + "2023-11-14\x1f" +
                    "a subject \x1f with a separator" + std::string(1, '\0') + "\n:100644 100644 " +
                    std::string(40, '1') + " " + std::string(40, '2') + " M" + std::string(1, '\0') +
                    "baselines/x.json" + std::string(1, '\0') + ":100644 000000 " + std::string(40, '2') + " " +
                    std::string(40, '0') + " D" + std::string(1, '\0') + "baselines/y.json" + std::string(1, '\0') +
                    "\x1e" + "bbb\x1f\x1f" + "1700000001\x1f" + "2023-11-15\x1f" + "root" + std::string(1, '\0');
  auto entries = parse_git_log(out);
  BOOST_REQUIRE_EQUAL(entries.size(), 2u);
  BOOST_TEST(entries[0].commit.parents == std::vector<std::string>({"ppp", "qqq"}));
  BOOST_TEST(entries[0].commit.subject == "a subject \x1f with a separator");
  BOOST_REQUIRE_EQUAL(entries[0].changes.size(), 2u);
  BOOST_TEST(entries[0].changes[0].blob == std::string(40, '2'));
  BOOST_TEST(entries[0].changes[1].blob == "");
  BOOST_TEST(entries[1].commit.parents.empty());
  BOOST_TEST(entries[1].commit.time == 1700000001);
}

BOOST_AUTO_TEST_CASE(cat_file_batch_output_splits_by_size) {
  auto blobs = parse_cat_file_batch("abc blob 5\nhe\nlo\ndef blob 0\n\n");
  BOOST_TEST(blobs.at("abc") == "he\nlo");
  BOOST_TEST(blobs.at("def") == "");
  BOOST_CHECK_THROW(parse_cat_file_batch("abc blob 9\nshort\n"), ToolError);
}

BOOST_AUTO_TEST_CASE(bisect_output_names_the_first_commit_or_the_candidates) {
  std::string a(40, 'a'), b(40, 'b');
  BOOST_TEST(*parse_bisect_output(a + " is the first bad commit\ncommit " + a + "\n").first == a);
  auto v =
      parse_bisect_output("There are only 'skip'ped commits left to test.\nThe first bad commit could be any of:\n" +
                          a + "\n" + b + "\nWe cannot bisect more!\n");
  BOOST_TEST(!v.first);
  BOOST_TEST(v.candidates == std::vector<std::string>({a, b}));
  BOOST_TEST(!parse_bisect_output("Bisecting: 2 revisions left to test after this (roughly 1 step)\n").done());
}

namespace {

// A repository of commits whose file `value` holds the given values ("x":
// a commit that cannot be measured).
struct Repo {
  fs::path dir = fs::temp_directory_path() / ("tileperf-bisect-test-" + std::to_string(getpid()));
  std::vector<std::string> commits;
  explicit Repo(const std::vector<std::string>& values) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    git({"init", "-q"});
    for (const auto& v : values) {
      std::ofstream(dir / "value") << v << "\n";
      git({"add", "value"});
      git({"-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "--allow-empty", "-m", "value " + v});
      commits.push_back(trim(git({"rev-parse", "HEAD"})));
    }
  }
  ~Repo() { fs::remove_all(dir); }
  std::string git(const std::vector<std::string>& args) { return git_output(dir.string(), args); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(git_bisect_finds_the_first_change_past_skipped_commits) {
  Repo repo({"1", "1", "1", "x", "1", "2", "x", "2", "2", "2", "2", "2"});
  std::vector<std::string> judged;
  auto judge = [&](const std::string& commit) -> StepOutcome {
    judged.push_back(commit);
    std::string v = trim(read_file((repo.dir / "value").string()));
    if (v == "x") return {StepKind::kSkipped, "does not build"};
    return {v == "1" ? StepKind::kSame : StepKind::kChanged, v};
  };
  BisectResult r = run_git_bisect(repo.dir.string(), repo.commits.front(), repo.commits.back(), judge);
  BOOST_REQUIRE(r.first);
  BOOST_TEST(*r.first == repo.commits[5]);
  BOOST_TEST(r.steps.size() == judged.size());
  BOOST_TEST(trim(repo.git({"rev-parse", "HEAD"})) == repo.commits.back());  // git bisect reset
}

BOOST_AUTO_TEST_CASE(git_bisect_names_the_candidates_a_skipped_commit_leaves) {
  Repo repo({"1", "x", "2"});
  auto judge = [&](const std::string&) -> StepOutcome { return {StepKind::kSkipped, "does not build"}; };
  BisectResult r = run_git_bisect(repo.dir.string(), repo.commits[0], repo.commits[2], judge);
  BOOST_TEST(!r.first);
  BOOST_TEST(r.candidates.size() == 2u);
}
