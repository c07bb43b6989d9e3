// Control-flow graphs, loops and loop metrics of any listing that parses.
#include <sstream>

#include "analysis/cfg.h"
#include "fuzz_input.h"
#include "analysis/loops.h"
#include "readers/sass.h"
#include "metrics/model_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    std::istringstream in(text);
    SassListing listing = parse_sass(in, fuzz::kInputName);
    for (const auto& fn : listing.functions) build_graph(fn);
    Problem problem;
    problem.grid = {1024, 8};
    problem.blocks = 8192;
    LoopAnalysis analysis = analyze_loops(listing, LoopOptions{nullptr, &problem, 4096});
    loop_metrics(analysis);
  });
}
