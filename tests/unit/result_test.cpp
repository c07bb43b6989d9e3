// A test's result file: written and read back whole, its malformed forms
// rejected with the file and the key named, and the folder scan of results.
#define BOOST_TEST_MODULE result
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "fixtures.h"
#include "results/result.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

TestResult sample() {
  TestResult r;
  r.id = {"gelu", "f16", "sm_120"};
  r.state = State::kRegressed;
  r.exit_code = kExitRegression;
  r.message = "1 metric(s) over the limit";
  r.key_metrics = {{"sass.instructions", 110}, {"regs", 32}};
  r.seconds = {{"compile", 1.5}};
  r.run = "run-1";
  MetricDiff d;
  d.name = "sass.instructions";
  d.baseline = 100;
  d.current = 110;
  d.limit = 1;
  d.direction = Direction::kLower;
  d.verdict = Verdict::kRegressed;
  d.change = Change::kChanged;
  r.diff = {d};
  r.broken = {{"regs <= 64", "regs", "spills", "checks/gelu.json", "regs = 70"}};
  r.lines = {{"gelu.py:21", 8, 10, "y = ct.exp(x)"}};
  r.notes = {"a note"};
  r.toolchain_change = {"tileiras 13.4.92 -> 13.5.37"};
  r.tuning = {"parameters[5].value: 64 -> 128"};
  r.launch = "est. 352 us";
  return r;
}

// The terminal message of reading `text` as the result file "r.json".
std::string error_of(const std::string& text) {
  try {
    result_from_json(parse_json(text, "r.json"), "r.json");
  } catch (const InputError& e) {
    return format_error(e);
  }
  return "";
}

void put(const testing::TempFolder& f, const std::string& rel, const TestResult& r) {
  write_file_atomic((f.root / rel).string(), to_json(r).dump(2) + "\n", Durability::kRenamed);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_result_round_trips) {
  TestResult r = sample();
  nlohmann::json j = to_json(r);
  BOOST_TEST(j.at("format") == kResultFormat);
  BOOST_TEST(j.at("test") == "perf.gelu.f16.sm_120");
  TestResult back = result_from_json(j, "r.json");
  BOOST_TEST(back.id.name() == r.id.name());
  BOOST_TEST(std::string(state_name(back.state)) == "regressed");
  BOOST_TEST(back.exit_code == kExitRegression);
  BOOST_TEST(back.message == r.message);
  BOOST_TEST((back.key_metrics == r.key_metrics));
  BOOST_TEST((back.seconds == r.seconds));
  BOOST_TEST(back.run == "run-1");
  BOOST_REQUIRE(back.diff.size() == 1u);
  BOOST_TEST(back.diff[0].name == "sass.instructions");
  BOOST_TEST(back.diff[0].baseline == 100);
  BOOST_TEST(back.diff[0].current == 110);
  BOOST_CHECK(back.diff[0].verdict == Verdict::kRegressed);
  BOOST_REQUIRE(back.broken.size() == 1u);
  BOOST_TEST(back.broken[0].found == "regs = 70");
  BOOST_REQUIRE(back.lines.size() == 1u);
  BOOST_TEST(back.lines[0].text == "y = ct.exp(x)");
  BOOST_TEST(back.lines[0].delta() == 2);
  BOOST_TEST(back.notes == r.notes);
  BOOST_TEST(back.toolchain_change == r.toolchain_change);
  BOOST_TEST(back.tuning == r.tuning);
  BOOST_TEST(back.launch == r.launch);
  BOOST_TEST(to_json(back) == j);
}

BOOST_AUTO_TEST_CASE(the_cache_state_is_not_written) {
  TestResult r = sample();
  r.cache = "hit";
  BOOST_TEST(!to_json(r).contains("cache"));
}

BOOST_AUTO_TEST_CASE(malformed_results_name_the_file_and_the_key) {
  nlohmann::json good = to_json(sample());
  auto with = [&](const std::string& key, nlohmann::json value) {
    nlohmann::json j = good;
    j[key] = std::move(value);
    return j.dump();
  };
  nlohmann::json missing = good;
  missing.erase("exit_code");
  BOOST_TEST(error_of(missing.dump()) == "tileperf: error: r.json: malformed result: key 'exit_code' is missing\n");
  BOOST_TEST(error_of("[1]") == "tileperf: error: r.json: malformed result: expected a JSON object\n");
  BOOST_TEST(error_of(with("format", "other/1")) == "tileperf: error: r.json: not a tileperf-result/1 file\n");
  BOOST_TEST(error_of(with("kernel", "a-b")) ==
             "tileperf: error: r.json: malformed result: key 'kernel' must match [A-Za-z0-9_]+\n");
  BOOST_TEST(error_of(with("arch", "x86")) ==
             "tileperf: error: r.json: malformed result: key 'arch' must look like sm_120\n");
  BOOST_TEST(error_of(with("exit_code", 256)) ==
             "tileperf: error: r.json: malformed result: key 'exit_code' must be an exit code\n");
  BOOST_TEST(error_of(with("notes", {1})) ==
             "tileperf: error: r.json: malformed result: key 'notes' must be a list of strings\n");
  nlohmann::json diff = good;
  diff["diff"][0]["limit"] = "1";
  BOOST_TEST(error_of(diff.dump()) ==
             "tileperf: error: r.json: malformed result: key 'diff[0].limit' must be a number\n");
  BOOST_TEST(error_of(with("state", "sideways")).find("r.json") != std::string::npos);
  BOOST_TEST(error_of("{\"format\": ").rfind("tileperf: error: r.json:1: ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(results_are_collected_sorted_and_once) {
  testing::TempFolder f("result");
  TestResult a = sample(), b = sample();
  b.id.config = "a32";
  put(f, "gelu/f16.sm_120.result.json", a);
  put(f, "gelu/a32.sm_120.result.json", b);
  auto results = collect_results({f.root.string()});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].id.config == "a32");
  BOOST_TEST(results[1].id.config == "f16");
  BOOST_TEST(results[1].file == (f.root / "gelu/f16.sm_120.result.json").string());

  put(f, "shard2/gelu/f16.sm_120.result.json", a);
  std::string message;
  try {
    collect_results({f.root.string()});
  } catch (const InputError& e) {
    message = e.what();
  }
  BOOST_TEST(message.find("perf.gelu.f16.sm_120 was already read from") != std::string::npos, message);
  BOOST_CHECK_THROW(collect_results({(f.root / "none").string()}), InputError);
}
