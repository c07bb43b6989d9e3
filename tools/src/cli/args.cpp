#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "support/error.h"
#include "support/text.h"

namespace tileperf {

bool parse_args(CLI::App& app, const Args& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return true;
  } catch (const CLI::ParseError& e) {
    throw UsageError(app.get_name() + ": " + e.what());
  }
  return false;
}

int default_jobs() {
  if (const char* v = std::getenv("TILEPERF_JOBS"); v && *v) {
    if (auto n = parse_count(v, 1024); n && *n > 0) return static_cast<int>(*n);
    throw UsageError(fmt::format("TILEPERF_JOBS={}: expected a number of processes from 1 to 1024", v));
  }
  long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? static_cast<int>(cores) : 1;
}

}  // namespace tileperf
