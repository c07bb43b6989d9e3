// Access to the captured tool output under tests/fixtures/<release>/.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/error.h"
#include "readers/sass.h"
#include "support/text.h"

namespace tileperf::testing {

// Release of the tools that captured the fixtures (tests/fixtures/<release>/VERSIONS.txt).
inline const std::string kRelease = "13.4.92";

inline std::string fixture_path(const std::string& name) {
  return std::string(TILEPERF_FIXTURES) + "/" + kRelease + "/" + name;
}

inline std::string fixture(const std::string& name) { return read_file(fixture_path(name)); }

// A fixture captured with another release (tests/fixtures/<release>/), for
// what only that release writes.
inline std::string fixture_of(const std::string& release, const std::string& name) {
  return read_file(std::string(TILEPERF_FIXTURES) + "/" + release + "/" + name);
}

// The first `n` lines of `text`, each with its newline.
inline std::string first_lines(const std::string& text, std::size_t n) {
  std::istringstream in(text);
  std::string line, out;
  for (std::size_t i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

// A fresh folder under the system's temporary folder, removed with
// everything in it when the test case ends.
struct TempFolder {
  std::filesystem::path root;
  explicit TempFolder(const std::string& name)
      : root(std::filesystem::temp_directory_path() / ("tileperf-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(root, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
};

// The terminal message of the InputError that `call` throws, or "".
template <typename Call>
std::string error_message(Call&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return format_error(e);
  }
  return "";
}

// The same for a parser of streams, given `text` under the file name `name`.
template <typename Parse>
std::string error_of(Parse parse, const std::string& text, const std::string& name) {
  return error_message([&] {
    std::istringstream in(text);
    parse(in, name);
  });
}

// An instruction of a listing written for a test, with its control bits:
// the stall count, the scoreboards it sets (-1: none) and the mask of
// scoreboards it waits on.
struct ListingInsn {
  std::string text;
  int stall = 1;
  int write_sb = -1, read_sb = -1;
  unsigned wait = 0;
};

// The control word an instruction's listing line carries (nvdisasm's second
// 64-bit word: yield stored inverted, scoreboards 7 when unused).
inline std::uint64_t control_word(const ListingInsn& i) {
  std::uint64_t c = static_cast<std::uint64_t>(i.stall & 0xf);
  c |= std::uint64_t(1) << 4;  // no yield (stored inverted)
  c |= static_cast<std::uint64_t>(i.write_sb < 0 ? 7 : i.write_sb) << 5;
  c |= static_cast<std::uint64_t>(i.read_sb < 0 ? 7 : i.read_sb) << 8;
  c |= static_cast<std::uint64_t>(i.wait & 0x3f) << 11;
  return c << 41;
}

// A listing of one function "k" for `arch`, written for a test: one
// instruction (predicate included) per 16-byte slot from address 0, each
// with its control word, then the padding self-branch.
inline SassListing synthetic_listing_with_bits(const std::vector<ListingInsn>& code,
                                               const std::string& arch = "sm_90a") {
  std::string text = "\tcode for " + arch + "\n\t\tFunction : k\n";
  char buf[200];
  std::uint64_t address = 0;
  for (const auto& i : code) {
    std::snprintf(buf, sizeof buf, "        /*%04llx*/   %s ;   /* 0x0000000000000000 */\n",
                  static_cast<unsigned long long>(address), i.text.c_str());
    text += buf;
    std::snprintf(buf, sizeof buf, "                     /* 0x%016llx */\n",
                  static_cast<unsigned long long>(control_word(i)));
    text += buf;
    address += 16;
  }
  std::snprintf(buf, sizeof buf, "        /*%04llx*/   BRA 0x%llx;   /* 0x0000000000000000 */\n",
                static_cast<unsigned long long>(address), static_cast<unsigned long long>(address));
  text += buf;
  text += "                     /* 0x000fc00000000000 */\n\t\t..........\n";
  std::istringstream in(text);
  return parse_sass(in, "test.sass");
}

// The same with every instruction at stall 1, waiting on nothing.
inline SassListing synthetic_listing(const std::vector<std::string>& code, const std::string& arch = "sm_90a") {
  std::vector<ListingInsn> insns;
  for (const auto& text : code) insns.push_back({text});
  return synthetic_listing_with_bits(insns, arch);
}

}  // namespace tileperf::testing
