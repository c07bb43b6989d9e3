#include "support/work_paths.h"

#include "support/defaults.h"
#include "support/error.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <regex>
#include <string_view>
#include <vector>

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

struct KindRow {
  FileKind kind;
  const char* name;
  bool baselines;
  const char* path;  // the template: {kernel}, {config}, {arch}, {part}
};

constexpr std::array kKinds{
#define TILEPERF_KIND_ROW(enumerator, name, baselines, path) KindRow{FileKind::enumerator, name, baselines, path},
    TILEPERF_WORK_PATH_KINDS(TILEPERF_KIND_ROW)
#undef TILEPERF_KIND_ROW
};

const KindRow& row_of(FileKind kind) { return kKinds[static_cast<std::size_t>(kind)]; }

// A part: dot-separated names ("all", "sm_90", "kernels.1").
std::string part_problem(const std::string& part) {
  std::string problem = part.empty() ? "'' is no part" : "";
  for (std::size_t begin = 0; problem.empty() && begin <= part.size();) {
    std::size_t end = std::min(part.find('.', begin), part.size());
    if (!name_problem(part.substr(begin, end - begin)).empty()) {
      problem = "part '" + part + "' must be dot-separated names matching " + kNamePattern;
    }
    begin = end + 1;
  }
  return problem;
}

// The template's pieces: literal text, and the fields between them.
struct Piece {
  bool field;
  std::string text;  // the literal, or the field's name
};

std::vector<Piece> pieces(std::string_view path) {
  std::vector<Piece> out;
  while (!path.empty()) {
    std::size_t open = path.find('{');
    if (open != 0) {
      out.push_back({false, std::string(path.substr(0, open))});
      if (open == std::string_view::npos) break;
      path.remove_prefix(open);
    }
    std::size_t close = path.find('}');
    out.push_back({true, std::string(path.substr(1, close - 1))});
    path.remove_prefix(close + 1);
  }
  return out;
}

std::string& field_of(FileId& id, const std::string& field) {
  if (field == "kernel") return id.kernel;
  if (field == "config") return id.config;
  if (field == "arch") return id.arch;
  return id.part;
}

std::string problem_of(const std::string& field, const std::string& value) {
  if (field == "arch") return arch_problem(value);
  if (field == "part") return part_problem(value);
  return name_problem(value);
}

// The fields of `path` read as a file of `row`, if it is one. Each field
// runs to the next literal (the literal after a name or architecture holds
// a character no name has; a part runs to the last match of what follows).
std::optional<FileId> parse_as(const KindRow& row, std::string_view path) {
  FileId id{row.kind, "", "", "", ""};
  auto ps = pieces(row.path);
  std::size_t at = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const Piece& p = ps[i];
    if (!p.field) {
      if (path.substr(at, p.text.size()) != p.text) return std::nullopt;
      at += p.text.size();
      continue;
    }
    std::size_t end = path.size();
    if (i + 1 < ps.size()) {
      const std::string& next = ps[i + 1].text;
      end = p.text == "part" ? path.rfind(next) : path.find(next, at);
      if (end == std::string_view::npos || end < at) return std::nullopt;
    }
    std::string value(path.substr(at, end - at));
    if (!problem_of(p.text, value).empty()) return std::nullopt;
    field_of(id, p.text) = value;
    at = end;
  }
  if (at != path.size()) return std::nullopt;
  return id;
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

std::size_t file_kind_count() { return kKinds.size(); }

const char* file_kind_name(FileKind kind) { return row_of(kind).name; }

const char* file_kind_template(FileKind kind) { return row_of(kind).path; }

std::optional<FileKind> file_kind_named(const std::string& name) {
  for (const auto& row : kKinds) {
    if (name == row.name) return row.kind;
  }
  return std::nullopt;
}

std::string relative_path(const FileId& id) {
  std::string out;
  FileId copy = id;
  for (const auto& p : pieces(row_of(id.kind).path)) {
    if (!p.field) {
      out += p.text;
      continue;
    }
    const std::string& value = field_of(copy, p.text);
    if (auto problem = problem_of(p.text, value); !problem.empty()) {
      throw UsageError(std::string("a ") + file_kind_name(id.kind) + " file's " + p.text + " " + problem);
    }
    out += value;
  }
  return out;
}

std::optional<FileId> parse_relative_path(const std::string& relative, bool baselines) {
  for (const auto& row : kKinds) {
    if (row.baselines != baselines) continue;
    if (auto id = parse_as(row, relative)) return id;
  }
  return std::nullopt;
}

std::string work_file(const std::string& work_dir, FileKind kind, const std::string& part) {
  return work_dir + "/" + relative_path(FileId{kind, "", "", "", part});
}

std::string kernel_file(const std::string& dir, FileKind kind, const std::string& config, const std::string& arch) {
  std::string relative = relative_path(FileId{kind, "k", config, arch, ""});
  if (relative.rfind("k/", 0) != 0)
    throw UsageError(std::string("a ") + file_kind_name(kind) + " file is no file of a kernel's folder");
  return dir + "/" + relative.substr(2);
}

std::string test_prefix(const std::string& dir, const std::string& config, const std::string& arch) {
  return dir + "/" + config + "." + arch;
}

namespace {

// What follows "{arch}" in the template of a kind of a configuration on an
// architecture ("{kernel}/{config}.{arch}.cubin": ".cubin"), else nullopt.
std::optional<std::string_view> arch_tail(FileKind kind) {
  std::string_view path = row_of(kind).path;
  constexpr std::string_view kStem = "{kernel}/{config}.{arch}";
  if (path.rfind(kStem, 0) != 0) return std::nullopt;
  return path.substr(kStem.size());
}

}  // namespace

std::string prefixed_file(const std::string& prefix, FileKind kind) {
  auto tail = arch_tail(kind);
  if (!tail) throw UsageError(std::string("a ") + file_kind_name(kind) + " file is no file of an architecture");
  return prefix + std::string(*tail);
}

std::optional<std::string> prefix_of(const std::string& file, FileKind kind) {
  auto tail = arch_tail(kind);
  if (!tail || !file.ends_with(*tail)) return std::nullopt;
  return file.substr(0, file.size() - tail->size());
}

}  // namespace tileperf
