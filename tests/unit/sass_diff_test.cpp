#define BOOST_TEST_MODULE sass_diff
#include <boost/test/unit_test.hpp>

#include <random>
#include <sstream>

#include <fmt/format.h>

#include "fixtures.h"
#include "analysis/sass_diff.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

std::vector<std::string> chars(const std::string& s) {
  std::vector<std::string> out;
  for (char c : s) out.emplace_back(1, c);
  return out;
}

// The length of a longest common subsequence, by the textbook table.
std::size_t lcs(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<std::size_t>> t(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    }
  }
  return t[a.size()][b.size()];
}

// The script walks both texts in order, line by line, and keeps only equal lines.
void check_script(const std::vector<std::string>& a, const std::vector<std::string>& b,
                  const std::vector<Edit>& script) {
  std::size_t x = 0, y = 0;
  for (const auto& e : script) {
    switch (e.kind) {
      case DiffOp::kKeep:
        BOOST_REQUIRE(e.base == x);
        BOOST_REQUIRE(e.head == y);
        BOOST_REQUIRE(a[x] == b[y]);
        ++x, ++y;
        break;
      case DiffOp::kDelete:
        BOOST_REQUIRE(e.base == x);
        BOOST_REQUIRE(e.head == y);
        ++x;
        break;
      case DiffOp::kInsert:
        BOOST_REQUIRE(e.base == x);
        BOOST_REQUIRE(e.head == y);
        ++y;
        break;
    }
  }
  BOOST_TEST(x == a.size());
  BOOST_TEST(y == b.size());
}

std::string unified(const std::vector<std::string>& a, const std::vector<std::string>& b, std::size_t context,
                    std::size_t max_lines = 0) {
  auto script = diff_lines(a, b);
  BOOST_REQUIRE(script.has_value());
  return format_hunks(make_hunks(*script, context), {a, {}}, {b, {}}, max_lines, "");
}

SassListing listing(const std::string& name) {
  std::istringstream in(fixture(name));
  return parse_sass(in, name);
}

// `f` with a new instruction before index `at`: every later address, and
// every branch target past the insertion, moves by one slot, as a compiler
// that emitted one more instruction would have them.
SassFunction with_inserted(const SassFunction& f, std::size_t at, const std::string& opcode,
                           const std::string& operands) {
  SassFunction out = f;
  const std::uint64_t moved_from = f.instructions[at].address;
  for (auto& insn : out.instructions) {
    if (insn.address >= moved_from) insn.address += 0x10;
    auto hex = insn.operands.rfind("0x");
    if ((insn.opcode.rfind("BRA", 0) == 0 || insn.opcode.rfind("BSSY", 0) == 0) && hex != std::string::npos) {
      std::uint64_t target = std::stoull(insn.operands.substr(hex + 2), nullptr, 16);
      if (target >= moved_from) insn.operands = insn.operands.substr(0, hex) + fmt::format("{:#x}", target + 0x10);
    }
  }
  SassInstruction added;
  added.address = moved_from;
  added.opcode = opcode;
  added.operands = operands;
  out.instructions.insert(out.instructions.begin() + static_cast<long>(at), added);
  ++out.padding_begin;
  return out;
}

// R5 and R7 trade names, as a register allocator's other choice would have them.
std::string swap_r5_r7(const std::string& s) {
  auto word = [&](std::size_t i) { return i >= s.size() || !std::isalnum(static_cast<unsigned char>(s[i])); };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 'R' && i + 1 < s.size() && (s[i + 1] == '5' || s[i + 1] == '7') && (i == 0 || word(i - 1)) &&
        word(i + 2)) {
      out += s[i + 1] == '5' ? "R7" : "R5";
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(equal_texts_keep_every_line) {
  auto a = chars("ABCDEF");
  auto script = diff_lines(a, a);
  BOOST_REQUIRE(script.has_value());
  BOOST_TEST(script->size() == 6u);
  BOOST_TEST(count_edits(*script).deleted == 0u);
  BOOST_TEST(count_edits(*script).inserted == 0u);
  BOOST_TEST(make_hunks(*script, 3).empty());
  check_script(a, a, *script);
}

BOOST_AUTO_TEST_CASE(myers_example_needs_five_edits) {
  // The example of Myers' paper: ABCABBA -> CBABAC, a shortest script of 5.
  auto a = chars("ABCABBA"), b = chars("CBABAC");
  auto script = diff_lines(a, b);
  BOOST_REQUIRE(script.has_value());
  check_script(a, b, *script);
  auto c = count_edits(*script);
  BOOST_TEST(c.deleted + c.inserted == 5u);
}

BOOST_AUTO_TEST_CASE(one_side_empty) {
  auto a = chars("ABC");
  auto added = diff_lines({}, a);
  BOOST_REQUIRE(added.has_value());
  check_script({}, a, *added);
  BOOST_TEST(count_edits(*added).inserted == 3u);
  BOOST_TEST(unified({}, a, 3) == "@@ -0,0 +1,3 @@\n+ A\n+ B\n+ C\n");
  auto removed = diff_lines(a, {});
  BOOST_REQUIRE(removed.has_value());
  BOOST_TEST(count_edits(*removed).deleted == 3u);
  BOOST_TEST(diff_lines({}, {})->empty());
}

BOOST_AUTO_TEST_CASE(scripts_are_shortest_on_random_texts) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    std::uniform_int_distribution<int> len(0, 40), letter(0, round % 3 == 0 ? 1 : 5);
    std::vector<std::string> a, b;
    for (int i = len(rng); i > 0; --i) a.emplace_back(1, static_cast<char>('a' + letter(rng)));
    for (int i = len(rng); i > 0; --i) b.emplace_back(1, static_cast<char>('a' + letter(rng)));
    auto script = diff_lines(a, b);
    BOOST_REQUIRE(script.has_value());
    check_script(a, b, *script);
    auto c = count_edits(*script);
    BOOST_TEST(c.deleted + c.inserted == a.size() + b.size() - 2 * lcs(a, b));
  }
}

