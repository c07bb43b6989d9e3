#include "support/work_paths.h"

#include "support/defaults.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <regex>
#include <string_view>

namespace tileperf {

namespace {

constexpr std::size_t kMaxNameLength = 200;

// The rules of support/defaults.h, compiled once.
const std::regex& name_rule() {
  static const std::regex rule(kNamePattern);
  return rule;
}

const std::regex& arch_rule() {
  static const std::regex rule(kArchPattern);
  return rule;
}

// What a kind's file name is made of: a fixed name (a kernel's file), or
// <config><suffix> (a configuration's), or <config>.<arch><suffix>.
enum class Scope { kKernel, kConfig, kArch };

struct KindRow {
  FileKind kind;
  const char* name;
  Scope scope;
  const char* tail;  // the fixed name, or the suffix
  bool baselines;
};

// Longest suffixes first, so that parsing tries ".tileirbc.json" before
// ".json".
constexpr std::array<KindRow, 16> kKinds{{
    {FileKind::kConfigs, "configs", Scope::kKernel, "configs.json", false},
    {FileKind::kDumpStamp, "dump_stamp", Scope::kKernel, "dump.stamp.json", false},
    {FileKind::kDumpRecord, "dump_record", Scope::kConfig, ".tileirbc.json", false},
    {FileKind::kBytecode, "bytecode", Scope::kConfig, ".tileirbc", false},
    {FileKind::kResUsage, "res_usage", Scope::kArch, ".res-usage.txt", false},
    {FileKind::kRemarks, "remarks", Scope::kArch, ".remarks.yaml", false},
    {FileKind::kTimeline, "timeline", Scope::kArch, ".timeline.json", false},
    {FileKind::kMetrics, "metrics", Scope::kArch, ".metrics.json", false},
    {FileKind::kResult, "result", Scope::kArch, ".result.json", false},
    {FileKind::kMemo, "memo", Scope::kArch, ".memo.json", false},
    {FileKind::kTileir, "tileir", Scope::kArch, ".tileir", false},
    {FileKind::kCubin, "cubin", Scope::kArch, ".cubin", false},
    {FileKind::kSass, "sass", Scope::kArch, ".sass", false},
    {FileKind::kLock, "lock", Scope::kArch, ".lock", false},
    {FileKind::kBaselineDetail, "baseline_detail", Scope::kArch, ".detail.json", true},
    {FileKind::kBaseline, "baseline", Scope::kArch, ".json", true},
}};

const KindRow& row_of(FileKind kind) {
  return *std::find_if(kKinds.begin(), kKinds.end(), [&](const KindRow& r) { return r.kind == kind; });
}

// The id of `file` (a name in a kernel's folder) as a file of `row`, if it is one.
std::optional<FileId> parse_as(const KindRow& row, const std::string& kernel, const std::string& file) {
  if (row.scope == Scope::kKernel) {
    if (file != row.tail) return std::nullopt;
    return FileId{row.kind, kernel, "", ""};
  }
  std::string_view tail = row.tail;
  if (!file.ends_with(tail)) return std::nullopt;
  std::string stem = file.substr(0, file.size() - tail.size());
  std::string config = stem, arch;
  if (row.scope == Scope::kArch) {
    std::size_t dot = stem.rfind('.');
    if (dot == std::string::npos) return std::nullopt;
    config = stem.substr(0, dot);
    arch = stem.substr(dot + 1);
    if (!arch_problem(arch).empty()) return std::nullopt;
  }
  if (!name_problem(config).empty()) return std::nullopt;
  return FileId{row.kind, kernel, config, arch};
}

}  // namespace

std::string name_problem(const std::string& name) {
  if (name.size() > kMaxNameLength || !std::regex_match(name, name_rule())) {
    return "'" + name + "' must match " + kNamePattern;
  }
  return "";
}

std::string arch_problem(const std::string& arch) {
  if (arch.size() > kMaxNameLength || !std::regex_match(arch, arch_rule())) {
    return "'" + arch + "' must look like sm_120";
  }
  return "";
}

const char* file_kind_name(FileKind kind) { return row_of(kind).name; }

std::optional<FileKind> file_kind_named(const std::string& name) {
  for (const auto& row : kKinds) {
    if (name == row.name) return row.kind;
  }
  return std::nullopt;
}

std::string relative_path(const FileId& id) {
  const KindRow& row = row_of(id.kind);
  if (row.scope == Scope::kKernel) return id.kernel + "/" + row.tail;
  if (row.scope == Scope::kConfig) return id.kernel + "/" + id.config + row.tail;
  return test_prefix(id.kernel, id.config, id.arch) + row.tail;
}

std::optional<FileId> parse_relative_path(const std::string& relative, bool baselines) {
  std::size_t slash = relative.find('/');
  if (slash == std::string::npos || relative.find('/', slash + 1) != std::string::npos) return std::nullopt;
  std::string kernel = relative.substr(0, slash), file = relative.substr(slash + 1);
  if (!name_problem(kernel).empty()) return std::nullopt;
  for (const auto& row : kKinds) {
    if (row.baselines != baselines) continue;
    if (auto id = parse_as(row, kernel, file)) return id;
  }
  return std::nullopt;
}

std::string test_prefix(const std::string& dir, const std::string& config, const std::string& arch) {
  return dir + "/" + config + "." + arch;
}

std::string prefixed_file(const std::string& prefix, FileKind kind) { return prefix + row_of(kind).tail; }

std::optional<std::string> prefix_of(const std::string& file, FileKind kind) {
  std::string_view tail = row_of(kind).tail;
  if (row_of(kind).scope != Scope::kArch || !file.ends_with(tail)) return std::nullopt;
  return file.substr(0, file.size() - tail.size());
}

}  // namespace tileperf
