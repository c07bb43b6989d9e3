// What the tests that run the real disassembler share: the toolchain of
// this build (TILEPERF_CUOBJDUMP, nvdisasm beside it) and the cubins to run
// it on, every release's captured ones and those under TILEPERF_CUBIN_DIRS.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/text.h"
#include "toolchain/toolchain.h"

namespace tileperf::testing {

inline Toolchain real_toolchain() {
  Toolchain tc;
  tc.cuobjdump = TILEPERF_CUOBJDUMP;
  tc.timeout_seconds = 120;
  return tc;
}

// Every .cubin under `dir` (recursively) but the deliberately broken ones.
inline void add_cubins(const std::filesystem::path& dir, std::vector<std::filesystem::path>& found) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".cubin" && e.path().parent_path().filename() != "broken") {
      found.push_back(e.path());
    }
  }
}

// The folders of TILEPERF_CUBIN_DIRS (colon-separated).
inline std::vector<std::string> extra_cubin_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TILEPERF_CUBIN_DIRS")) {
    for (const auto& dir : split(env, ':')) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  return dirs;
}

}  // namespace tileperf::testing
