// Result files (*.result.json) as summary and report read them.
#include "fuzz_input.h"
#include "report_formats.h"
#include "result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    TestResult r = result_from_json(parse_json(text, fuzz::kInputName), fuzz::kInputName);
    auto report = report_json({r});
    report_markdown(report);
    report_html(report);
  });
}
