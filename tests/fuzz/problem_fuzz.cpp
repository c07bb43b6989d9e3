// The problem of a dump record (grid and declared loop trips).
#include "fuzz_input.h"
#include "metrics/dump_record.h"
#include "metrics/metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    problem_from_record(parse_json(text, fuzz::kInputName), fuzz::kInputName);
  });
}
