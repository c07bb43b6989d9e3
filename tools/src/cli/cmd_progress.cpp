// tileperf progress: reads ctest's output on stdin and prints one line per
// finished test as it finishes, "[37/156] perf.gelu.f16_1024.sm_120  pass
// cubin.bytes=... regs=27 ...", the state and key metrics taken from the
// test's result file when it has one. Colour on a terminal (not with
// NO_COLOR), none when piped.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "support/json_input.h"
#include "report/comparison_text.h"
#include "results/result.h"
#include "support/text.h"
#include "metrics/metrics.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

// One line of ctest's output for a finished test:
// "  37/156 Test  #12: perf.gelu.f16_1024.sm_120 ......   Passed    0.53 sec"
struct Finished {
  std::string count, total, name, outcome, seconds;
};

std::optional<Finished> parse_finished(const std::string& raw) {
  std::string line = trim(raw);
  Finished f;
  auto slash = line.find('/');
  auto test = line.find(" Test ");
  if (slash == std::string::npos || test == std::string::npos || slash > test) return std::nullopt;
  f.count = line.substr(0, slash);
  f.total = line.substr(slash + 1, test - slash - 1);
  constexpr std::int64_t kMaxTests = 1'000'000'000;
  if (!parse_count(f.count, kMaxTests) || !parse_count(f.total, kMaxTests)) return std::nullopt;
  auto colon = line.find(": ", test);
  if (colon == std::string::npos) return std::nullopt;
  std::string rest = line.substr(colon + 2);
  auto space = rest.find(' ');
  if (space == std::string::npos) return std::nullopt;
  f.name = rest.substr(0, space);
  rest = rest.substr(space);
  auto outcome_at = rest.find_first_not_of(" .*");
  if (outcome_at == std::string::npos) return std::nullopt;
  rest = rest.substr(outcome_at);
  if (!rest.ends_with(" sec")) return std::nullopt;
  rest = trim(rest.substr(0, rest.size() - 4));
  auto last = rest.find_last_of(' ');
  if (last == std::string::npos) return std::nullopt;
  f.seconds = rest.substr(last + 1);
  f.outcome = trim(rest.substr(0, last));
  while (f.outcome.ends_with("*")) f.outcome.pop_back();  // "***Failed"
  f.outcome = trim(f.outcome);
  return f;
}

// perf.<kernel>.<config>.<arch> -> <results>/<kernel>/<config>.<arch>.result.json
std::optional<TestResult> result_of(const std::string& name, const std::string& results_dir) {
  auto id = parse_test_name(name);
  if (results_dir.empty() || !id) return std::nullopt;
  fs::path file = fs::path(results_dir) / relative_path({FileKind::kResult, id->kernel, id->config, id->arch, ""});
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  try {
    std::string path = file.string();
    return result_from_json(parse_json(read_file(path), path), path);
  } catch (const Error&) {
    return std::nullopt;  // being written, or broken: the test's own output says so
  }
}

const char* colour_of(const std::string& state, bool passed) {
  if (state == "pass" || state == "unchanged") return "\033[32m";
  if (state == "improved" || state == "created" || state == "updated") return "\033[36m";
  if (state == "skipped" || state == "Not Run") return "\033[33m";
  return passed ? "\033[32m" : "\033[31m";
}

}  // namespace

int run_progress(const Args& args) {
  CLI::App app(
      "Read ctest's output on stdin and print one line per finished test, as it "
      "finishes: [n/N], the test, its state and key metrics (from its result file "
      "under --results). Colour on a terminal unless NO_COLOR is set.",
      "progress");
  std::string results_dir;
  std::string colour = "auto";
  app.add_option("--results", results_dir, "the folder of the perf tests' results (build/tileperf)");
  app.add_option("--colour,--color", colour, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  if (parse_args(app, args)) return kExitOk;
  const char* no_colour = std::getenv("NO_COLOR");
  bool use_colour = colour == "always" || (colour == "auto" && isatty(STDOUT_FILENO) && !(no_colour && *no_colour));
  std::string line;
  std::size_t width = 40;  // grows with a longer name; most lines then align
  while (std::getline(std::cin, line)) {
    auto f = parse_finished(line);
    if (!f) continue;
    bool passed = f->outcome == "Passed";
    std::string state = passed ? "passed" : f->outcome;
    std::string metrics;
    if (auto r = result_of(f->name, results_dir); r) {
      state = state_name(r->state);
      metrics = format_key_metrics(r->key_metrics);
    }
    width = std::max(width, f->name.size());
    std::string counter = fmt::format("[{:>{}}/{}]", f->count, f->total.size(), f->total);
    std::string shown = fmt::format("{:<17}", state);
    if (use_colour) shown = std::string(colour_of(state, passed)) + shown + "\033[0m";
    fmt::print("{} {:<{}}  {}{}  {} s\n", counter, f->name, width, shown, metrics, f->seconds);
    std::fflush(stdout);
  }
  return kExitOk;
}

}  // namespace tileperf
