// Metrics files and baselines, and a comparison of one with itself.
#include "gate/compare.h"
#include "fuzz_input.h"
#include "metrics/metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    Metrics m = metrics_from_json(parse_json(text, fuzz::kInputName), fuzz::kInputName);
    Metrics zero = m;
    for (auto& [name, value] : zero.values) value = 0;
    Policy policy;
    policy.rules.push_back(Rule{"*", Direction::kLower, Tolerance{0.05, 1}, "fuzz"});
    compare_metrics(m, zero, policy);
    compare_metrics(zero, m, policy);
    to_json_text(m);
  });
}
