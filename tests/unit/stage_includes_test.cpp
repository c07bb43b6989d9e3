// The stages of tools/src include only downward: a file of one stage
// includes headers of its own stage and of earlier ones (the order of
// TILEPERF_STAGES in tools/src/CMakeLists.txt), each named "stage/unit.h".
#define BOOST_TEST_MODULE stage_includes
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "support/text.h"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> stages() { return tileperf::split(TILEPERF_STAGES, ','); }

// The position of `stage` in `order`, or -1.
int level_of(const std::vector<std::string>& order, const std::string& stage) {
  auto it = std::find(order.begin(), order.end(), stage);
  return it == order.end() ? -1 : static_cast<int>(it - order.begin());
}

// The problem with `#include "header"` in a file of stage `level`, or "".
std::string include_problem(const std::vector<std::string>& order, int level, const std::string& header) {
  std::size_t slash = header.find('/');
  int target = slash == std::string::npos ? -1 : level_of(order, header.substr(0, slash));
  if (target < 0) return "include \"" + header + "\" names no stage (\"stage/unit.h\")";
  if (target <= level) return "";
  return "include \"" + header + "\" runs up from stage " + order[level] + " to stage " + order[target];
}

// "<stage>/<file>:<line>: <problem>" for each include of `file` that crosses
// a stage the wrong way.
void check_file(const fs::path& root, const fs::path& file, const std::vector<std::string>& order, int level,
                std::vector<std::string>& errors) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]*)\")");
  std::ifstream in(file);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    if (!std::regex_search(line, m, kInclude)) continue;
    std::string problem = include_problem(order, level, m[1]);
    if (!problem.empty())
      errors.push_back(fs::relative(file, root).string() + ":" + std::to_string(number) + ": " + problem);
  }
}

// Every wrong-way include under `root` (a copy of tools/src), and every
// source file outside a stage folder, sorted.
std::vector<std::string> stage_errors(const fs::path& root, const std::vector<std::string>& order) {
  std::vector<std::string> errors;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    fs::path rel = fs::relative(entry.path(), root);
    int level = level_of(order, rel.begin()->string());
    if (level < 0 || std::distance(rel.begin(), rel.end()) != 2) {
      errors.push_back(rel.string() + ": not in a stage folder (" + TILEPERF_STAGES + ")");
      continue;
    }
    check_file(root, entry.path(), order, level, errors);
  }
  std::sort(errors.begin(), errors.end());
  return errors;
}

// A copy of tools/src in a temporary folder, removed at the end.
struct SourceCopy {
  fs::path root = fs::temp_directory_path() / ("tileperf-stages-" + std::to_string(::getpid()));
  SourceCopy() {
    fs::remove_all(root);
    fs::copy(fs::path(TILEPERF_SOURCE_DIR) / "tools/src", root, fs::copy_options::recursive);
  }
  ~SourceCopy() { fs::remove_all(root); }
  // Appends `line` to `file`; the number of the new line.
  std::size_t append(const std::string& file, const std::string& line) const {
    std::string text = tileperf::read_file((root / file).string());
    std::ofstream(root / file, std::ios::app) << line << "\n";
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sources_include_only_downward) {
  auto errors = stage_errors(fs::path(TILEPERF_SOURCE_DIR) / "tools/src", stages());
  for (const auto& e : errors) BOOST_TEST_MESSAGE(e);
  BOOST_TEST(errors.empty());
}

BOOST_AUTO_TEST_CASE(an_include_that_runs_up_is_located) {
  SourceCopy copy;
  std::size_t line = copy.append("readers/sass.cpp", "#include \"report/report_view.h\"");
  auto errors = stage_errors(copy.root, stages());
  BOOST_TEST(errors == (std::vector<std::string>{
                           "readers/sass.cpp:" + std::to_string(line) +
                           ": include \"report/report_view.h\" runs up from stage readers to stage report"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_include_within_a_stage_or_down_is_allowed) {
  SourceCopy copy;
  copy.append("readers/sass.cpp", "#include \"readers/elf.h\"");
  copy.append("cli/main.cpp", "#include \"support/error.h\"");
  BOOST_TEST(stage_errors(copy.root, stages()).empty());
}

BOOST_AUTO_TEST_CASE(an_include_without_its_stage_is_located) {
  SourceCopy copy;
  std::size_t line = copy.append("gate/compare.cpp", "#include \"metrics.h\"");
  std::size_t line2 = copy.append("gate/compare.cpp", "#include \"nostage/x.h\"");
  auto errors = stage_errors(copy.root, stages());
  BOOST_TEST(errors == (std::vector<std::string>{"gate/compare.cpp:" + std::to_string(line) +
                                                     ": include \"metrics.h\" names no stage (\"stage/unit.h\")",
                                                 "gate/compare.cpp:" + std::to_string(line2) +
                                                     ": include \"nostage/x.h\" names no stage (\"stage/unit.h\")"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_file_outside_the_stages_is_located) {
  SourceCopy copy;
  std::ofstream(copy.root / "loose.h") << "#pragma once\n";
  fs::create_directories(copy.root / "readers/deeper");
  std::ofstream(copy.root / "readers/deeper/x.cpp") << "\n";
  auto errors = stage_errors(copy.root, stages());
  std::string why = std::string(": not in a stage folder (") + TILEPERF_STAGES + ")";
  BOOST_TEST(errors == (std::vector<std::string>{"loose.h" + why, "readers/deeper/x.cpp" + why}),
             boost::test_tools::per_element());
}
