// The toolchain, probed once: where each tool is, its release, and the
// architectures tileiras accepts, written to one record that every test of
// a run reads instead of asking the tools again. A tool that changed on disk
// after the probe (a different size or modification time) is caught before
// it is used.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "toolchain/toolchain.h"

namespace tileperf {

inline constexpr const char* kToolchainFormat = "tileperf-toolchain/1";

struct ToolIdentity {
  std::string path, version;
  std::uintmax_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const ToolIdentity&) const = default;
};

struct ToolchainRecord {
  std::map<std::string, ToolIdentity> tools;  // tileiras, tileirdisasm, cuobjdump, nvdisasm
  std::vector<std::string> architectures;     // what tileiras accepts for --gpu-name
  // Whether this platform let the probe turn a child's address-space
  // randomisation off: "fixed", or "randomized: personality refused: <why>"
  // (probe_compile_process). "" in a record of an older release: probed again.
  std::string compile_process;

  const ToolIdentity& tool(const std::string& name, const std::string& file) const;
  Toolchain toolchain(double timeout_seconds, const std::string& file) const;
  // How tileiras's process runs with `tc` here, as the result cache keys it:
  // "fixed" where the randomisation is off, else "randomized".
  std::string process_key(const Toolchain& tc) const;
};

// Runs each tool once (--version, and tileiras --help).
ToolchainRecord probe_toolchain(const Toolchain& tc);

// The record at `path` if it exists and every tool in it is unchanged on
// disk and at the same paths as `tc`'s; else a fresh probe, written to `path`.
ToolchainRecord probe_or_reuse(const Toolchain& tc, const std::string& path, bool& reused);

ToolchainRecord read_toolchain_record(const std::string& path);
std::string to_json_text(const ToolchainRecord& r);

// ToolError naming the first tool that changed on disk since the probe.
void require_unchanged(const ToolchainRecord& r, const std::string& file);

}  // namespace tileperf