BOOST_AUTO_TEST_CASE(bounded_by_max_edits) {
  auto a = chars("ABCABBA"), b = chars("CBABAC");
  BOOST_TEST(!diff_lines(a, b, 4).has_value());
  BOOST_TEST(diff_lines(a, b, 5).has_value());
  // Lengths that differ by more than the bound are refused before any search.
  std::vector<std::string> many(5000, "FFMA R1, R2, R3, R4");
  BOOST_TEST(!diff_lines({}, many, 100).has_value());
  // A long common head and tail cost nothing: one edit in 10,000 lines.
  auto changed = many;
  changed[2500] = "MUFU.EX2 R1, R2";
  auto script = diff_lines(many, changed, 2);
  BOOST_REQUIRE(script.has_value());
  BOOST_TEST(count_edits(*script).deleted == 1u);
  BOOST_TEST(count_edits(*script).inserted == 1u);
}

BOOST_AUTO_TEST_CASE(hunks_have_context_and_merge_when_close) {
  auto a = chars("abcdefghijklmnopqrst");
  auto far = a, near = a;
  far[4] = "E", far[15] = "P";    // 10 kept lines apart: two hunks with 3 lines of context
  near[4] = "E", near[10] = "K";  // 5 apart: one hunk
  BOOST_TEST(unified(a, far, 3) ==
             "@@ -2,7 +2,7 @@\n  b\n  c\n  d\n- e\n+ E\n  f\n  g\n  h\n"
             "@@ -13,7 +13,7 @@\n  m\n  n\n  o\n- p\n+ P\n  q\n  r\n  s\n");
  auto script = diff_lines(a, near);
  auto hunks = make_hunks(*script, 3);
  BOOST_REQUIRE(hunks.size() == 1u);
  BOOST_TEST(hunks[0].header() == "@@ -2,13 +2,13 @@");
  // No context: the change alone.
  BOOST_TEST(unified(a, far, 0) == "@@ -5 +5 @@\n- e\n+ E\n@@ -16 +16 @@\n- p\n+ P\n");
}

BOOST_AUTO_TEST_CASE(output_is_capped_with_a_count_of_the_rest) {
  auto a = chars("abcdefghij"), b = chars("ABCDEFGHIJ");
  std::string out = unified(a, b, 3, 5);
  BOOST_TEST(out == "@@ -1,10 +1,10 @@\n- a\n- b\n- c\n- d\n... 16 more lines\n");
}

BOOST_AUTO_TEST_CASE(notes_follow_changed_lines_only) {
  std::vector<std::string> a = {"FMUL R1, R2, R3", "EXIT"}, b = {"FMUL R1, R2, R3", "MUFU.EX2 R4, R1", "EXIT"};
  auto script = diff_lines(a, b);
  std::string out =
      format_hunks(make_hunks(*script, 1), {a, {"k.py:1", "k.py:2"}}, {b, {"k.py:1", "k.py:21", "k.py:2"}}, 0, "  ");
  BOOST_TEST(out == "  @@ -1,2 +1,3 @@\n    FMUL R1, R2, R3\n  + MUFU.EX2 R4, R1  k.py:21\n    EXIT\n");
}

