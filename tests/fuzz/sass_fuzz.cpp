// `cuobjdump --dump-sass` listings.
#include <sstream>

#include "fuzz_input.h"
#include "readers/sass.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& text) {
    std::istringstream in(text);
    count_sass(parse_sass(in, fuzz::kInputName));
  });
}
