// The launch model on a listing and, where the input has one, the problem of
// a dump record: the input is the record's JSON, a NUL byte, then the SASS
// listing (no NUL: a listing alone, one block). The seeds pair the captured
// dump records with the listings of their configuration. Loops analysed,
// then the launch estimated with every loop's replay kept, its metrics, its
// line and the occupancy picture made.
#include <optional>
#include <sstream>

#include "model/launch_model.h"
#include "analysis/loops.h"
#include "fuzz_input.h"
#include "metrics/dump_record.h"
#include "metrics/measure.h"
#include "readers/sass.h"
#include "support/json_input.h"
#include "report/launch_picture.h"
#include "metrics/model_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& input) {
    std::size_t split = input.find('\0');
    std::optional<Problem> problem;
    if (split != std::string::npos) {
      problem = problem_from_record(parse_json(input.substr(0, split), fuzz::kInputName), fuzz::kInputName);
    }
    std::istringstream in(split == std::string::npos ? input : input.substr(split + 1));
    SassListing listing = parse_sass(in, fuzz::kInputName);
    const Problem* p = problem ? &*problem : nullptr;
    std::vector<FunctionFlow> flows;
    LoopAnalysis loops = analyze_loops(listing, LoopOptions{nullptr, p, 4096, 8}, &flows);
    LaunchInputs launch;
    launch.listing = &listing;
    launch.flows = &flows;
    launch.loops = &loops;
    launch.problem = p;
    launch.attributes.threads[0] = 256;
    launch.registers = static_cast<std::int64_t>(input.size() % 256);
    launch.shared_bytes = static_cast<std::int64_t>(input.size() % 7) * 16384;
    launch.spill_bytes = static_cast<std::int64_t>(input.size() % 3) * 64;
    launch.tensor_macs_hint = 4096;
    launch.keep_events = true;
    LaunchEstimate e = estimate_launch(launch);
    launch_metrics(e);
    describe_launch(e);
    occupancy_json(e);
  });
}
