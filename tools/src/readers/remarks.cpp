#include "readers/remarks.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

// tileiras writes documents of a few kilobytes; larger or deeper ones are
// not remarks, and some shapes send yaml-cpp 0.7 into an endless loop when
// it reads several documents at once (LoadAll): each is read on its own.
constexpr std::size_t kMaxDocumentBytes = std::size_t(1) << 20;
// The largest remarks file of the shipped kernels has 7 KiB; yaml-cpp reads
// about a megabyte a second, so this bounds the time a file can take.
constexpr std::size_t kMaxRemarksBytes = std::size_t(16) << 20;
constexpr int kMaxFlowDepth = 32;

// "[64, 128, 16]" -> {"64", "128", "16"}; nothing for other text.
std::optional<std::vector<std::string>> shape_dims(const std::string& text) {
  std::string t = trim(text);
  if (t.size() < 3 || t.front() != '[' || t.back() != ']') return std::nullopt;
  std::vector<std::string> dims;
  for (const auto& part : split(std::string_view(t).substr(1, t.size() - 2), ',')) {
    std::string d = trim(part);
    if (d.empty() || !std::all_of(d.begin(), d.end(), is_digit)) return std::nullopt;
    dims.push_back(d);
  }
  return dims;
}

std::string scalar(const YAML::Node& node) { return node && node.IsScalar() ? node.as<std::string>() : ""; }

Remark to_remark(const YAML::Node& doc, const std::string& filename, int first_line) {
  int line = static_cast<int>(doc.Mark().line) + first_line;
  if (!doc.IsMap()) throw InputError(filename, line, "remark document is not a mapping");
  for (const char* key : {"Name", "Function", "Args"}) {
    if (!doc[key]) throw InputError(filename, line, std::string("remark lacks '") + key + "'");
  }
  Remark r;
  r.kind = doc.Tag().size() > 1 && doc.Tag()[0] == '!' ? doc.Tag().substr(1) : doc.Tag();
  r.pass = scalar(doc["Pass"]);
  r.name = scalar(doc["Name"]);
  r.function = scalar(doc["Function"]);
  if (const auto loc = doc["DebugLoc"]; loc && loc.IsMap()) {
    r.file = scalar(loc["File"]);
    r.line = loc["Line"] ? loc["Line"].as<int>() : 0;
    r.column = loc["Column"] ? loc["Column"].as<int>() : 0;
  }
  if (!doc["Args"].IsSequence()) throw InputError(filename, line, "remark 'Args' is not a list");
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& item : doc["Args"]) {
    if (!item.IsMap()) throw InputError(filename, line, "remark argument is not a key: value");
    for (const auto& kv : item) {
      auto pair = std::make_pair(kv.first.as<std::string>(), scalar(kv.second));
      if (seen.insert(pair).second) r.args.push_back(pair);
    }
  }
  return r;
}

std::string document_key(const Remark& r) {
  std::string key = fmt::format("{}|{}|{}|{}|{}:{}:{}", r.kind, r.pass, r.name, r.function, r.file, r.line, r.column);
  for (const auto& [k, v] : r.args) key += "|" + k + "=" + v;
  return key;
}

// One document of the file: its text and the line it starts on (1-based).
struct Document {
  std::string text;
  int first_line = 1;
};

// Cuts the file after each "..." line.
std::vector<Document> documents(const std::string& text) {
  std::vector<Document> out{{}};
  int lineno = 0;
  for (const auto& line : split(text, '\n')) {
    ++lineno;
    out.back().text += line + "\n";
    if (trim(line) == "...") out.push_back(Document{"", lineno + 1});
  }
  if (is_blank(out.back().text)) out.pop_back();
  return out;
}

// Rejects the shapes no remark has: huge documents, deep flow nesting, two
// documents without an end marker between them.
void check_shape(const Document& doc, const std::string& filename) {
  if (doc.text.size() > kMaxDocumentBytes) {
    throw InputError(filename, doc.first_line,
                     fmt::format("remark document larger than {} KiB", kMaxDocumentBytes >> 10));
  }
  int depth = 0, lineno = doc.first_line, starts = 0;
  for (std::size_t i = 0; i < doc.text.size(); ++i) {
    char c = doc.text[i];
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (depth > kMaxFlowDepth) {
      throw InputError(filename, lineno, fmt::format("remark nested deeper than {} levels", kMaxFlowDepth),
                       line_at(doc.text, lineno - doc.first_line + 1));
    }
    if (doc.text.compare(i, 3, "---") == 0 && (i == 0 || doc.text[i - 1] == '\n') && ++starts > 1) {
      throw InputError(filename, lineno, "a remark document starts before the last one ended with '...'",
                       line_at(doc.text, lineno - doc.first_line + 1));
    }
    if (c == '\n') ++lineno;
  }
}

