// Baselines in two files (gated metrics, informational detail) and the
// instruction count of each source line.
#define BOOST_TEST_MODULE baseline
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <numeric>
#include <unistd.h>

#include "gate/baseline.h"
#include "readers/elf.h"
#include "fixtures.h"
#include "analysis/source_lines.h"

using namespace tileperf;
using namespace tileperf::testing;
namespace fs = std::filesystem;

namespace {

struct Scratch : TempFolder {
  Scratch() : TempFolder("baseline-test") {}
  std::string file(const std::string& name) const { return (root / name).string(); }
};

const char* kPolicy = R"({"rules": [
  {"metric": "sass.opcode.*", "direction": "info"},
  {"metric": "sass.instructions", "direction": "lower", "tolerance": "1%"}]})";

Metrics sample() {
  Metrics m;
  m.id = {"gelu", "f16_1024", "sm_120"};
  m.toolchain = {{"tileiras", "1.2.3"}};
  m.generator = "tileperf test";
  m.values = {{"sass.instructions", 143}, {"sass.opcode.FFMA", 40}, {"sass.opcode.MUFU.TANH", 8}, {"regs", 27}};
  m.lines = {{"gelu.py:20", 35}, {"gelu.py:21", 8}};
  return m;
}

LineCounts gelu_lines(const std::string& arch) {
  std::string base = "gelu.f16_1024." + arch;
  std::string data = fixture(base + ".cubin");
  LineTable table = read_line_table(data, parse_elf(data, base), base);
  std::istringstream in(fixture(base + ".sass"));
  return count_source_lines(parse_sass(in, base), table);
}

}  // namespace

BOOST_AUTO_TEST_CASE(gated_metrics_in_the_main_file_the_rest_in_the_detail) {
  Scratch s;
  std::string path = s.file("f16_1024.sm_120.json");
  Policy policy = parse_policy(kPolicy, "policy.json", "f16_1024");
  write_baseline(path, sample(), policy);
  std::string main = read_file(path), detail = read_file(detail_path(path));
  BOOST_TEST(detail_path(path) == s.file("f16_1024.sm_120.detail.json"));
  BOOST_TEST(main.find("\"sass.instructions\": 143") != std::string::npos);
  BOOST_TEST(main.find("\"regs\": 27") != std::string::npos);  // no rule: gated by default, kept in view
  BOOST_TEST(main.find("sass.opcode") == std::string::npos);
  BOOST_TEST(main.find("gelu.py") == std::string::npos);
  BOOST_TEST(detail.find("\"sass.opcode.FFMA\": 40") != std::string::npos);
  BOOST_TEST(detail.find("\"gelu.py:21\": 8") != std::string::npos);

  Metrics back = read_baseline(path);
  BOOST_TEST(back.values == sample().values);
  BOOST_TEST(back.lines == sample().lines);

  // Written again, byte for byte the same.
  write_baseline(path, back, policy);
  BOOST_TEST(read_file(path) == main);
  BOOST_TEST(read_file(detail_path(path)) == detail);
}

