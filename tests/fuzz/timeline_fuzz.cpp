// The timeline replay of one block on a listing: loops analysed, then every
// loop's three iterations replayed with the latencies of the listing's
// architecture, each loop's picture drawn and written as the report's JSON.
#include <sstream>

#include "model/launch_model.h"
#include "analysis/loops.h"
#include "model/timeline.h"
#include "fuzz_input.h"
#include "readers/sass.h"
#include "report/launch_picture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    std::istringstream in(text);
    SassListing listing = parse_sass(in, fuzz::kInputName);
    Problem problem;
    problem.grid = {64, 2};
    problem.blocks = 128;
    std::vector<FunctionFlow> flows;
    LoopAnalysis loops = analyze_loops(listing, LoopOptions{nullptr, &problem, 4096, 4}, &flows);
    TimelineInputs t;
    t.listing = &listing;
    t.flows = &flows;
    t.loops = &loops;
    t.latency = arch_spec(listing.arch).latency;
    t.tensor_macs_hint = 4096;
    t.keep_events = true;
    BlockTimeline block = replay_block(t);
    for (const auto& [index, loop] : block.loops) {
      format_gantt(loop, 60);
      timeline_json(loop);
      loop_overlap(loop);
    }
  });
}
