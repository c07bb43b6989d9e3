// tileperf extract: metrics JSON from a cubin.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "error.h"
#include "metrics.h"
#include "pipeline.h"
#include "text.h"
#include "toolchain.h"

namespace tileperf {

int run_extract(const Args& args) {
  CLI::App app("Extract metrics from a cubin. Runs cuobjdump unless --sass and --res-usage "
               "give its captured output.",
               "extract");
  std::string cubin, sass, res_usage, out;
  Toolchain tc;
  Metrics m;
  app.add_option("--cubin", cubin, "the cubin to measure")->required();
  app.add_option("--sass", sass, "captured `cuobjdump --dump-sass` output");
  app.add_option("--res-usage", res_usage, "captured `cuobjdump -res-usage` output");
  app.add_option("--cuobjdump", tc.cuobjdump, "cuobjdump executable (when not captured)");
  app.add_option("--kernel", m.id.kernel, "kernel name recorded in the output")->default_val("kernel");
  app.add_option("--config", m.id.config, "configuration name recorded")->default_val("config");
  app.add_option("--arch", m.id.arch, "architecture recorded")->default_val("sm_120");
  app.add_option("-o,--output", out, "metrics JSON to write (default: standard output)");
  if (parse_args(app, args)) return kExitOk;
  validate_test_id(m.id);

  ToolOutputs outputs;
  if (!sass.empty() || !res_usage.empty()) {
    if (sass.empty() || res_usage.empty()) throw UsageError("extract: give both --sass and --res-usage");
    outputs = {read_file(sass), sass, read_file(res_usage), res_usage};
    m.toolchain["cuobjdump"] = "captured";
  } else {
    if (tc.cuobjdump.empty()) throw UsageError("extract: give --cuobjdump, or --sass and --res-usage");
    outputs = run_tool_outputs(tc, cubin, "");
    m.toolchain["cuobjdump"] = tool_version(tc.cuobjdump);
  }
  m.values = metrics_from(outputs, cubin);
  m.flags["cuobjdump"] = {std::begin(kSassArgs)[0], std::begin(kResUsageArgs)[0]};
  m.generator = std::string("tileperf ") + TILEPERF_VERSION + " extract";
  if (out.empty()) {
    std::cout << to_json_text(m);
  } else {
    write_file_atomic(out, to_json_text(m));
  }
  return kExitOk;
}

}  // namespace tileperf
