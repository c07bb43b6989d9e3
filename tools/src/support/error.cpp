#include "support/error.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace tileperf {

namespace {

constexpr std::size_t kMaxShownLine = 200;

std::string location(const std::string& file, int line) { return line > 0 ? fmt::format("{}:{}", file, line) : file; }

// An offending line as it is shown: a very long one is cut.
std::string shown_line(std::string line) {
  if (line.size() <= kMaxShownLine) return line;
  return fmt::format("{}... ({} characters)", line.substr(0, kMaxShownLine), line.size());
}

}  // namespace

Error::Error(State state, const std::string& message)
    : std::runtime_error(message), state_(state), code_(static_cast<ExitCode>(state_info(state).exit_code)) {}

InputError::InputError(std::string file, int line, const std::string& message, std::string source_line)
    : Error(State::kBadInput, location(file, line) + ": " + message),
      file_(std::move(file)),
      line_(line),
      source_line_(shown_line(std::move(source_line))) {}

IoError::IoError(const std::string& path, int errno_value, const std::string& verb)
    : Error(State::kIoFailure, fmt::format("{}: {}: {}", path, verb, std::strerror(errno_value))) {}

bool is_io_failure(int errno_value) {
  switch (errno_value) {
    case ENOSPC:
    case EDQUOT:
    case EROFS:
    case EACCES:
    case EPERM:
    case EIO:
    case EFBIG:
    case EMFILE:
    case ENFILE:
      return true;
    default:
      return false;
  }
}

void throw_file_error(const std::string& path, int errno_value, const std::string& verb) {
  if (is_io_failure(errno_value)) throw IoError(path, errno_value, verb);
  throw InputError(path, 0, verb + ": " + std::strerror(errno_value));
}

IoError io_error(const std::filesystem::filesystem_error& e) {
  return IoError(e.path1().string(), e.code().value(), "cannot write");
}

std::string format_error(const std::exception& e) {
  std::string out = fmt::format("tileperf: error: {}\n", e.what());
  if (const auto* input = dynamic_cast<const InputError*>(&e)) {
    if (!input->source_line().empty()) out += input->source_line() + "\n";
  }
  return out;
}

}  // namespace tileperf
