#define BOOST_TEST_MODULE policy
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "fixtures.h"
#include "support/error.h"
#include "metrics/metrics.h"
#include "gate/policy.h"
#include "support/text.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

struct TempDir : testing::TempFolder {
  const fs::path& path = root;
  TempDir() : TempFolder("policy") {}
  void write(const std::string& name, const std::string& text) const {
    write_file_atomic((path / name).string(), text);
  }
};

std::string error_of_load(const TempDir& dir) {
  try {
    load_policy(dir.path.string(), "gelu", "f16");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(tolerances) {
  BOOST_TEST(parse_tolerance("5%").relative == 0.05);
  BOOST_TEST(parse_tolerance("5%").absolute == 0);
  BOOST_TEST(parse_tolerance("10").absolute == 10);
  auto both = parse_tolerance("2.5% | 10");
  BOOST_TEST(both.relative == 0.025);
  BOOST_TEST(both.absolute == 10);
  BOOST_TEST(both.limit(100) == 10.0);
  BOOST_TEST(both.limit(1000) == 25.0);
  BOOST_TEST(parse_tolerance("0").limit(500) == 0.0);
  BOOST_CHECK_THROW(parse_tolerance("five"), UsageError);
  BOOST_CHECK_THROW(parse_tolerance("5% | 6%"), UsageError);
  BOOST_CHECK_THROW(parse_tolerance("1 | 2 | 3"), UsageError);
  BOOST_CHECK_THROW(parse_tolerance("-1"), UsageError);
}

BOOST_AUTO_TEST_CASE(globs) {
  BOOST_TEST(glob_match("sass.mufu.*", "sass.mufu.EX2"));
  BOOST_TEST(!glob_match("sass.mufu.*", "sass.mufu"));
  BOOST_TEST(glob_match("*", "anything"));
  BOOST_TEST(glob_match("sass.*.TANH", "sass.mufu.TANH"));
  BOOST_TEST(!glob_match("regs", "regs2"));
}

BOOST_AUTO_TEST_CASE(first_match_and_override_order) {
  TempDir dir;
  dir.write("default.json", R"({"rules": [
      {"metric": "sass.opcode.*", "direction": "info"},
      {"metric": "*", "tolerance": "1%"}]})");
  dir.write("gelu.json", R"({
      "configs": {"f16": {"rules": [{"metric": "regs", "direction": "exact"}]}},
      "rules": [{"metric": "regs", "tolerance": "4"}, {"metric": "sass.opcode.MUFU.*"}]})");
  Policy p = load_policy(dir.path.string(), "gelu", "f16");
  BOOST_TEST((p.find("regs")->direction == Direction::kExact));                  // config beats kernel
  BOOST_TEST((p.find("sass.opcode.MUFU.EX2")->direction == Direction::kLower));  // kernel beats default
  BOOST_TEST((p.find("sass.opcode.FADD")->direction == Direction::kInfo));
  BOOST_TEST(p.find("cubin.bytes")->tolerance.relative == 0.01);
  BOOST_TEST(p.find("cubin.bytes")->origin == (dir.path / "default.json").string() + ": rules[1]");
  Policy other = load_policy(dir.path.string(), "gelu", "f32");
  BOOST_TEST(other.find("regs")->tolerance.absolute == 4);
}

BOOST_AUTO_TEST_CASE(errors_name_file_and_key) {
  TempDir dir;
  BOOST_TEST(error_of_load(dir) == (dir.path / "default.json").string() + ": default policy file is missing");
  dir.write("default.json", R"({"rules": [{"metric": "*", "direction": "down"}]})");
  BOOST_TEST(error_of_load(dir) ==
             (dir.path / "default.json").string() +
                 ": key 'rules[0]': direction must be one of lower, higher, exact, info; got 'down'");
  dir.write("default.json", R"({"rules": [{"metric": "*", "tolerence": "1%"}]})");
  BOOST_TEST(error_of_load(dir) ==
             (dir.path / "default.json").string() + ": key 'rules[0]': unknown field 'tolerence'");
  dir.write("default.json", R"({"rules": [{"metric": "*"}]})");
  dir.write("gelu.json", R"({"rule": []})");
  BOOST_TEST(error_of_load(dir) == (dir.path / "gelu.json").string() + ": unknown key 'rule'");
  dir.write("gelu.json", R"({"rules": [{"metric": 3}]})");
  BOOST_TEST(error_of_load(dir) ==
             (dir.path / "gelu.json").string() + ": key 'rules[0]': needs a string 'metric' and string fields");
  dir.write("gelu.json", R"({"rules": [{"metric": "x", "tolerance": "lots"}]})");
  BOOST_TEST(error_of_load(dir) == (dir.path / "gelu.json").string() +
                                       ": key 'rules[0]': tolerance 'lots' must look like '5%', '10' or '5% | 10'");
}

