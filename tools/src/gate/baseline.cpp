#include "gate/baseline.h"

#include <filesystem>

#include "support/error.h"
#include "support/json_input.h"
#include "support/sha256.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

struct Split {
  Metrics main;
  nlohmann::json detail;  // null when there is no detail
};

Split split_detail(const Metrics& m, const Policy& policy) {
  Split out{m, nullptr};
  if (m.variants.empty()) {  // what was compiled is kept only where the compilation varies
    out.main.bytecode.clear();
    out.main.cubin.clear();
  }
  out.main.values.clear();
  out.main.lines.clear();
  out.main.line_text.clear();
  std::map<std::string, std::int64_t> info;
  for (const auto& [name, value] : m.values) {
    const Rule* rule = policy.find(name);
    if (rule && rule->direction == Direction::kInfo) {
      info[name] = value;
    } else {
      out.main.values[name] = value;
    }
  }
  if (info.empty() && m.lines.empty()) return out;
  out.detail = {{"format", kDetailFormat}, {"test", m.id.name()}, {"metrics", info}, {"lines", m.lines}};
  if (!m.line_text.empty()) out.detail["line_text"] = m.line_text;
  return out;
}

}  // namespace

std::string detail_path(const std::string& baseline) {
  return prefixed_file(prefix_of(baseline, FileKind::kBaseline).value_or(baseline), FileKind::kBaselineDetail);
}

BaselineTexts baseline_texts(const std::string& path, const Metrics& m, const Policy& policy) {
  Split s = split_detail(m, policy);
  nlohmann::json main = to_json(s.main);
  BaselineTexts out;
  if (!s.detail.is_null()) {
    out.detail = s.detail.dump(2) + "\n";
    main["detail"] = {{"file", fs::path(detail_path(path)).filename().string()}, {"sha256", sha256_hex(out.detail)}};
  }
  out.main = main.dump(2) + "\n";
  return out;
}

bool baseline_is(const std::string& path, const Metrics& m, const Policy& policy) {
  BaselineTexts want = baseline_texts(path, m, policy);
  std::error_code ec;
  std::string detail = detail_path(path);
  if (!fs::exists(path, ec) || read_file(path) != want.main) return false;
  if (want.detail.empty()) return !fs::exists(detail, ec);
  return fs::exists(detail, ec) && read_file(detail) == want.detail;
}

void write_baseline(const std::string& path, const Metrics& m, const Policy& policy) {
  BaselineTexts t = baseline_texts(path, m, policy);
  std::string detail = detail_path(path);
  if (t.detail.empty()) {
    std::error_code ignored;
    fs::remove(detail, ignored);
  } else {
    write_file_atomic(detail, t.detail);
  }
  write_file_atomic(path, t.main);
}

Metrics parse_baseline(const std::string& path, const std::string& text, const DetailReader& read_detail) {
  nlohmann::json j = parse_json(text, path);
  Metrics m = metrics_from_json(j, path);
  if (!j.contains("detail")) return m;
  const auto& ref = j.at("detail");
  if (!ref.is_object() || !ref.contains("file") || !ref.at("file").is_string() || !ref.contains("sha256") ||
      !ref.at("sha256").is_string()) {
    throw InputError(path, 0, "key 'detail' must be an object with the strings 'file' and 'sha256'");
  }
  std::string name = ref.at("file").get<std::string>();
  if (name != fs::path(detail_path(path)).filename().string()) {
    throw InputError(path, 0, "key 'detail.file' must name " + fs::path(detail_path(path)).filename().string());
  }
  std::string file = detail_path(path);
  std::optional<std::string> detail = read_detail(file);
  if (!detail) throw InputError(file, 0, "missing: " + path + " names it as its detail");
  if (sha256_hex(*detail) != ref.at("sha256").get<std::string>()) {
    throw InputError(file, 0,
                     "is not the detail of " + path +
                         " (its SHA-256 differs from the one the baseline names): "
                         "an interrupted update or a bad merge; update this baseline again");
  }
  nlohmann::json d = parse_json(*detail, file);
  if (!d.is_object() || d.value("format", "") != kDetailFormat) {
    throw InputError(file, 0, std::string("not a ") + kDetailFormat + " file");
  }
  if (d.value("test", "") != m.id.name()) throw InputError(file, 0, "key 'test' must be " + m.id.name());
  if (d.contains("metrics")) {
    for (const auto& [name, value] : json_counts(d.at("metrics"), file, "metrics")) {
      if (!m.values.emplace(name, value).second) {
        throw InputError(file, 0, "key 'metrics." + name + "' is in " + path + " as well");
      }
    }
  }
  if (d.contains("lines")) m.lines = json_counts(d.at("lines"), file, "lines");
  if (d.contains("line_text")) {
    if (!d.at("line_text").is_object()) throw InputError(file, 0, "key 'line_text' must be an object of strings");
    for (const auto& [line, text] : d.at("line_text").items()) {
      if (!text.is_string()) throw InputError(file, 0, "key 'line_text." + line + "' must be a string");
      m.line_text[line] = text.get<std::string>();
    }
  }
  return m;
}

Metrics read_baseline(const std::string& path) {
  auto from_disk = [](const std::string& file) -> std::optional<std::string> {
    if (!fs::exists(file)) return std::nullopt;
    return read_file(file);
  };
  return parse_baseline(path, read_file(path), from_disk);
}

}  // namespace tileperf
