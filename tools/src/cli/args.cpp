#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "support/error.h"

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

}  // namespace tileperf
