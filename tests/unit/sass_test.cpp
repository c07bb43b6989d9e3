#define BOOST_TEST_MODULE sass
#include <boost/test/unit_test.hpp>

#include "fixtures.h"
#include "readers/sass.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

SassListing parse_text(const std::string& text, const std::string& name = "t.sass") {
  std::istringstream in(text);
  return parse_sass(in, name);
}

const std::string kSmall =
    "\n\tcode for sm_90a\n\t.target\tsm_90a\n\n"
    "\t\tFunction : k\n"
    "\t.headerflags\t@\"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */\n"
    "                                                           /* 0x000fe40000000800 */\n"
    "        /*0010*/              @!P0 LDC.64 R2, c[0x0][0x210] ;  /* 0x0000840000028b82 */\n"
    "                                                           /* 0x000e220000000a00 */\n"
    "        /*0020*/                   NOP ;                     /* 0x0000000000007918 */\n"
    "                                                           /* 0x000fc00000000000 */\n"
    "        /*0030*/                   MUFU.EX2 R9, R0 ;         /* 0x0000000000097308 */\n"
    "                                                           /* 0x000e240000000800 */\n"
    "        /*0040*/                   EXIT ;                    /* 0x000000000000794d */\n"
    "                                                           /* 0x000fea0003800000 */\n"
    "        /*0050*/                   BRA 0x50;                 /* 0xfffffffc00fc7947 */\n"
    "                                                           /* 0x000fc0000383ffff */\n"
    "        /*0060*/                   NOP;                      /* 0x0000000000007918 */\n"
    "                                                           /* 0x000fc00000000000 */\n"
    "\t\t..........\n\n\n";

}  // namespace

BOOST_AUTO_TEST_CASE(parses_predicates_opcodes_and_padding) {
  auto listing = parse_text(kSmall);
  BOOST_TEST(listing.arch == "sm_90a");
  BOOST_REQUIRE(listing.functions.size() == 1u);
  const auto& fn = listing.functions[0];
  BOOST_TEST(fn.name == "k");
  BOOST_TEST(fn.instructions.size() == 7u);
  BOOST_TEST(fn.instructions[1].predicate == "@!P0");
  BOOST_TEST(fn.instructions[1].opcode == "LDC.64");
  BOOST_TEST(fn.instructions[1].operands == "R2, c[0x0][0x210]");
  BOOST_TEST(fn.instructions[1].address == 0x10u);
  BOOST_TEST(fn.instructions[1].line == 9);
  BOOST_TEST(fn.padding_begin == 5u);  // BRA 0x50 to itself, then a NOP
}

BOOST_AUTO_TEST_CASE(counts_exclude_padding_but_keep_nops_inside_code) {
  auto counts = count_sass(parse_text(kSmall));
  BOOST_TEST(counts.instructions == 5u);
  BOOST_TEST(counts.padding == 2u);
  BOOST_TEST(counts.opcodes.at("NOP") == 1u);
  BOOST_TEST(counts.opcodes.count("BRA") == 0u);
  BOOST_TEST(counts.mufu.at("EX2") == 1u);
}

BOOST_AUTO_TEST_CASE(real_listing_sm120_gelu) {
  auto listing = parse_text(fixture("gelu.f16_1024.sm_120.sass"));
  BOOST_TEST(listing.arch == "sm_120a");
  BOOST_REQUIRE(listing.functions.size() == 1u);
  BOOST_TEST(listing.functions[0].name == "gelu");
  auto counts = count_sass(listing);
  BOOST_TEST(counts.instructions == 143u);
  BOOST_TEST(counts.mufu.at("TANH") == 8u);
  BOOST_TEST(counts.mufu.at("RCP") == 1u);
  BOOST_TEST(counts.opcodes.at("MUFU.TANH") == 8u);
  // .text is padded to 128 bytes (8 slots of 16 bytes).
  BOOST_TEST((counts.instructions + counts.padding) % 8 == 0u);
  const auto& pad = listing.functions[0].instructions[listing.functions[0].padding_begin];
  BOOST_TEST(pad.opcode == "BRA");
  BOOST_TEST(pad.operands == "0x" + [&] {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(pad.address));
    return std::string(buf);
  }());
}

BOOST_AUTO_TEST_CASE(real_listing_sm90_and_sm100) {
  auto sm90 = parse_text(fixture("gelu.f16_1024.sm_90.sass"));
  BOOST_TEST(sm90.arch == "sm_90a");
  BOOST_TEST(count_sass(sm90).mufu.at("TANH") == 8u);
  auto sm100 = parse_text(fixture("softmax.f16_1024.sm_100.sass"));
  BOOST_TEST(sm100.arch == "sm_100a");
  BOOST_TEST(count_sass(sm100).mufu.at("EX2") > 0u);
}

BOOST_AUTO_TEST_CASE(real_listing_two_functions) {
  auto listing = parse_text(fixture("two_functions.sm_120.sass"));
  BOOST_REQUIRE(listing.functions.size() == 2u);
  BOOST_TEST(listing.functions[0].name == "softmax_b");
  BOOST_TEST(listing.functions[1].name == "softmax_a");
  std::size_t each = 0;
  for (const auto& fn : listing.functions) each += fn.padding_begin;
  BOOST_TEST(count_sass(listing).instructions == each);
}

BOOST_AUTO_TEST_CASE(truncated_inside_function) {
  std::string text = first_lines(fixture("gelu.f16_1024.sm_120.sass"), 40);
  BOOST_TEST(error_of(parse_sass, text, "cut.sass") ==
             "tileperf: error: cut.sass:40: listing is truncated: function 'gelu' has no end "
             "marker\n");
}

BOOST_AUTO_TEST_CASE(truncated_before_control_word) {
  std::string text = first_lines(fixture("gelu.f16_1024.sm_120.sass"), 7);
  BOOST_TEST(error_of(parse_sass, text, "cut.sass") ==
             "tileperf: error: cut.sass:7: listing is truncated: function 'gelu' has no end "
             "marker\n");
}

BOOST_AUTO_TEST_CASE(malformed_line_is_named_and_shown) {
  std::string garbage = "        /*0010*/  garbage here\n";
  BOOST_TEST(error_of(parse_sass, first_lines(kSmall, 7) + garbage, "bad.sass") ==
             "tileperf: error: bad.sass:8: expected the control word of the instruction above\n"
             "        /*0010*/  garbage here\n");
  BOOST_TEST(error_of(parse_sass, first_lines(kSmall, 8) + garbage, "bad.sass") ==
             "tileperf: error: bad.sass:9: unrecognized line in SASS listing\n"
             "        /*0010*/  garbage here\n");
  std::string stray = first_lines(kSmall, 4) + "something else\n";
  BOOST_TEST(error_of(parse_sass, stray, "bad.sass") ==
             "tileperf: error: bad.sass:5: unrecognized line in SASS listing\nsomething else\n");
}

BOOST_AUTO_TEST_CASE(structural_errors) {
  BOOST_TEST(error_of(parse_sass, "", "empty.sass") == "tileperf: error: empty.sass: no functions in SASS listing\n");
  BOOST_TEST(error_of(parse_sass, "\t\tFunction : k\n", "x.sass") ==
             "tileperf: error: x.sass:1: function listed before 'code for sm_XX'\n\t\tFunction : k\n");
  BOOST_TEST(error_of(parse_sass, "\tcode for sm_90a\n\tcode for sm_100a\n", "x.sass") ==
             "tileperf: error: x.sass:2: listing mixes architectures sm_90a and sm_100a\n"
             "\tcode for sm_100a\n");
}
