// The reuse of a check's result: a check whose inputs (bytecode, dump
// record, kernel file, baseline, every policy file, the toolchain record,
// its own arguments) and the tileperf executable are what they were when
// it last ran prints what it printed then, rewrites its result stamped with
// this run, and exits as it exited, without measuring anything: a warm
// rerun costs one small process per test. The memo (<config>.<arch>.memo.json
// beside the result) holds a SHA-256 of all of it, the output, the exit code,
// the result and the SHA-256 of the metrics file; a metrics file changed or
// gone since makes the check run. Only checks that ended normally are
// reused (not errors, not update mode).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tileperf {

struct MemoInputs {
  std::vector<std::string> args;     // the check's arguments, as given
  std::vector<std::string> tools;    // executables, by identity (device, inode, size, time): too large to hash
  std::vector<std::string> files;    // files whose content decides the result (absent: counted as absent)
  std::vector<std::string> folders;  // folders whose every file decides it (the policies)
};

// The SHA-256 of everything in `inputs` and of the running executable's
// identity (device, inode, size, modification time).
std::string memo_fingerprint(const MemoInputs& inputs);

struct Memo {
  std::string fingerprint;
  int exit_code = 0;
  std::string output;     // what the check printed
  nlohmann::json result;  // its result file, without the run id
  std::string metrics_sha256;
};

// The memo at `path` when its fingerprint is `fingerprint` and `metrics` is
// still the file it recorded; nullopt otherwise (or when it cannot be read).
std::optional<Memo> reusable_memo(const std::string& path, const std::string& fingerprint, const std::string& metrics);

// Writes the memo atomically; a memo that cannot be written is removed (the
// next run then measures again) and nothing is thrown.
void save_memo(const std::string& path, const Memo& memo);

}  // namespace tileperf