BOOST_AUTO_TEST_CASE(invariants_parse) {
  auto inv = parse_invariant("local.bytes == 0");
  BOOST_TEST(inv.metric == "local.bytes");
  BOOST_TEST(inv.op == "==");
  BOOST_TEST(inv.value == 0);
  BOOST_TEST(!inv.is_set);
  auto set = parse_invariant("remarks.load.tma_shape.* == {64x128, 64x64}");
  BOOST_TEST(set.is_set);
  BOOST_TEST(set.metric == "remarks.load.tma_shape");
  BOOST_TEST((set.set == std::vector<std::string>{"64x128", "64x64"}));
  BOOST_CHECK_THROW(parse_invariant("local.bytes = 0"), UsageError);
  BOOST_CHECK_THROW(parse_invariant("regs.* <= 4"), UsageError);
  BOOST_CHECK_THROW(parse_invariant("remarks.load.tma_shape == {64x64}"), UsageError);
  BOOST_CHECK_THROW(parse_invariant("remarks.load.tma_shape.* >= {64x64}"), UsageError);
}

BOOST_AUTO_TEST_CASE(invariants_evaluate) {
  Policy p;
  for (const char* text : {"local.bytes == 0", "remarks.tensor_core.passed >= 1", "loop.ii <= 200",
                           "remarks.load.tma_shape.* == {64x128, 64x64}"}) {
    p.invariants.push_back(parse_invariant(text));
  }
  Metrics m;
  m.values = {{"local.bytes", 16},
              {"remarks.tensor_core.passed", 2},
              {"remarks.load.tma_shape.64x64", 3},
              {"remarks.load.tma_shape.32x64", 0}};
  auto broken = check_invariants(p, m);
  BOOST_REQUIRE(broken.size() == 3u);
  BOOST_TEST(broken[0].found == "local.bytes = 16");
  BOOST_TEST(broken[1].found == "not measured");  // no metric: never passes by default
  BOOST_TEST(broken[2].found == "{64x64}");
  m.values["local.bytes"] = 0;
  m.values["loop.ii"] = 120;
  m.values["remarks.load.tma_shape.64x128"] = 1;
  BOOST_TEST(check_invariants(p, m).empty());
}

BOOST_AUTO_TEST_CASE(invariants_load_with_errors_naming_key) {
  TempDir dir;
  dir.write("default.json", R"({"rules": [{"metric": "*"}], "invariants": [{"require": "regs <= 255"}]})");
  dir.write("gelu.json", R"({"invariants": [{"require": "local.bytes == 0", "why": "no spills"}],
      "configs": {"f16": {"invariants": [{"require": "remarks.load.tma >= 2"}]},
                  "f32": {"invariants": [{"require": "remarks.load.tma >= 9"}]}}})");
  Policy p = load_policy(dir.path.string(), "gelu", "f16");
  BOOST_REQUIRE(p.invariants.size() == 3u);
  BOOST_TEST(p.invariants[0].text == "remarks.load.tma >= 2");
  BOOST_TEST(p.invariants[0].origin == (dir.path / "gelu.json").string() + ": configs.f16.invariants[0]");
  BOOST_TEST(p.invariants[1].why == "no spills");
  BOOST_TEST(p.invariants[2].text == "regs <= 255");
  dir.write("gelu.json", R"({"invariants": [{"require": "local.bytes = 0"}]})");
  BOOST_TEST(error_of_load(dir) ==
             (dir.path / "gelu.json").string() +
                 ": key 'invariants[0]': require 'local.bytes = 0' must look like 'local.bytes == 0'"
                 " or 'remarks.load.tma_shape.* == {64x64, 64x128}'");
  dir.write("gelu.json", R"({"configs": {"f16": {"invariant": []}}})");
  BOOST_TEST(error_of_load(dir) == (dir.path / "gelu.json").string() + ": unknown key 'configs.f16.invariant'");
}
