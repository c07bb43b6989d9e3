// tileperf toolchain: probe the tools once into the record every test reads.
#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "support/error.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

int run_toolchain(const Args& args) {
  CLI::App app(
      "Probe tileiras, tileirdisasm, cuobjdump and nvdisasm once (releases, tileiras's "
      "architectures, each file's size and time) into the record that `tileperf check "
      "--toolchain` reads; an existing record of unchanged tools is kept as it is.",
      "toolchain");
  Toolchain tc;
  std::string out;
  app.add_option("--tileiras", tc.tileiras, "tileiras executable")->required();
  app.add_option("--cuobjdump", tc.cuobjdump, "cuobjdump executable")->required();
  app.add_option("-o,--out", out, "the record to write")->required();
  if (parse_args(app, args)) return kExitOk;
  bool reused = false;
  ToolchainRecord r = probe_or_reuse(tc, out, reused);
  std::vector<std::string> tools;
  for (const auto& [name, t] : r.tools) tools.push_back(name + " " + t.version);
  fmt::print("{} ({}): {}; architectures {}\n", out, reused ? "unchanged tools, kept" : "probed",
             fmt::join(tools, ", "), fmt::join(r.architectures, " "));
  return kExitOk;
}

}  // namespace tileperf
