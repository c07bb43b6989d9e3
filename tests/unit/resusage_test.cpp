#define BOOST_TEST_MODULE resusage
#include <boost/test/unit_test.hpp>

#include "fixtures.h"
#include "readers/resusage.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

ResourceUsage parse_text(const std::string& text) {
  std::istringstream in(text);
  return parse_resource_usage(in, "r.txt");
}

}  // namespace

BOOST_AUTO_TEST_CASE(real_output_one_function) {
  auto usage = parse_text(fixture("gelu.f16_1024.sm_120.res-usage.txt"));
  BOOST_TEST(usage.common.at("GLOBAL") == 64);
  BOOST_REQUIRE(usage.functions.size() == 1u);
  const auto& fn = usage.functions[0];
  BOOST_TEST(fn.name == "gelu");
  BOOST_TEST(fn.get("REG") == 27);
  BOOST_TEST(fn.get("STACK") == 0);
  BOOST_TEST(fn.get("SHARED") == 0);
  BOOST_TEST(fn.get("LOCAL") == 0);
  BOOST_TEST(fn.get("CONSTANT[0]") > 0);
  BOOST_TEST(fn.get("NOT_THERE") == 0);
}

BOOST_AUTO_TEST_CASE(real_output_two_functions) {
  auto usage = parse_text(fixture("two_functions.sm_120.res-usage.txt"));
  BOOST_REQUIRE(usage.functions.size() == 2u);
  BOOST_TEST(usage.functions[0].name == "softmax_b");
  BOOST_TEST(usage.functions[1].name == "softmax_a");
  BOOST_TEST(usage.functions[1].get("SHARED") > 0);
}

BOOST_AUTO_TEST_CASE(truncated_after_function_header) {
  std::string text = first_lines(fixture("gelu.f16_1024.sm_120.res-usage.txt"), 5);
  BOOST_TEST(error_of(parse_resource_usage, text, "cut.txt") ==
             "tileperf: error: cut.txt:5: resource usage is truncated: counts missing at end\n");
}

BOOST_AUTO_TEST_CASE(malformed_counts_and_lines) {
  std::string header = "\nResource usage:\n Common:\n  GLOBAL:64\n Function k:\n";
  BOOST_TEST(error_of(parse_resource_usage, header + "  REG:12 STACK:0 SHARED:0\n", "r.txt") ==
             "tileperf: error: r.txt:6: resource counts lack LOCAL\n  REG:12 STACK:0 SHARED:0\n");
  BOOST_TEST(error_of(parse_resource_usage, header + "  REG:twelve\n", "r.txt") ==
             "tileperf: error: r.txt:6: expected KEY:VALUE resource counts\n  REG:twelve\n");
  BOOST_TEST(error_of(parse_resource_usage, "Function k:\n", "r.txt") ==
             "tileperf: error: r.txt:1: unrecognized line in resource usage\nFunction k:\n");
  BOOST_TEST(error_of(parse_resource_usage, "", "r.txt") == "tileperf: error: r.txt: no functions in resource usage\n");
}
