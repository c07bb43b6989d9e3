// tileperf extract: metrics JSON from a cubin.
#include <CLI/CLI.hpp>

#include <iostream>

#include "analysis/source_lines.h"
#include "cli/commands.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "metrics/metrics.h"
#include "metrics/tool_outputs.h"
#include "support/error.h"
#include "support/text.h"
#include "toolchain/toolchain.h"

namespace tileperf {

int run_extract(const Args& args) {
  CLI::App app(
      "Extract metrics from a cubin. Runs cuobjdump unless --sass and --res-usage "
      "give its captured output.",
      "extract");
  std::string cubin, sass, res_usage, remarks, tileir, dump_info, out;
  Toolchain tc;
  Metrics m;
  app.add_option("--cubin", cubin, "the cubin to measure")->required();
  app.add_option("--sass", sass, "captured `cuobjdump --dump-sass` output");
  app.add_option("--res-usage", res_usage, "captured `cuobjdump -res-usage` output");
  app.add_option("--remarks", remarks, "YAML remarks tileiras wrote for the cubin");
  app.add_option("--tileir", tileir, "captured `tileirdisasm` output of the bytecode");
  app.add_option("--dump-info", dump_info, "dump record of the configuration (its problem: grid and loop trips)");
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
    outputs.sass_text = read_file(sass);
    outputs.sass_name = sass;
    outputs.res_usage_text = read_file(res_usage);
    outputs.res_usage_name = res_usage;
    m.toolchain["cuobjdump"] = "captured";
  } else {
    if (tc.cuobjdump.empty()) throw UsageError("extract: give --cuobjdump, or --sass and --res-usage");
    outputs.sass_text = run_disassembler(tc, cubin);
    outputs.sass_name = "cuobjdump --dump-sass " + cubin;
    outputs.res_usage_text = run_cuobjdump(tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin);
    outputs.res_usage_name = "cuobjdump -res-usage " + cubin;
    m.toolchain["cuobjdump"] = tool_version(tc.cuobjdump);
  }
  if (!remarks.empty()) outputs.remarks_text = read_file(remarks), outputs.remarks_name = remarks;
  if (!tileir.empty()) outputs.tileir_text = read_file(tileir), outputs.tileir_name = tileir;
  std::optional<Problem> problem;
  if (!dump_info.empty()) problem = problem_from_record(parse_dump_record(read_file(dump_info), dump_info), dump_info);
  Measurement measured = measure(outputs, cubin, problem ? &*problem : nullptr);
  m.values = std::move(measured.values);
  m.lines = std::move(measured.lines.counts);
  m.line_text = line_texts(m.lines, measured.lines.paths);
  for (const auto& note : measured.notes) std::cerr << "note: " << note << "\n";
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