BOOST_AUTO_TEST_CASE(a_detail_file_that_does_not_belong_is_refused) {
  Scratch s;
  std::string path = s.file("f16_1024.sm_120.json");
  Policy policy = parse_policy(kPolicy, "policy.json", "f16_1024");
  write_baseline(path, sample(), policy);
  std::string detail = read_file(detail_path(path));

  std::string edited = detail;
  edited.replace(edited.find("40"), 2, "41");
  write_file_atomic(detail_path(path), edited);
  std::string msg = error_message([&] { read_baseline(path); });
  BOOST_TEST(msg.find(detail_path(path)) != std::string::npos);
  BOOST_TEST(msg.find("SHA-256") != std::string::npos);

  fs::remove(detail_path(path));
  msg = error_message([&] { read_baseline(path); });
  BOOST_TEST(msg.find("missing") != std::string::npos);
  BOOST_TEST(msg.find(detail_path(path)) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_baseline_of_one_file_is_read_whole_and_nothing_informational_means_no_detail) {
  Scratch s;
  std::string path = s.file("f16_1024.sm_120.json");
  Metrics m = sample();
  write_file_atomic(path, to_json_text(m));
  Metrics back = read_baseline(path);
  BOOST_TEST(back.values == m.values);
  BOOST_TEST(back.lines == m.lines);

  // An update that leaves nothing for the detail removes the old detail file.
  Policy policy = parse_policy(kPolicy, "policy.json", "f16_1024");
  write_baseline(path, m, policy);
  BOOST_TEST(fs::exists(detail_path(path)));
  m.values.erase("sass.opcode.FFMA");
  m.values.erase("sass.opcode.MUFU.TANH");
  m.lines.clear();
  write_baseline(path, m, policy);
  BOOST_TEST(!fs::exists(detail_path(path)));
  BOOST_TEST(read_baseline(path).values == m.values);
}

BOOST_AUTO_TEST_CASE(every_instruction_of_gelu_is_counted_on_a_line_of_gelu_py) {
  for (const char* arch : {"sm_90", "sm_120"}) {
    LineCounts c = gelu_lines(arch);
    std::string base = std::string("gelu.f16_1024.") + arch;
    std::istringstream in(fixture(base + ".sass"));
    SassListing sass = parse_sass(in, base);
    std::int64_t real = 0;
    for (const auto& fn : sass.functions) real += static_cast<std::int64_t>(fn.padding_begin);
    std::int64_t counted = 0;
    for (const auto& [line, n] : c.counts) {
      BOOST_TEST_INFO(arch << " " << line);
      BOOST_TEST(line.rfind("gelu.py:", 0) == 0);
      BOOST_TEST(n > 0);
      counted += n;
    }
    BOOST_TEST(counted == real);
    // The tanh of line 21 is 8 MUFU.TANH and what feeds them.
    BOOST_TEST(c.counts.at("gelu.py:21") >= 8);
    BOOST_TEST(c.paths.count("gelu.py") == 1u);
  }
}

BOOST_AUTO_TEST_CASE(moved_lines_largest_change_first) {
  std::map<std::string, std::int64_t> base{{"k.py:1", 10}, {"k.py:2", 5}, {"k.py:3", 7}};
  std::map<std::string, std::int64_t> now{{"k.py:1", 10}, {"k.py:2", 6}, {"k.py:4", 20}};
  auto moves = line_moves(base, now);
  BOOST_REQUIRE(moves.size() == 3u);
  BOOST_TEST(moves[0].line == "k.py:4");  // new line: +20
  BOOST_TEST(moves[0].delta() == 20);
  BOOST_TEST(moves[1].line == "k.py:3");  // gone: -7
  BOOST_TEST(moves[1].current == 0);
  BOOST_TEST(moves[2].line == "k.py:2");
  BOOST_TEST(moves[2].delta() == 1);
  BOOST_TEST(line_moves(base, base).empty());
}

BOOST_AUTO_TEST_CASE(the_text_of_a_line_comes_from_the_file_the_table_names) {
  Scratch s;
  std::string py = s.file("k.py");
  write_file_atomic(py, "import x\n    y = ct.exp(x)   \n");
  std::map<std::string, std::string> paths{{"k.py", py}};
  BOOST_TEST(source_text("k.py:2", paths) == "y = ct.exp(x)");
  BOOST_TEST(source_text("k.py:9", paths) == "");
  BOOST_TEST(source_text("other.py:1", paths) == "");
}

BOOST_AUTO_TEST_CASE(lines_an_edit_shifted_are_matched_by_their_text) {
  // Two lines inserted above the kernel's body: by number, every line would
  // move; by content, only the line that gained instructions and the new
  // one do, and the removed line is named where it was, with its text.
  std::map<std::string, std::int64_t> base{{"k.py:10", 4}, {"k.py:11", 8}, {"k.py:12", 3}, {"k.py:13", 2}};
  std::map<std::string, std::string> base_text{{"k.py:10", "x = ct.load(a)"},
                                               {"k.py:11", "t = ct.tanh(x)"},
                                               {"k.py:12", "u = t * 2"},
                                               {"k.py:13", "ct.store(b, u)"}};
  std::map<std::string, std::int64_t> now{{"k.py:12", 4}, {"k.py:13", 20}, {"k.py:14", 6}, {"k.py:15", 2}};
  std::map<std::string, std::string> now_text{{"k.py:12", "x = ct.load(a)"},
                                              {"k.py:13", "t = ct.tanh(x)"},
                                              {"k.py:14", "v = ct.exp(t)"},
                                              {"k.py:15", "ct.store(b, u)"}};
  auto moves = line_moves(base, now, base_text, now_text);
  BOOST_REQUIRE(moves.size() == 3u);
  BOOST_TEST(moves[0].line == "k.py:13");
  BOOST_TEST(moves[0].baseline == 8);
  BOOST_TEST(moves[0].current == 20);
  BOOST_TEST(moves[0].text == "t = ct.tanh(x)");
  BOOST_TEST(moves[1].line == "k.py:14");
  BOOST_TEST(moves[1].delta() == 6);
  BOOST_TEST(moves[1].text == "v = ct.exp(t)");
  BOOST_TEST(moves[2].line == "k.py:12 (old)");
  BOOST_TEST(moves[2].delta() == -3);
  BOOST_TEST(moves[2].text == "u = t * 2");
  // Without texts on one side: by number, as before.
  BOOST_TEST(line_moves(base, now, {}, now_text).size() == line_moves(base, now).size());
}

BOOST_AUTO_TEST_CASE(the_texts_of_the_lines_are_kept_in_the_detail) {
  Scratch s;
  std::string path = s.file("f16_1024.sm_120.json");
  Policy policy = parse_policy(kPolicy, "policy.json", "f16_1024");
  Metrics m = sample();
  std::string py = s.file("gelu.py");
  write_file_atomic(py, std::string(20, '\n') + "    t = ct.tanh(inner)  \n");
  m.line_text = line_texts(m.lines, {{"gelu.py", py}});
  BOOST_TEST(m.line_text.at("gelu.py:21") == "t = ct.tanh(inner)");
  write_baseline(path, m, policy);
  BOOST_TEST(read_file(detail_path(path)).find("\"gelu.py:21\": \"t = ct.tanh(inner)\"") != std::string::npos);
  BOOST_TEST(read_baseline(path).line_text == m.line_text);
}
