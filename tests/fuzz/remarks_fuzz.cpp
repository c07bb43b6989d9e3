// tileiras's YAML remarks, their metrics and notes.
#include "fuzz_input.h"
#include "metrics/measure.h"
#include "metrics/remark_metrics.h"
#include "readers/remarks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    auto remarks = parse_remarks(text, fuzz::kInputName);
    tensor_macs_hint(remark_metrics(remarks));
    remark_diagnostics(remarks);
  });
}
