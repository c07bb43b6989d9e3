// The diff of two builds (or their tileperf/ result folders), test by test:
// metric deltas under the policies, the source lines that gained or lost
// instructions, and a diff of the SASS of the main loop, or of the functions
// that moved. report/build_diff_text shows it; `tileperf diff` is its
// command line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/loops.h"
#include "analysis/sass_diff.h"
#include "analysis/source_lines.h"
#include "gate/compare.h"
#include "gate/policy.h"
#include "readers/line_table.h"
#include "readers/sass.h"
#include "support/states.h"

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

// What a listing shows: its parse, the main loop and the source line of
// each instruction, when the cubin beside it has a line table.
struct Listing {
  SassListing sass;
  LoopAnalysis loops;
  LineTable lines;
  std::map<std::string, std::string> paths;  // "gelu.py" -> the path the line table names
};

// A stretch of one function on one side: the main loop, or the whole function.
struct Span {
  const SassFunction* function = nullptr;
  std::size_t first = 0, last = 0;  // instruction indices [first, last)
  std::size_t size() const { return last - first; }
  std::string addresses() const;  // "0x0120-0x0340", or "empty"
};

// The SASS diff of one span on both sides.
struct SpanDiff {
  std::string what;  // "the main loop of matmul", "function matmul"
  Span base, head;
  DiffSide base_text, head_text;
  std::optional<std::vector<Edit>> script;  // none: too different for a line diff
  std::vector<Hunk> hunks;
  // When there is no script: each opcode's count in head less base, the
  // opcodes that moved most first.
  std::vector<std::pair<std::string, std::int64_t>> moved;
};

// One test present on both sides.
struct TestDiff {
  std::string name;
  State judged = State::kPass;  // judge()'s state
  std::string state;            // shown: the state's name, a pass as "changed" or "unchanged" (kDiffStates)
  Comparison comparison;
  std::vector<std::string> toolchain, signature;
  bool tuning = false;    // the signature moved only in constants and hints: judged by the launch estimate
  std::string trade_off;  // Judgement::trade_off
  std::vector<LineMove> lines;
  std::vector<SpanDiff> code;
  // What the SASS diff found besides its spans: the main loop unchanged,
  // functions of one side only, no listing on a side.
  std::vector<std::string> code_notes;
  std::shared_ptr<const Listing> base_listing, head_listing;  // the spans point into them
};

// What a test on both sides ends as, in the order of the summary line (the
// states table's, a pass split in two).
inline constexpr const char* kDiffStates[] = {"regressed", "signature changed", "toolchain changed", "stale",
                                              "improved",  "changed",           "unchanged"};

// The tests of both sides that the --test filter selects: the diffs of
// those on both sides, and the names of those on one side only.
struct BuildDiff {
  std::string base_results, head_results;  // the folders the tests were found in
  BuildFacts facts;                        // the head's
  std::vector<TestDiff> diffs;
  std::vector<std::string> added, removed;
  std::map<std::string, Policy> policies;  // by kernel/config; broken invariants point at their invariants
  // How many of `diffs` end in each of kDiffStates, every one listed.
  std::map<std::string, std::size_t> counts() const;
  // The exit code of the state first in the states table's order among the
  // tests: regressed, signature changed or toolchain changed fail the diff
  // as they fail the check.
  int exit_code() const;
};

// Reads both sides and diffs them. A side that is no folder or holds no
// results, or a test read twice, is an InputError naming the folder or
// file; a --test that is no regular expression a UsageError.
BuildDiff diff_builds(const DiffOptions& o);

}  // namespace tileperf
