// Errors and exit codes shared by every tileperf subcommand.
//
// One error path: each failure is an exception carrying the state it ends a
// test in (support/states.h) and that state's exit code; main()
// prints it as `tileperf: error: FILE:LINE: what is wrong`, followed by the
// offending input line where there is one.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "support/defaults.h"
#include "support/states.h"

namespace tileperf {

// Exit codes (fixed interface, see docs/reference/states.md), listed with
// their meanings in kExitCodes.
enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,
  kExitBadInput = 2,             // bad usage or malformed input
  kExitRegression = 3,           // a gated metric regressed or an invariant broke
  kExitToolchain = 4,            // tileiras/cuobjdump crashed, hung or reported an error
  kExitNew = 5,                  // no baseline for this test yet
  kExitToolchainChanged = 6,     // baseline made by other tool versions
  kExitSignatureChanged = 7,     // baseline of another export (dtypes, constraints, hints)
  kExitNotRun = 8,               // a test that could not run where every test must (CI)
  kExitIncomplete = 9,           // report: fewer results than --expect (a shard uploaded nothing)
  kExitIo = 10,                  // the file system refused: disk full, permission denied, read-only
  kExitCompilerVaries = 11,      // the same bytecode compiled to a variant its baseline does not know
  kExitSkipped = kSkipExitCode,  // tool or architecture unavailable (CTest: Not Run)
};

struct ExitCodeInfo {
  ExitCode code;
  const char* meaning;
};

// Every exit code and what it means, in order: `tileperf --help` lists
// them from here, and each state (support/states.h) names one.
inline constexpr ExitCodeInfo kExitCodes[] = {
    {kExitOk, "ok"},
    {kExitInternal, "internal error"},
    {kExitBadInput, "bad usage or input"},
    {kExitRegression, "regression"},
    {kExitToolchain, "toolchain failure"},
    {kExitNew, "no baseline yet"},
    {kExitToolchainChanged, "toolchain changed"},
    {kExitSignatureChanged, "signature changed"},
    {kExitNotRun, "not run where every test must run"},
    {kExitIncomplete, "fewer results than expected"},
    {kExitIo, "I/O failure"},
    {kExitCompilerVaries, "the compiler varies: a variant the baseline does not know"},
    {kExitSkipped, "skipped"},
};

// Base class: a message and the state it ends a test in; its exit code is
// that state's (the states table).
class Error : public std::runtime_error {
 public:
  Error(State state, const std::string& message);
  State state() const { return state_; }
  ExitCode code() const { return code_; }

 private:
  State state_;
  ExitCode code_;
};

// Malformed input at a known place. line 0 means "the whole file".
class InputError : public Error {
 public:
  InputError(std::string file, int line, const std::string& message, std::string source_line = {});
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& source_line() const { return source_line_; }

 private:
  std::string file_;
  int line_;
  std::string source_line_;
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(State::kBadInput, message) {}
};

// An external tool failed: crash, hang, non-zero exit, or "error:" output.
class ToolError : public Error {
 public:
  explicit ToolError(const std::string& message) : Error(State::kToolchainFailure, message) {}
};

// The test cannot run here (tool missing, architecture unsupported).
class SkipError : public Error {
 public:
  explicit SkipError(const std::string& message) : Error(State::kSkipped, message) {}
};

// The file system refused to read or write `path` (disk full, quota,
// permission denied, read-only, a device error): no fault of the input.
// Message: "PATH: cannot write: No space left on device".
class IoError : public Error {
 public:
  IoError(const std::string& path, int errno_value, const std::string& verb);
};

// Whether an errno stands for the file system refusing (IoError) rather than
// for input that is missing or malformed.
bool is_io_failure(int errno_value);

// An IoError for `errno_value` when it is such a refusal, else the
// InputError "PATH: VERB: reason"; thrown.
[[noreturn]] void throw_file_error(const std::string& path, int errno_value, const std::string& verb);

// The IoError of a std::filesystem refusal (is_io_failure of its code).
IoError io_error(const std::filesystem::filesystem_error& e);

// Runs `f`; a std::filesystem refusal it throws becomes an IoError, so that
// it ends in the state of its own rather than as an internal error.
template <typename F>
decltype(auto) with_io_errors(F&& f) {
  try {
    return f();
  } catch (const std::filesystem::filesystem_error& e) {
    if (!is_io_failure(e.code().value())) throw;
    throw io_error(e);
  }
}

// Formats an error for the terminal, including the offending line.
std::string format_error(const std::exception& e);

}  // namespace tileperf