YAML::Node load_document(const Document& doc, const std::string& filename) {
  check_shape(doc, filename);
  try {
    return YAML::Load(doc.text);
  } catch (const YAML::Exception& e) {
    int line = doc.first_line + std::max(0, e.mark.line);
    throw InputError(filename, line, "invalid YAML: " + e.msg, line_at(doc.text, line - doc.first_line + 1));
  }
}

// "Reason: ...; Suggestion: ..." of a remark, each told once, without the
// location prefix tileiras repeats in each reason.
std::string reasons_of(const Remark& r) {
  std::string reasons;
  for (const auto& [k, v] : r.args) {
    if (k != "Reason" && k != "Suggestion") continue;
    std::string reason = v;
    if (auto close = reason.find("): "); reason.rfind("loc(", 0) == 0 && close != std::string::npos) {
      reason = reason.substr(close + 3);
    }
    if (k == "Suggestion") reason = "suggestion: " + reason;
    if (reasons.find(reason) == std::string::npos) reasons += (reasons.empty() ? "" : "; ") + reason;
  }
  return reasons;
}

}  // namespace

std::string Remark::arg(const std::string& key) const {
  for (const auto& [k, v] : args) {
    if (k == key) return v;
  }
  return "";
}

std::string Remark::where() const {
  std::string base = file.substr(file.find_last_of('/') + 1);
  return fmt::format("{}:{}:{}", base.empty() ? "?" : base, line, column);
}

std::string shape_key(const std::string& text) {
  auto dims = shape_dims(text);
  if (!dims) return text;
  std::string out;
  for (const auto& d : *dims) out += (out.empty() ? "" : "x") + d;
  return out;
}

bool is_failure(const Remark& r) { return r.kind == "Failure" || r.kind == "Missed"; }

bool is_lost_tensor_core(const Remark& r) {
  return r.name == "RemarkTensorCoreMMA" && (is_failure(r) || r.arg("Instruction") == "FMA");
}

LostOptimization lost_optimization(const Remark& r) {
  // Remarks of tileiras 13.5 (absent from 13.4's output), each in its failing kinds.
  struct Named {
    const char* name;
    LostOptimization lost;
  };
  static constexpr Named kNamed[] = {
      // !Missed: the views' index arithmetic stays 64-bit.
      {"RemarkTensorViewIndexTypeNarrowing", LostOptimization::kIndexNarrowing},
      // W0001, a warning with Reason and Suggestion: the estimate exceeds the register budget.
      {"RegisterPressure", LostOptimization::kRegisterPressure},
      {"RemarkPerfRegisterSpill", LostOptimization::kRegisterSpill},
      {"RemarkPerfLocalMemoryUsage", LostOptimization::kLocalMemory},
  };
  for (const auto& [name, lost] : kNamed) {
    if (r.name == name && r.kind != "Passed") return lost;
  }
  return LostOptimization::kNone;
}

std::vector<Remark> parse_remarks(const std::string& text, const std::string& filename) {
  if (text.size() > kMaxRemarksBytes) {
    throw InputError(
        filename, 0,
        fmt::format("remarks larger than {} MiB: tileiras writes a few kilobytes", kMaxRemarksBytes >> 20));
  }
  std::string body = trim(text);
  if (!body.empty() && !(body.size() >= 3 && body.compare(body.size() - 3, 3, "...") == 0)) {
    int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    throw InputError(filename, lines, "remarks are truncated: the last document has no end marker '...'");
  }
  std::vector<Remark> out;
  std::set<std::string> seen;
  for (const auto& d : documents(text)) {
    YAML::Node doc = load_document(d, filename);
    if (doc.IsNull()) continue;
    Remark r;
    try {
      r = to_remark(doc, filename, d.first_line);
    } catch (const YAML::Exception& e) {
      throw InputError(filename, d.first_line + std::max(0, e.mark.line), "remark field of the wrong type: " + e.msg);
    }
    if (seen.insert(document_key(r)).second) out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> remark_diagnostics(const std::vector<Remark>& remarks) {
  std::vector<std::string> out;
  for (const auto& r : remarks) {
    LostOptimization kind = lost_optimization(r);
    // Index narrowing is missed in most kernels: a metric, not a note each time.
    bool lost = is_lost_tensor_core(r) || r.name == "RemarkMemoryTmaLoadFailed" ||
                r.name == "RemarkMemoryTmaStoreFailed" ||
                (kind != LostOptimization::kNone && kind != LostOptimization::kIndexNarrowing);
    if (!lost) continue;
    std::string reasons = reasons_of(r);
    std::string id = r.arg("RemarkId");
    std::string tag = !id.empty() && !std::all_of(id.begin(), id.end(), is_digit) ? id + " " : "";
    out.push_back(
        fmt::format("{}: {}{}{}", r.where(), tag, r.arg("Remark"), reasons.empty() ? "" : " (" + reasons + ")"));
  }
  // tileiras writes its remarks in a different order from run to run.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace tileperf
