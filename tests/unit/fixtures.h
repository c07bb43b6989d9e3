// Access to the captured tool output under tests/fixtures/<release>/.
#pragma once

#include <sstream>
#include <string>

#include "error.h"
#include "text.h"

namespace tileperf::testing {

// Release of the tools that captured the fixtures (tests/fixtures/<release>/VERSIONS.txt).
inline const std::string kRelease = "13.4.92";

inline std::string fixture_path(const std::string& name) {
  return std::string(TILEPERF_FIXTURES) + "/" + kRelease + "/" + name;
}

inline std::string fixture(const std::string& name) { return read_file(fixture_path(name)); }

// The first `n` lines of `text`, each with its newline.
inline std::string first_lines(const std::string& text, std::size_t n) {
  std::istringstream in(text);
  std::string line, out;
  for (std::size_t i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

// The terminal message of the InputError that `call` throws, or "".
template <typename Call>
std::string error_message(Call&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return format_error(e);
  }
  return "";
}

// The same for a parser of streams, given `text` under the file name `name`.
template <typename Parse>
std::string error_of(Parse parse, const std::string& text, const std::string& name) {
  return error_message([&] {
    std::istringstream in(text);
    parse(in, name);
  });
}

}  // namespace tileperf::testing
