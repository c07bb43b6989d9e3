// The tools' facts read from their own output: the version banner and the
// architectures of `tileiras --help` (captured, tests/fixtures/13.5.37), the
// flags tileperf compiles with, and what a tool that cannot run gives.
#define BOOST_TEST_MODULE toolchain
#include <boost/test/unit_test.hpp>

#include <limits>

#include "support/error.h"
#include "support/text.h"
#include "toolchain/toolchain.h"

using namespace tileperf;

namespace {

std::string captured(const std::string& name) { return read_file(std::string(TILEPERF_FIXTURES) + "/13.5.37/" + name); }

}  // namespace

BOOST_AUTO_TEST_CASE(the_version_is_read_from_the_banner) {
  BOOST_TEST(parse_version_banner(captured("tileiras.version.txt"), "tileiras") == "13.5.37");
  BOOST_TEST(parse_version_banner("Cuda compilation tools, release 13.4, V13.4.92\n", "nvdisasm") == "13.4.92");
  // A "release" without its ", V" version is passed over.
  BOOST_TEST(parse_version_banner("release notes\nrelease 13.4, V13.4.92", "t") == "13.4.92");
}

BOOST_AUTO_TEST_CASE(a_banner_without_a_version_is_a_tool_error) {
  for (const char* banner : {"", "release 13.4", "Cuda compilation tools, release 13.4, V13.4", "V13.4.92"}) {
    BOOST_CHECK_EXCEPTION(parse_version_banner(banner, "tileiras"), ToolError, [](const ToolError& e) {
      return std::string(e.what()).rfind("cannot read the version of tileiras from: ", 0) == 0;
    });
  }
}

BOOST_AUTO_TEST_CASE(the_architectures_are_the_gpu_name_values) {
  auto archs = parse_architectures(captured("tileiras.help.txt"));
  std::vector<std::string> expected = {"sm_80",  "sm_86",  "sm_87",  "sm_88",  "sm_89",  "sm_90",
                                       "sm_100", "sm_103", "sm_107", "sm_110", "sm_120", "sm_121"};
  BOOST_TEST(archs == expected, boost::test_tools::per_element());
  BOOST_TEST(parse_architectures("").empty());
  // Values of another option, and lines after the list, are not architectures.
  BOOST_TEST((
      parse_architectures("  --other=<v>\n    =sm_1 - x\n  --gpu-name=<v>\n    =sm_90a  - a\n  -O3\n    =sm_7 - y\n") ==
      std::vector<std::string>{"sm_90a"}));
}

BOOST_AUTO_TEST_CASE(the_flags_are_cutiles_with_the_remarks_added) {
  BOOST_TEST((tileiras_flags("sm_120") == std::vector<std::string>{"--gpu-name", "sm_120", "-O3", "--lineinfo",
                                                                   "--remark-format=yaml", "--remarks=all"}));
}

BOOST_AUTO_TEST_CASE(the_disassemblers_ship_beside_their_tools) {
  Toolchain tc;
  tc.tileiras = "/opt/cuda/bin/tileiras";
  tc.cuobjdump = "/opt/cuda/bin/cuobjdump";
  BOOST_TEST(tc.tileirdisasm() == "/opt/cuda/bin/tileirdisasm");
  BOOST_TEST(tc.nvdisasm() == "/opt/cuda/bin/nvdisasm");
}

BOOST_AUTO_TEST_CASE(the_timeout_must_be_positive_and_finite) {
  Toolchain tc;
  BOOST_CHECK_NO_THROW(check_timeout(tc));
  for (double t : {0.0, -5.0, std::numeric_limits<double>::infinity()}) {
    tc.timeout_seconds = t;
    BOOST_CHECK_THROW(check_timeout(tc), UsageError);
  }
  tc.timeout_seconds = -5;
  BOOST_CHECK_EXCEPTION(check_timeout(tc), UsageError, [](const UsageError& e) {
    return std::string(e.what()) == "--timeout must be a positive number of seconds, got -5";
  });
}

BOOST_AUTO_TEST_CASE(a_tool_that_fails_its_version_call_is_a_tool_error) {
  BOOST_CHECK_EXCEPTION(tool_version("/bin/false"), ToolError, [](const ToolError& e) {
    return std::string(e.what()) == "/bin/false --version failed: exit 1";
  });
  BOOST_CHECK_THROW(tool_version("/nonexistent/tileiras"), Error);
}
