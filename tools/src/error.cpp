#include "error.h"

#include <fmt/format.h>

namespace tileperf {

namespace {

constexpr std::size_t kMaxShownLine = 200;

std::string location(const std::string& file, int line) {
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

// An offending line as it is shown: a very long one is cut.
std::string shown_line(std::string line) {
  if (line.size() <= kMaxShownLine) return line;
  return fmt::format("{}... ({} characters)", line.substr(0, kMaxShownLine), line.size());
}

}  // namespace

InputError::InputError(std::string file, int line, const std::string& message,
                       std::string source_line)
    : Error(kExitBadInput, location(file, line) + ": " + message),
      file_(std::move(file)),
      line_(line),
      source_line_(shown_line(std::move(source_line))) {}

std::string format_error(const std::exception& e) {
  std::string out = fmt::format("tileperf: error: {}\n", e.what());
  if (const auto* input = dynamic_cast<const InputError*>(&e)) {
    if (!input->source_line().empty()) out += input->source_line() + "\n";
  }
  return out;
}

}  // namespace tileperf
