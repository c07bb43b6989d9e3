// The names of the files of a kernel, a configuration and an architecture,
// in the work folder (build/tileperf by default) and the baselines folder:
// one rule, which tests/fixtures/work_paths.json tabulates, built here and
// parsed back here. Kernel and configuration names and architectures follow
// the rules of support/defaults.h ([A-Za-z0-9_]+, sm_[0-9]+[a-z]?).
#pragma once

#include <optional>
#include <string>

namespace tileperf {

// The first problem with a kernel or config name (kNamePattern, at most 200
// characters) or an architecture (kArchPattern, at most 200), or "".
std::string name_problem(const std::string& name);
std::string arch_problem(const std::string& arch);

// A kind of file: of a kernel (configs, dump_stamp), of a configuration
// (bytecode, dump_record) or of a configuration on an architecture (the
// rest). Baseline and baseline_detail lie in the baselines folder.
enum class FileKind {
  kConfigs, kDumpStamp, kBytecode, kDumpRecord,
  kCubin, kSass, kRemarks, kResUsage, kTileir, kMetrics, kResult, kTimeline, kMemo, kLock,
  kBaseline, kBaselineDetail,
};

// The kind's name in work_paths.json ("res_usage"); nullopt for another name.
const char* file_kind_name(FileKind kind);
std::optional<FileKind> file_kind_named(const std::string& name);

// What a file stands for.
struct FileId {
  FileKind kind = FileKind::kResult;
  std::string kernel, config, arch;  // config and arch "" where the kind has none
  bool operator==(const FileId&) const = default;
};

// The file's path relative to its folder: "softmax/bf16_2048.sm_90.cubin".
std::string relative_path(const FileId& id);

// The file at `relative` (a path relative to its folder, '/'-separated) of a
// kind of `baselines` folder or not, or nullopt when it is none of them.
std::optional<FileId> parse_relative_path(const std::string& relative, bool baselines);

// "<dir>/<config>.<arch>": the stem that the files of a configuration on an
// architecture share in the kernel's folder `dir`.
std::string test_prefix(const std::string& dir, const std::string& config, const std::string& arch);

// The file of `kind` (a kind of a configuration on an architecture) at
// `prefix` (test_prefix): prefix + ".cubin", ".metrics.json", ...
std::string prefixed_file(const std::string& prefix, FileKind kind);

// The prefix of `file` when it is a file of `kind` named by prefixed_file,
// else nullopt.
std::optional<std::string> prefix_of(const std::string& file, FileKind kind);

}  // namespace tileperf
