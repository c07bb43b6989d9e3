// The review of a merge request: the baselines it rewrote, added and
// removed, and its results against the merge base's baselines.
#define BOOST_TEST_MODULE merge_review
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "fixtures.h"
#include "gate/baseline.h"
#include "inspect/merge_review.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

const std::string kChecks = std::string(TILEPERF_SOURCE_DIR) + "/checks";

Metrics metrics(const std::string& config, std::int64_t instructions) {
  Metrics m;
  m.id = {"gelu", config, "sm_120"};
  m.values = {{"sass.instructions", instructions},
              {"regs", 32},
              {"local.bytes", 0}};  // the default invariant needs local.bytes
  m.toolchain = {{"tileiras", "13.4.92"}};
  m.flags = {"-O3"};
  m.generator = "tileperf test";
  return m;
}

struct Folders {
  testing::TempFolder folder{"merge-review"};
  fs::path root = folder.root;
  std::string base = (root / "base").string(), head = (root / "head").string(), work = (root / "work").string();
  Folders() {
    fs::create_directories(base);
    fs::create_directories(head);
    fs::create_directories(work);
  }
  void baseline(const std::string& dir, const Metrics& m) const {
    std::string rel = relative_path({FileKind::kBaseline, m.id.kernel, m.id.config, m.id.arch, ""});
    write_baseline((fs::path(dir) / rel).string(), m, load_policy(kChecks, m.id.kernel, m.id.config));
  }
  // A result of this branch's run with its metrics file beside it.
  TestResult measured(const Metrics& m) const {
    std::string prefix = test_prefix((fs::path(work) / m.id.kernel).string(), m.id.config, m.id.arch);
    write_file_atomic(prefixed_file(prefix, FileKind::kMetrics), to_json_text(m), Durability::kRenamed);
    TestResult r;
    r.id = m.id;
    r.file = prefixed_file(prefix, FileKind::kResult);
    return r;
  }
};

const TestResult& named(const std::vector<TestResult>& list, const std::string& config) {
  for (const auto& r : list) {
    if (r.id.config == config) return r;
  }
  throw std::runtime_error("no result for " + config);
}

}  // namespace

BOOST_AUTO_TEST_CASE(rewritten_added_and_removed_baselines) {
  Folders f;
  f.baseline(f.base, metrics("same", 100));
  f.baseline(f.head, metrics("same", 100));
  f.baseline(f.base, metrics("worse", 100));
  f.baseline(f.head, metrics("worse", 200));
  f.baseline(f.base, metrics("gone", 100));
  f.baseline(f.head, metrics("added", 100));
  Review review = make_review({}, {f.base, f.head, kChecks});
  BOOST_REQUIRE(review.accepted.size() == 2u);
  BOOST_TEST(review.accepted[0].id.config == "added");
  BOOST_TEST(std::string(state_name(review.accepted[0].state)) == "created");
  BOOST_TEST(review.accepted[0].message == "baseline added");
  const TestResult& worse = named(review.accepted, "worse");
  BOOST_TEST(std::string(state_name(worse.state)) == "regressed");
  BOOST_TEST(worse.key_metrics.at("sass.instructions") == 200);
  BOOST_TEST((review.removed == std::vector<std::string>{"perf.gelu.gone.sm_120"}));
  BOOST_TEST(review.against_base.empty());
}

BOOST_AUTO_TEST_CASE(results_against_the_merge_base) {
  Folders f;
  f.baseline(f.base, metrics("better", 100));
  f.baseline(f.base, metrics("even", 100));
  TestResult unmeasured;
  unmeasured.id = {"gelu", "skipped", "sm_120"};
  unmeasured.file = (fs::path(f.work) / "gelu" / "skipped.sm_120.result.json").string();
  std::vector<TestResult> results = {f.measured(metrics("better", 50)), f.measured(metrics("even", 100)),
                                     f.measured(metrics("fresh", 100)), unmeasured};
  Review review = make_review(results, {f.base, "", kChecks});
  BOOST_TEST(review.accepted.empty());
  BOOST_TEST(review.unmeasured == 1u);
  BOOST_REQUIRE(review.against_base.size() == 3u);
  BOOST_TEST(std::string(state_name(named(review.against_base, "better").state)) == "improved");
  BOOST_TEST(std::string(state_name(named(review.against_base, "even").state)) == "pass");
  const TestResult& fresh = named(review.against_base, "fresh");
  BOOST_TEST(std::string(state_name(fresh.state)) == "new");
  BOOST_TEST(fresh.message == "no baseline at the merge base");
}

BOOST_AUTO_TEST_CASE(a_missing_baseline_folder_is_named) {
  Folders f;
  std::string missing = f.base + "/none";
  BOOST_CHECK_EXCEPTION(make_review({}, {missing, "", kChecks}), InputError, [&](const InputError& e) {
    return std::string(e.what()) == missing + ": not a folder of baselines";
  });
}
