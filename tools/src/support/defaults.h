// The defaults and rules that tools/tileperf_dump/defaults.json holds for
// the Python package, the CMake API and this code, in one place: the build
// (tools/src/CMakeLists.txt) reads the file when it configures and passes
// its values in as the definitions below; unit.defaults_test holds them to
// the file.
#pragma once

namespace tileperf {

// Kernel and configuration names ([A-Za-z0-9_]+) and architectures
// (sm_[0-9]+[a-z]?), as regular expressions that match a name whole.
inline constexpr const char* kNamePattern = TILEPERF_DEFAULT_NAME_PATTERN;
inline constexpr const char* kArchPattern = TILEPERF_DEFAULT_ARCH_PATTERN;

// The exit code of a test that could not run (CTest's SKIP_RETURN_CODE).
inline constexpr int kSkipExitCode = TILEPERF_DEFAULT_SKIP_EXIT_CODE;

}  // namespace tileperf
