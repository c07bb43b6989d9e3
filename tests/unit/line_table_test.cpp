// Source lines of SASS instructions from the cubin's DWARF line table.
#define BOOST_TEST_MODULE line_table
#include <boost/test/unit_test.hpp>

#include "analysis/cfg.h"
#include "readers/elf.h"
#include "fixtures.h"
#include "readers/line_table.h"
#include "readers/sass.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

LineTable table_of(const std::string& cubin_name) {
  std::string data = fixture(cubin_name);
  return read_line_table(data, parse_elf(data, cubin_name), cubin_name);
}

SassListing listing_of(const std::string& name) {
  std::istringstream in(fixture(name));
  return parse_sass(in, name);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_instruction_of_gelu_has_a_line_of_the_kernel) {
  for (const char* arch : {"sm_90", "sm_120"}) {
    std::string base = std::string("gelu.f16_1024.") + arch;
    LineTable table = table_of(base + ".cubin");
    auto listing = listing_of(base + ".sass");
    const auto& fn = listing.functions.at(0);
    for (std::size_t i = 0; i < fn.padding_begin; ++i) {
      auto line = table.find(fn.name, fn.instructions[i].address);
      BOOST_TEST_INFO(base << " " << fn.instructions[i].address);
      BOOST_REQUIRE(line);
      BOOST_TEST(file_name(line->file) == "gelu.py");
      // @ct.kernel on line 16; the kernel's body ends on line 22.
      BOOST_TEST(line->line >= 16);
      BOOST_TEST(line->line <= 22);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_branches_closing_matmuls_loops_come_from_its_k_loop) {
  // kernels/matmul.py lines 35-38: `for k in range(...)` and its body. The
  // branch closing each loop (producer and consumer) comes from those lines
  // on every architecture, from the `for` line itself for most of them.
  for (const char* arch : {"sm_90", "sm_100", "sm_120"}) {
    std::string base = std::string("matmul.f16_128x128x64.") + arch;
    LineTable table = table_of(base + ".cubin");
    auto listing = listing_of(base + ".sass");
    auto g = build_graph(listing.functions.at(0));
    int closing = 0, on_for_line = 0;
    for (const auto& loop : g.loops) {
      if (loop.spin) continue;
      for (std::size_t latch : loop.latches) {
        auto line = table.find(listing.functions[0].name, g.block_end_address(latch));
        BOOST_REQUIRE(line);
        BOOST_TEST(file_name(line->file) == "matmul.py");
        BOOST_TEST(line->line >= 35);
        BOOST_TEST(line->line <= 38);
        ++closing;
        on_for_line += line->line == 35;
      }
    }
    BOOST_TEST_INFO(base);
    BOOST_TEST(closing == 2);
    BOOST_TEST(on_for_line >= 1);
  }
}

BOOST_AUTO_TEST_CASE(a_cubin_without_line_information_gives_an_empty_table) {
  // two_functions was compiled without --lineinfo.
  LineTable table = table_of("two_functions.sm_120.cubin");
  BOOST_TEST(table.empty());
  BOOST_TEST(!table.find("softmax_a", 0));
}

BOOST_AUTO_TEST_CASE(a_damaged_line_table_is_an_error_naming_the_file) {
  std::string data = fixture("gelu.f16_1024.sm_90.cubin");
  ElfFile elf = parse_elf(data, "x.cubin");
  const ElfSection& s = elf.sections.at(static_cast<std::size_t>(find_section(elf, ".debug_line")));
  // Claim a unit longer than the section.
  std::string bad = data;
  bad[s.offset] = '\xff';
  bad[s.offset + 1] = '\xff';
  BOOST_TEST(error_message([&] { read_line_table(bad, elf, "x.cubin"); }).find("x.cubin: .debug_line:") !=
             std::string::npos);
  // An unsupported DWARF version.
  bad = data;
  bad[s.offset + 4] = 9;
  BOOST_TEST(error_message([&] {
               read_line_table(bad, elf, "x.cubin");
             }).find("unsupported DWARF line table version 9") != std::string::npos);
}
