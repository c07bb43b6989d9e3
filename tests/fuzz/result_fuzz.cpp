// Result files (*.result.json) as summary and report read them.
#include "fuzz_input.h"
#include "report/formats.h"
#include "results/result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    std::vector<TestResult> results{result_from_json(parse_json(text, fuzz::kInputName), fuzz::kInputName)};
    ReportView view = make_report_view(results);
    report_json(view);
    report_markdown(view);
    report_html(view);
  });
}
