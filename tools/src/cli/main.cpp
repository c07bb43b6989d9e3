// tileperf: a deterministic performance-regression gate for cuTile kernels.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

struct Subcommand {
  const char* name;
  const char* description;
  int (*handler)(const Args&);
  bool internal = false;  // run by the CMake API's tests and batches, not by hand
};

const Subcommand kSubcommands[] = {
    {"check", "compile one kernel configuration, extract its metrics, compare with its baseline", run_check},
    {"extract", "metrics JSON from a cubin (and optionally captured cuobjdump output)", run_extract},
    {"compare", "compare a metrics JSON with a baseline under the policies in checks/", run_compare},
    {"diff", "two builds test by test: metric deltas, source lines and the SASS that moved", run_diff},
    {"summary", "one line per test from the results a run left behind", run_summary},
    {"investigate", "what to try for a test, without a GPU: what-if variants ranked by the launch estimate",
     run_investigate},
    {"loops", "the loop tree of a cubin or SASS listing, with per-loop metrics and cost", run_loops},
    {"edit-report", "the catch rate of the self-test corpus of edited kernels", run_edit_report},
    {"not-run", "the command of a perf test that cannot run: says why, skipped or failed", run_not_run, true},
    {"toolchain", "probe the tools once into the record every test of a run reads", run_toolchain, true},
    {"progress", "one line per finished test of ctest's output, with [n/N], state and key metrics", run_progress},
    {"run-start", "write the record of a new run, which each check of the run stamps", run_run_start, true},
    {"cache", "what a result cache holds; prune it to the entries recent runs used", run_cache},
    {"batch", "compile and disassemble a run's perf tests ahead of their checks, into the cache", run_batch, true},
    {"dump", "the command of a dump test: done when this run's dump batch found it current", run_dump, true},
    {"preview", "a toolchain bump as one review: what the new toolchain moves, per verdict and metric", run_preview},
    {"report", "merge results (of one run or its shards) into JSON, Markdown and HTML", run_report},
    {"history", "each metric's values over the baselines' git log: changes, bumps, tuning, drift", run_history},
    {"bisect", "the first commit that moved one test's metric or verdict, built in a worktree of its own", run_bisect},
    {"variance", "compile every configuration N times: which vary, how, and with the randomisation off", run_variance},
    {"states", "the states a test ends in, with exit codes and CTest's result, as a Markdown table", run_states},
};

// "exit codes: 0 ok, 1 internal error, ...", from kExitCodes, in lines of
// at most 80 columns.
std::string exit_code_list() {
  std::string out = "exit codes:";
  std::size_t line = out.size();
  for (std::size_t i = 0; i < std::size(kExitCodes); ++i) {
    std::string item = fmt::format("{} {}{}", static_cast<int>(kExitCodes[i].code), kExitCodes[i].meaning,
                                   i + 1 < std::size(kExitCodes) ? "," : "");
    bool wrap = line + 1 + item.size() > 80;
    out += (wrap ? "\n" : " ") + item;
    line = wrap ? item.size() : line + 1 + item.size();
  }
  return out + "\n";
}

void print_help() {
  std::size_t width = 0;
  for (const auto& s : kSubcommands) width = std::max(width, std::string_view(s.name).size());
  std::cout << "usage: tileperf <subcommand> [options]\n\n"
               "Catches code-generation regressions in cuTile kernels from compiler output.\n\n"
               "subcommands:\n";
  for (const auto& s : kSubcommands) {
    if (!s.internal) fmt::print("  {:<{}} {}\n", s.name, width, s.description);
  }
  std::cout << "\ninternal subcommands (the steps the CMake API's tests run):\n";
  for (const auto& s : kSubcommands) {
    if (s.internal) fmt::print("  {:<{}} {}\n", s.name, width, s.description);
  }
  std::cout << "\n'tileperf <subcommand> --help' describes its options.\n" << exit_code_list();
}

const Subcommand* find_subcommand(const std::string& name) {
  for (const auto& s : kSubcommands) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

std::string unknown_subcommand(const std::string& name) {
  const Subcommand* best = nullptr;
  std::size_t best_distance = 3;  // suggest only close matches
  for (const auto& s : kSubcommands) {
    std::size_t d = edit_distance(name, s.name);
    if (d < best_distance) best = &s, best_distance = d;
  }
  std::string msg = "unknown subcommand '" + name + "'";
  if (best) msg += fmt::format(", did you mean '{}'?", best->name);
  return msg + " (see 'tileperf --help')";
}

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    print_help();
    return kExitBadInput;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_help();
    return kExitOk;
  }
  if (name == "--version") {
    std::cout << "tileperf " << TILEPERF_VERSION << "\n";
    return kExitOk;
  }
  const Subcommand* sub = find_subcommand(name);
  if (!sub) throw UsageError(unknown_subcommand(name));
  return sub->handler(Args(argv + 2, argv + argc));
}

}  // namespace

}  // namespace tileperf

int main(int argc, char** argv) {
  try {
    return tileperf::dispatch(argc, argv);
  } catch (const tileperf::Error& e) {
    std::cerr << tileperf::format_error(e);
    return e.code();
  } catch (const std::filesystem::filesystem_error& e) {
    // A folder that could not be made or listed: the file system's refusal.
    if (tileperf::is_io_failure(e.code().value())) {
      std::cerr << tileperf::format_error(tileperf::io_error(e));
      return tileperf::kExitIo;
    }
    std::cerr << "tileperf: internal error: " << e.what() << "\n";
    return tileperf::kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "tileperf: internal error: " << e.what() << "\n";
    return tileperf::kExitInternal;
  }
}
