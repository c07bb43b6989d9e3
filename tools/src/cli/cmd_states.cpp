// tileperf states: the table of states a test ends in, as Markdown, from the
// one table in states.cpp; the reference's list of states and exit codes is
// this output.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "support/states.h"

namespace tileperf {

namespace {

// What CTest shows for a check that exits with `code`.
const char* ctest_result(int code) {
  if (code == kExitOk) return "Passed";
  if (code == kExitSkipped) return "Not Run";
  return "Failed";
}

void print_states() {
  fmt::print("| state | exit | CTest | reports show it first |\n| --- | ---: | --- | --- |\n");
  for (const auto& s : all_states()) {
    fmt::print("| {} | {} | {} | {} |\n", s.name, s.exit_code, ctest_result(s.exit_code), s.needs_look ? "yes" : "no");
  }
}

}  // namespace

int run_states(const Args& args) {
  CLI::App app(
      "The states a test ends in, in the order of every report (what needs a look first), "
      "with the exit code of the `tileperf check` that ends so and what CTest shows: "
      "a Markdown table.",
      "states");
  if (parse_args(app, args)) return kExitOk;
  print_states();
  return kExitOk;
}

}  // namespace tileperf
