// `tileirdisasm` output.
#include "fuzz_input.h"
#include "metrics/tileir_metrics.h"
#include "readers/tileir.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size,
                         [](const std::string& text) { tileir_metrics(parse_tileir(text, fuzz::kInputName)); });
}
