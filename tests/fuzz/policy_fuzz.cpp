// Policy files (checks/*.json): rules, tolerances, invariants, applied.
#include "fuzz_input.h"
#include "metrics/metrics.h"
#include "gate/policy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    Policy policy = parse_policy(text, fuzz::kInputName, "f16_1024");
    Metrics m;
    m.values = {{"regs", 40}, {"sass.mufu.EX2", 8}, {"remarks.load.tma_shape.64x64", 2}};
    for (const auto& [name, value] : m.values) policy.find(name);
    for (const auto& rule : policy.rules) rule.tolerance.limit(1000);
    check_invariants(policy, m);
  });
}
