// The listing tileperf makes with nvdisasm directly is, byte for byte, the
// one `cuobjdump --dump-sass` prints: on every captured cubin (of every
// release under tests/fixtures, disassembled by the current tools), and on every
// cubin in the folders of TILEPERF_CUBIN_DIRS (colon-separated; e.g. the
// build tree's tileperf/ after a gate run), searched recursively.
#define BOOST_TEST_MODULE disassembly
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/error.h"
#include "support/text.h"
#include "toolchain/toolchain.h"
#include "real_tools.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

Toolchain toolchain() { return testing::real_toolchain(); }

std::vector<fs::path> cubins() {
  std::vector<fs::path> found;
  testing::add_cubins(TILEPERF_FIXTURES, found);  // every release's captured cubins
  for (const auto& dir : testing::extra_cubin_dirs()) testing::add_cubins(dir, found);
  return found;
}

}  // namespace

BOOST_AUTO_TEST_CASE(nvdisasm_directly_gives_cuobjdumps_listing) {
  Toolchain tc = toolchain();
  BOOST_REQUIRE(fs::exists(tc.nvdisasm()));
  auto all = cubins();
  BOOST_REQUIRE_GE(all.size(), 9u);
  for (const auto& cubin : all) {
    std::string expected = run_cuobjdump(tc, {"--dump-sass"}, cubin.string());
    std::string listing = run_disassembler(tc, cubin.string());
    BOOST_TEST_CONTEXT(cubin.string()) { BOOST_TEST(listing == expected); }
  }
  BOOST_TEST_MESSAGE(all.size() << " cubins: identical listings");
}

BOOST_AUTO_TEST_CASE(a_file_that_is_not_a_cubin_fails_naming_nvdisasm) {
  Toolchain tc = toolchain();
  fs::path bogus = fs::temp_directory_path() / "disassembly_test_bogus.cubin";
  write_file_atomic(bogus.string(), "not an ELF file\n");
  BOOST_CHECK_EXCEPTION(run_disassembler(tc, bogus.string()), ToolError,
                        [](const ToolError& e) { return std::string(e.what()).find("nvdisasm") != std::string::npos; });
  fs::remove(bogus);
}
