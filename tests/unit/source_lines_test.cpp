// Instructions per source line: the moves against a baseline, lines that an
// edit shifted aligned by their text, and the texts read from the sources.
#define BOOST_TEST_MODULE source_lines
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "analysis/source_lines.h"
#include "fixtures.h"

using namespace tileperf;
namespace fs = std::filesystem;

using Counts = std::map<std::string, std::int64_t>;
using Texts = std::map<std::string, std::string>;

BOOST_AUTO_TEST_CASE(moves_are_sorted_by_size_then_line) {
  auto moves = line_moves(Counts{{"k.py:3", 10}, {"k.py:4", 5}, {"k.py:9", 2}},
                          Counts{{"k.py:3", 12}, {"k.py:4", 5}, {"k.py:7", 4}, {"k.py:2", 2}});
  BOOST_REQUIRE(moves.size() == 4u);
  BOOST_TEST(moves[0].line == "k.py:7");
  BOOST_TEST(moves[0].delta() == 4);
  BOOST_TEST(moves[1].line == "k.py:2");  // |2|, before the other |2|s by line
  BOOST_TEST(moves[2].line == "k.py:3");
  BOOST_TEST(moves[2].baseline == 10);
  BOOST_TEST(moves[2].current == 12);
  BOOST_TEST(moves[3].line == "k.py:9");
  BOOST_TEST(moves[3].current == 0);
}

BOOST_AUTO_TEST_CASE(a_line_gone_with_zero_instructions_is_no_move) {
  BOOST_TEST(line_moves(Counts{{"k.py:3", 0}}, Counts{}).empty());
  BOOST_TEST(line_moves(Counts{{"k.py:3", 4}}, Counts{{"k.py:3", 4}}).empty());
}

BOOST_AUTO_TEST_CASE(shifted_lines_compare_with_themselves) {
  // Two lines inserted above: the same texts now sit two lines lower.
  Counts before{{"k.py:10", 8}, {"k.py:11", 3}};
  Texts before_text{{"k.py:10", "y = ct.exp(x)"}, {"k.py:11", "ct.store(out, y)"}};
  Counts after{{"k.py:12", 8}, {"k.py:13", 5}};
  Texts after_text{{"k.py:12", "y = ct.exp(x)"}, {"k.py:13", "ct.store(out, y)"}};
  auto moves = line_moves(before, after, before_text, after_text);
  BOOST_REQUIRE(moves.size() == 1u);
  BOOST_TEST(moves[0].line == "k.py:13");
  BOOST_TEST(moves[0].baseline == 3);
  BOOST_TEST(moves[0].current == 5);
  BOOST_TEST(moves[0].text == "ct.store(out, y)");
  // By number alone the same edit moves all four lines.
  BOOST_TEST(line_moves(before, after).size() == 4u);
}

BOOST_AUTO_TEST_CASE(a_removed_line_is_shown_where_it_was) {
  Counts before{{"k.py:10", 8}, {"k.py:11", 3}};
  Texts before_text{{"k.py:10", "y = ct.exp(x)"}, {"k.py:11", "ct.store(out, y)"}};
  Counts after{{"k.py:10", 3}};
  Texts after_text{{"k.py:10", "ct.store(out, y)"}};
  auto moves = line_moves(before, after, before_text, after_text);
  BOOST_REQUIRE(moves.size() == 1u);
  BOOST_TEST(moves[0].line == "k.py:10 (old)");
  BOOST_TEST(moves[0].baseline == 8);
  BOOST_TEST(moves[0].current == 0);
  BOOST_TEST(moves[0].text == "y = ct.exp(x)");
}

BOOST_AUTO_TEST_CASE(without_texts_lines_compare_by_number) {
  auto moves = line_moves(Counts{{"k.py:10", 8}}, Counts{{"k.py:12", 8}}, {}, {});
  BOOST_REQUIRE(moves.size() == 2u);
  BOOST_TEST(moves[0].line == "k.py:10");
  BOOST_TEST(moves[1].line == "k.py:12");
}

namespace {

struct Source {
  testing::TempFolder folder{"source-lines"};
  fs::path path = folder.root / "k.py";
  Source() {
    std::ofstream(path) << "def k(x):\n"
                           "    y = ct.exp(x)   \r\n"
                           "\n"
                           "    " +
                               std::string(130, 'z') + "\n";
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(line_texts_read_trimmed_lines_from_the_sources) {
  Source s;
  Texts paths{{"k.py", s.path.string()}};
  auto texts = line_texts(Counts{{"k.py:2", 1}, {"k.py:3", 1}, {"k.py:4", 1}, {"k.py:9", 1}, {"other.py:1", 1}}, paths);
  BOOST_TEST(texts.size() == 2u);  // a blank line, a line past the end and an unknown file give none
  BOOST_TEST(texts.at("k.py:2") == "y = ct.exp(x)");
  BOOST_TEST(texts.at("k.py:4") == std::string(117, 'z') + "...");
  BOOST_TEST(source_text("k.py:2", paths) == "y = ct.exp(x)");
  BOOST_TEST(source_text("k.py:99", paths) == "");
  BOOST_TEST(source_text("k.py:x", paths) == "");
  BOOST_TEST(source_text("k.py", paths) == "");
  BOOST_TEST(source_text("other.py:1", paths) == "");
}
