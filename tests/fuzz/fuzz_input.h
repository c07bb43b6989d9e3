// One fuzz input through one parser. The parser must succeed or throw an
// InputError that names the input; any other exception escapes, and
// libFuzzer (or the replay driver) reports it as a crash.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/error.h"

namespace tileperf::fuzz {

inline const std::string kInputName = "fuzz.input";

template <typename Parse>
int run_input(const std::uint8_t* data, std::size_t size, Parse parse) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const InputError& e) {
    if (e.file() != kInputName) {
      std::fprintf(stderr, "error does not name the input: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}

}  // namespace tileperf::fuzz
