// The string and file helpers on their edge cases.
#define BOOST_TEST_MODULE text
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "fixtures.h"
#include "support/error.h"
#include "support/text.h"

using namespace tileperf;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_CASE(trim_and_blank) {
  BOOST_TEST(trim("  a b \t\r\n") == "a b");
  BOOST_TEST(trim(" \t\n") == "");
  BOOST_TEST(trim("") == "");
  BOOST_TEST(is_blank(" \t\r\n"));
  BOOST_TEST(is_blank(""));
  BOOST_TEST(!is_blank(" x "));
}

BOOST_AUTO_TEST_CASE(split_keeps_empty_fields) {
  BOOST_TEST((split("a,,b,", ',') == std::vector<std::string>{"a", "", "b", ""}));
  BOOST_TEST((split("", ',') == std::vector<std::string>{""}));
  BOOST_TEST((split("abc", ',') == std::vector<std::string>{"abc"}));
}

BOOST_AUTO_TEST_CASE(line_at_counts_from_one) {
  std::string text = "one\ntwo\n\nfour";
  BOOST_TEST(line_at(text, 1) == "one");
  BOOST_TEST(line_at(text, 2) == "two");
  BOOST_TEST(line_at(text, 3) == "");
  BOOST_TEST(line_at(text, 4) == "four");
  BOOST_TEST(line_at(text, 5) == "");
  BOOST_TEST(line_at(text, 0) == "");
  BOOST_TEST(line_at(text, -1) == "");
  BOOST_TEST(line_at("a\n", 2) == "");
}

BOOST_AUTO_TEST_CASE(file_name_is_what_follows_the_last_slash) {
  BOOST_TEST(file_name("a/b/c.json") == "c.json");
  BOOST_TEST(file_name("c.json") == "c.json");
  BOOST_TEST(file_name("a/b/") == "");
}

BOOST_AUTO_TEST_CASE(cut_text_ends_in_dots_when_cut) {
  BOOST_TEST(cut_text("abcdef", 6) == "abcdef");
  BOOST_TEST(cut_text("abcdefg", 6) == "abc...");
  BOOST_TEST(cut_text("abcdefg", 6).size() == 6u);
  BOOST_TEST(cut_text("", 0) == "");
}

BOOST_AUTO_TEST_CASE(html_escape_escapes_markup_and_quotes) {
  BOOST_TEST(html_escape("<a href=\"x\">&</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
  BOOST_TEST(html_escape("plain 'text'") == "plain 'text'");
}

BOOST_AUTO_TEST_CASE(parse_count_takes_digits_up_to_the_maximum) {
  BOOST_TEST(parse_count("0", 10).value() == 0);
  BOOST_TEST(parse_count("10", 10).value() == 10);
  BOOST_TEST(!parse_count("11", 10));
  BOOST_TEST(!parse_count("", 10));
  BOOST_TEST(!parse_count("-1", 10));
  BOOST_TEST(!parse_count(" 1", 10));
  BOOST_TEST(!parse_count("1x", 10));
  BOOST_TEST(parse_count("9223372036854775807", INT64_MAX).value() == INT64_MAX);
  BOOST_TEST(!parse_count("9223372036854775808", INT64_MAX));
}

BOOST_AUTO_TEST_CASE(parse_decimal_takes_one_point_and_bounded_digits) {
  BOOST_TEST(parse_decimal("2", 3).value() == 2.0);
  BOOST_TEST(parse_decimal("2.5", 3).value() == 2.5);
  BOOST_TEST(parse_decimal("123.456", 3).value() == 123.456);
  BOOST_TEST(!parse_decimal("1234", 3));
  BOOST_TEST(!parse_decimal(".5", 3));
  BOOST_TEST(!parse_decimal("5.", 3));
  BOOST_TEST(!parse_decimal("1.2.3", 3));
  BOOST_TEST(!parse_decimal("1e9", 3));
  BOOST_TEST(!parse_decimal("-1", 3));
  BOOST_TEST(!parse_decimal("", 3));
}

BOOST_AUTO_TEST_CASE(write_file_atomic_round_trips_and_leaves_no_temporary) {
  testing::TempFolder f("text");
  std::string path = (f.root / "sub" / "out.txt").string();
  write_file_atomic(path, "first\n");
  write_file_atomic(path, std::string("second\0with nul\n", 16), Durability::kRenamed);
  BOOST_TEST(read_file(path) == std::string("second\0with nul\n", 16));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(f.root / "sub")) {
    (void)entry;
    ++files;
  }
  BOOST_TEST(files == 1u);
}

BOOST_AUTO_TEST_CASE(write_file_atomic_removes_a_dead_writers_temporary) {
  testing::TempFolder f("text");
  std::string path = (f.root / "out.txt").string();
  // pid 2^30 - 1 is past any pid_max: no process of that id runs.
  std::string stale = path + ".tmp.1073741823";
  std::ofstream(stale) << "half written";
  write_file_atomic(path, "whole\n");
  BOOST_TEST(!fs::exists(stale));
  BOOST_TEST(read_file(path) == "whole\n");
}

BOOST_AUTO_TEST_CASE(read_file_names_the_file_it_cannot_read) {
  testing::TempFolder f("text");
  std::string missing = (f.root / "missing.json").string();
  BOOST_CHECK_EXCEPTION(read_file(missing), Error,
                        [&](const Error& e) { return format_error(e).find(missing) != std::string::npos; });
  BOOST_CHECK_EXCEPTION(read_file(f.root.string()), InputError, [&](const InputError& e) {
    return format_error(e) == "tileperf: error: " + f.root.string() + ": is a directory, not a file\n";
  });
}