BOOST_AUTO_TEST_CASE(registers_masked_as_words_only) {
  BOOST_TEST(mask_registers("@!P0 IMAD.WIDE R2, R12, UR4, RZ") == "@!P? IMAD.WIDE R?, R?, UR?, RZ");
  BOOST_TEST(mask_registers("LDG.E.128 R4, desc[UR6][R2.64+0x10]") == "LDG.E.128 R?, desc[UR?][R?.64+0x10]");
  BOOST_TEST(mask_registers("BRA.U !UP0, L1") == "BRA.U !UP?, L1");
  BOOST_TEST(mask_registers("S2R R0, SR_TID.X") == "S2R R?, SR_TID.X");
  BOOST_TEST(mask_registers("ISETP.GE.AND P0, PT, R0, c[0x0][0x380], PT") ==
             "ISETP.GE.AND P?, PT, R?, c[0x0][0x380], PT");
  BOOST_TEST(mask_registers("HGMMA.64x128x16.F32 R24, gdesc[UR8], R24, UP0") ==
             "HGMMA.64x128x16.F32 R?, gdesc[UR?], R?, UP?");
  BOOST_TEST(mask_registers("PRMT R5, R5, 0x7610, R5") == "PRMT R?, R?, 0x7610, R?");
  BOOST_TEST(mask_registers("URZ, UPT, RX1, XR1") == "URZ, UPT, RX1, XR1");
}

BOOST_AUTO_TEST_CASE(texts_leave_out_addresses_encodings_and_reuse) {
  auto gelu = listing("gelu.f16_1024.sm_120.sass");
  const SassFunction& f = gelu.functions.at(0);
  auto texts = instruction_texts(f, 0, f.padding_begin);
  BOOST_REQUIRE(texts.size() == 143u);
  for (const auto& t : texts) {
    BOOST_TEST(t.find(".reuse") == std::string::npos);
    BOOST_TEST(t.find("/*") == std::string::npos);
  }
  std::size_t tanh = std::count_if(texts.begin(), texts.end(),
                                   [](const std::string& t) { return t.find("MUFU.TANH ") != std::string::npos; });
  BOOST_TEST(tanh == 8u);
}

BOOST_AUTO_TEST_CASE(an_inserted_instruction_is_one_line_although_every_address_moved) {
  auto matmul = listing("matmul.f16_128x128x64.sm_90.sass");
  const SassFunction& f = matmul.functions.at(0);
  // In the middle of the main loop (0x0b10-0x0f60), so that its back edge's target and every later
  // branch target moves.
  std::size_t at = 0;
  while (f.instructions[at].address < 0x0d00) ++at;
  SassFunction g = with_inserted(f, at, "MUFU.EX2", "R200, R201");
  BOOST_REQUIRE(g.instructions[at + 1].address == f.instructions[at].address + 0x10);

  auto base = instruction_texts(f, 0, f.padding_begin), head = instruction_texts(g, 0, g.padding_begin);
  auto script = diff_lines(base, head);
  BOOST_REQUIRE(script.has_value());
  BOOST_TEST(count_edits(*script).deleted == 0u);
  BOOST_TEST(count_edits(*script).inserted == 1u);
  auto hunks = make_hunks(*script, 0);
  BOOST_REQUIRE(hunks.size() == 1u);
  BOOST_TEST(hunks[0].edits[0].head == at);
  BOOST_TEST(head[at] == "MUFU.EX2 R200, R201");
  // Branches name labels, never addresses.
  std::size_t labelled = 0;
  for (const auto& t : head) {
    if (t.find("BRA ") != std::string::npos || t.find("BSSY") != std::string::npos) {
      BOOST_TEST(t.find("0x") == std::string::npos, t);
      ++labelled;
    }
  }
  BOOST_TEST(labelled > 0u);
}

BOOST_AUTO_TEST_CASE(renamed_registers_show_only_without_masking) {
  auto gelu = listing("gelu.f16_1024.sm_120.sass");
  const SassFunction& f = gelu.functions.at(0);
  SassFunction g = f;
  for (auto& insn : g.instructions) insn.operands = swap_r5_r7(insn.operands);
  auto plain = diff_lines(instruction_texts(f, 0, f.padding_begin), instruction_texts(g, 0, g.padding_begin));
  BOOST_REQUIRE(plain.has_value());
  BOOST_TEST(count_edits(*plain).inserted > 0u);
  SassTextOptions masked{.mask_registers = true};
  auto same =
      diff_lines(instruction_texts(f, 0, f.padding_begin, masked), instruction_texts(g, 0, g.padding_begin, masked));
  BOOST_REQUIRE(same.has_value());
  BOOST_TEST(count_edits(*same).inserted == 0u);
  BOOST_TEST(count_edits(*same).deleted == 0u);
}
