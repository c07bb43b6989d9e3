// tileperf loops: its options, then cubin_loops (inspect/cubin_loops.h) shown
// by report/loops_text.h.
#include <CLI/CLI.hpp>

#include <utility>

#include <fmt/format.h>

#include "cli/commands.h"
#include "inspect/cubin_loops.h"
#include "report/loops_text.h"
#include "support/error.h"

namespace tileperf {

int run_loops(const Args& args) {
  CLI::App app(
      "Print the loop tree of a cubin (or of a SASS listing) with the metrics of each "
      "loop: body size, ii (the sum of the compiler's stall cycles), scoreboard waits, "
      "tensor-core, MUFU and memory instructions, trip count, cost per iteration and the "
      "warps that run it; for a cubin also the launch estimate, and with --gantt the "
      "replayed schedule of one iteration of the main loop.",
      "loops");
  LoopsOptions o;
  app.add_option("input", o.input, "a cubin, or a `cuobjdump --dump-sass` listing")->required();
  app.add_option("--sass", o.sass,
                 "the cubin's listing (default: <cubin stem>.sass beside it, "
                 "else cuobjdump is run)");
  app.add_option("--remarks", o.remarks, "tileiras remarks (default: <cubin stem>.remarks.yaml)");
  app.add_option("--res-usage", o.res_usage,
                 "the cubin's `cuobjdump -res-usage` output (default: <cubin "
                 "stem>.res-usage.txt beside it, else cuobjdump is run)");
  app.add_option("--dump-info", o.dump_info,
                 "dump record with the problem (default: <config>.tileirbc.json beside the cubin)");
  app.add_option("--cuobjdump", o.tc.cuobjdump, "cuobjdump executable")->default_val("cuobjdump");
  app.add_flag("--json", o.json, "print JSON");
  app.add_flag("--gantt", o.gantt,
               "draw one replayed iteration of the main loop (and of the producer loop of a "
               "warp-specialised kernel): each instruction at its issue cycle, loads, copies "
               "and MMAs as bars to their completion, the waits and what they wait for");
  app.add_option("--latency", o.latencies, "set a latency of the replay, NAME=CYCLES (what-if; repeatable)");
  if (parse_args(app, args)) return kExitOk;
  bool json = o.json, gantt = o.gantt;
  CubinLoops loops = cubin_loops(std::move(o));
  fmt::print("{}", json ? cubin_loops_json(loops).dump(2) + "\n" : cubin_loops_text(loops, gantt));
  return kExitOk;
}

}  // namespace tileperf
