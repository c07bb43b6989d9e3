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

namespace {

// A library's module and a configuration file of the same name: a package
// lib/pkg/sub/fp8.py (each folder with an __init__.py) and example/fp8.py.
struct TwoFilesOfOneName {
  testing::TempFolder folder{"source-key"};
  fs::path root = folder.root;
  fs::path library = root / "lib" / "pkg" / "sub" / "fp8.py", example = root / "example" / "fp8.py";
  TwoFilesOfOneName() {
    fs::create_directories(library.parent_path());
    fs::create_directories(example.parent_path());
    for (const fs::path& init : {root / "lib" / "pkg" / "__init__.py", root / "lib" / "pkg" / "sub" / "__init__.py"}) {
      std::ofstream(init) << "";
    }
    std::ofstream(library) << "def quantize(x):\n    return ct.exp2(x)\n";
    std::ofstream(example) << "CONFIGS = {}\n";
  }
};

SassFunction function_of(std::size_t instructions) {
  SassFunction f;
  f.name = "k";
  for (std::size_t i = 0; i < instructions; ++i) {
    SassInstruction instruction;
    instruction.address = 16 * i;
    f.instructions.push_back(instruction);
  }
  f.padding_begin = instructions;
  return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_module_of_a_package_is_keyed_by_its_module_path) {
  TwoFilesOfOneName t;
  BOOST_TEST(source_key(t.library.string()) == "pkg/sub/fp8.py");
  BOOST_TEST(source_key(t.example.string()) == "fp8.py");
  BOOST_TEST(source_key("/nowhere/at/all/gelu.py") == "gelu.py");
}

BOOST_AUTO_TEST_CASE(files_of_one_name_are_counted_apart_and_read_where_they_lie) {
  TwoFilesOfOneName t;
  // The line table names the folders tileiras was shown; `here` gives where
  // they lie in this clone.
  LineTable table;
  table.files = {"/tileperf/source-0/fp8.py", "/tileperf/source-1/fp8.py"};
  table.rows["k"] = {{0, 0, 1, -1}, {16, 1, 2, -1}, {48, -1, 0, -1}};
  SassListing sass{"sm_100a", {function_of(3)}};
  auto here = [&](const std::string& path) {
    return path.starts_with("/tileperf/source-0/") ? t.example.string() : t.library.string();
  };
  LineCounts counts = count_source_lines(sass, table, here);
  BOOST_TEST(counts.counts == (Counts{{"fp8.py:1", 1}, {"pkg/sub/fp8.py:2", 2}}));
  BOOST_TEST(counts.paths.at("pkg/sub/fp8.py") == t.library.string());
  Texts texts = line_texts(counts.counts, counts.paths);
  BOOST_TEST(texts.at("pkg/sub/fp8.py:2") == "return ct.exp2(x)");
  BOOST_TEST(texts.at("fp8.py:1") == "CONFIGS = {}");
}
