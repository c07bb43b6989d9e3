// The dump record as the tileperf command reads it: its version and each
// field's type, then each architecture's part of it and that part's problem
// (a part that holds the dump step's problem_error is left out: that error
// is located in the configuration file it names, by design).
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "metrics/dump_record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    nlohmann::json record = parse_dump_record(text, fuzz::kInputName);
    std::vector<std::string> archs = {""};
    if (record.contains("archs")) {
      for (const auto& [arch, entry] : record.at("archs").items()) archs.push_back(arch);
    }
    for (const auto& arch : archs) {
      nlohmann::json part = record_for_arch(record, arch, fuzz::kInputName);
      if (!part.contains("problem_error")) problem_from_record(part, fuzz::kInputName);
    }
  });
}
