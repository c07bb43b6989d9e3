// The names of the files of a run, a kernel, a configuration and an
// architecture, in the work folder (build/tileperf by default) and the
// baselines folder: built here and parsed back here from the one table of
// them (tests/fixtures/work_paths.json holds this to it). Kernel and
// configuration names and architectures follow the rules of
// support/defaults.h ([A-Za-z0-9_]+, sm_[0-9]+[a-z]?).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "support/work_path_kinds.inc"  // TILEPERF_WORK_PATH_KINDS, generated from the table

namespace tileperf {

// The first problem with a kernel or config name (kNamePattern, at most 200
// characters) or an architecture (kArchPattern, at most 200), or "".
std::string name_problem(const std::string& name);
std::string arch_problem(const std::string& arch);

// A kind of file, one per row of tools/tileperf_dump/work_paths.json (the
// one table of the names, which the Python package and the CMake API read
// too): the run's own files (run, toolchain, the batch lists, their locks
// and timings), a kernel's (configs, dump_stamp, ...), a configuration's
// (bytecode, dump_record) and a configuration's on an architecture (the
// rest). Baseline and baseline_detail lie in the baselines folder.

enum class FileKind {
#define TILEPERF_KIND_ENUMERATOR(enumerator, name, baselines, path) enumerator,
  TILEPERF_WORK_PATH_KINDS(TILEPERF_KIND_ENUMERATOR)
#undef TILEPERF_KIND_ENUMERATOR
};

// How many kinds the table has.
std::size_t file_kind_count();

// The kind's name in work_paths.json ("res_usage"); nullopt for another name.
const char* file_kind_name(FileKind kind);
std::optional<FileKind> file_kind_named(const std::string& name);

// The kind's path template, "{kernel}/{config}.{arch}.cubin".
const char* file_kind_template(FileKind kind);

// What a file stands for.
struct FileId {
  FileKind kind = FileKind::kResult;
  std::string kernel, config, arch;  // "" where the kind has none
  std::string part;                  // of a run's file named after a part ("all", "sm_90", "kernels.1")
  bool operator==(const FileId&) const = default;
};

// The file's path relative to its folder: "softmax/bf16_2048.sm_90.cubin".
// A name the rule forbids is a UsageError.
std::string relative_path(const FileId& id);

// The file at `relative` (a path relative to its folder, '/'-separated) of a
// kind of `baselines` folder or not, or nullopt when it is none of them.
std::optional<FileId> parse_relative_path(const std::string& relative, bool baselines);

// The run's own file of `kind` in the work folder `work_dir`:
// work_file("build/tileperf", FileKind::kRun) is "build/tileperf/run.json".
std::string work_file(const std::string& work_dir, FileKind kind, const std::string& part = "");

// The file of `kind` (a kind of a kernel's folder) in the kernel's folder `dir`.
std::string kernel_file(const std::string& dir, FileKind kind, const std::string& config = "",
                        const std::string& arch = "");

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
