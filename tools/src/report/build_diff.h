// The diff of two builds (or their tileperf/ result folders), test by test:
// metric deltas under the policies, the source lines that gained or lost
// instructions, and a diff of the SASS of the main loop, or of the functions
// that moved. `tileperf diff` is its command line.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace tileperf {

struct DiffOptions {
  std::string base, head;  // build folders, or their tileperf/ folders
  std::string test;        // a regular expression on test names, "" for all
  std::string json;        // also write the diff as JSON there, "" for none
  std::string checks;      // the policy folder, "" for the head's recorded one
  std::size_t context = 3, max_lines = 80;
  bool ignore_registers = false;
};

// What the head build's run record (run.json, written by `tileperf
// run-start`) says about the build: its policy folder and the command that
// updates its baselines.
struct BuildFacts {
  std::string checks;
  std::string update_command;  // "" when the record keeps none
};

// The facts of the build whose results are in `results`, from the run
// record there or in the folder around it; `checks` (--checks) when given
// wins. No record: ./checks. A record without a policy folder (an older
// tileperf's) is an InputError naming it, unless `checks` is given.
BuildFacts recorded_build_facts(const std::string& results, const std::string& checks);

// Writes the diff's text to `out` (and its JSON to o.json); returns
// kExitRegression when a gated metric regressed or an invariant broke, else kExitOk.
int diff_builds(const DiffOptions& o, std::ostream& out);

}  // namespace tileperf
