// Which tests the ctest that runs this process selected: its own command
// line (from /proc) run again with --show-only=json-v1. The compile batch, a
// fixture of every perf test, compiles for those tests only, so that
// `ctest -R` of one test, `-L sm_90` or one CI shard (`-I k,,N`) compiles
// what it runs and no more.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tileperf {

struct CtestSelection {
  bool under_ctest = false;                    // the parent process is ctest
  std::optional<std::set<std::string>> tests;  // its selection, when it could be told
  std::string why_not;                         // else why not
};

// `build_dir`: the top build folder, where the selection is listed;
// `project_dir`: the source folder, where a --preset is looked up.
CtestSelection ctest_selection(const std::string& build_dir, const std::string& project_dir);

// The arguments of a ctest command line that decide which tests run: all but
// the executable and the options that run, report or submit them (-j, -T,
// --output-junit, ...), then --show-only=json-v1; --test-dir is left out
// (the selection runs in the tests' folder, where ctest changed to).
std::vector<std::string> show_only_arguments(const std::vector<std::string>& ctest_argv);

}  // namespace tileperf
