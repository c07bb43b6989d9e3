#define BOOST_TEST_MODULE elf
#include <boost/test/unit_test.hpp>

#include <cstring>

#include "readers/elf.h"
#include "fixtures.h"
#include "readers/sass.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

std::string error_of_elf(const std::string& data) {
  return error_message([&] { parse_elf(data, "k.cubin"); });
}

template <typename T>
void put(std::string& s, std::size_t at, T v) {
  std::memcpy(s.data() + at, &v, sizeof v);
}

// A minimal ELF64: header, then sections .text.k (32 bytes), .debug_line
// (10 bytes), .shstrtab, then the section header table (4 entries).
std::string tiny_elf() {
  const std::string names = std::string("\0.text.k\0.debug_line\0.shstrtab\0", 31);
  std::string s(64, '\0');
  std::memcpy(s.data(),
              "\x7f"
              "ELF\x02\x01",
              6);
  std::size_t text = s.size();
  s += std::string(32, 'T');
  std::size_t debug = s.size();
  s += std::string(10, 'D');
  std::size_t strtab = s.size();
  s += names;
  std::size_t shoff = s.size();
  s += std::string(4 * 64, '\0');
  put<std::uint64_t>(s, 0x28, shoff);
  put<std::uint16_t>(s, 0x34, 64);
  put<std::uint16_t>(s, 0x3a, 64);
  put<std::uint16_t>(s, 0x3c, 4);
  put<std::uint16_t>(s, 0x3e, 3);
  auto section = [&](int i, std::uint32_t name, std::uint32_t type, std::uint64_t off, std::uint64_t size) {
    std::size_t at = shoff + i * 64;
    put(s, at, name);
    put(s, at + 4, type);
    put(s, at + 0x18, off);
    put(s, at + 0x20, size);
  };
  section(1, 1, 1, text, 32);
  section(2, 9, 1, debug, 10);
  section(3, 21, 3, strtab, names.size());
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(synthetic_sizes) {
  auto elf = parse_elf(tiny_elf(), "tiny");
  BOOST_REQUIRE(elf.sections.size() == 4u);
  BOOST_TEST(elf.sections[1].name == ".text.k");
  BOOST_TEST(elf.sections[2].name == ".debug_line");
  BOOST_TEST(elf.sections[2].is_debug());
  BOOST_TEST(text_bytes(elf) == 32u);
  // 64 header + 3 kept section headers + 32 text + 31 names; the debug section
  // and its header entry are left out.
  BOOST_TEST(cubin_bytes_without_debug(elf) == 64u + 3 * 64u + 32u + 31u);
}

BOOST_AUTO_TEST_CASE(real_cubin_text_matches_sass_slots) {
  auto elf = parse_elf(fixture("gelu.f16_1024.sm_120.cubin"), "gelu.cubin");
  std::istringstream sass(fixture("gelu.f16_1024.sm_120.sass"));
  auto listing = parse_sass(sass, "gelu.sass");
  BOOST_TEST(text_bytes(elf) == 16u * listing.functions[0].instructions.size());
  bool has_debug = false;
  for (const auto& s : elf.sections) has_debug = has_debug || s.is_debug();
  BOOST_TEST(has_debug);  // compiled with --lineinfo
  BOOST_TEST(cubin_bytes_without_debug(elf) < elf.file_size);
}

BOOST_AUTO_TEST_CASE(truncated_cubin) {
  std::string data = fixture("gelu.f16_1024.sm_120.cubin");
  BOOST_TEST(error_of_elf(data.substr(0, 40)) ==
             "tileperf: error: k.cubin: not an ELF file (bad magic or shorter than an ELF header)\n");
  std::string cut = data.substr(0, data.size() / 2);
  BOOST_TEST(error_of_elf(cut).find("tileperf: error: k.cubin: truncated ELF: ") == 0u);
}

BOOST_AUTO_TEST_CASE(malformed_cubin) {
  BOOST_TEST(error_of_elf(std::string(100, 'x')) ==
             "tileperf: error: k.cubin: not an ELF file (bad magic or shorter than an ELF header)\n");
  std::string elf32 = tiny_elf();
  elf32[4] = 1;
  BOOST_TEST(error_of_elf(elf32) == "tileperf: error: k.cubin: not a 64-bit little-endian ELF file\n");
  std::string bad_index = tiny_elf();
  put<std::uint16_t>(bad_index, 0x3e, 9);
  BOOST_TEST(error_of_elf(bad_index) == "tileperf: error: k.cubin: section name table index out of range\n");
}
