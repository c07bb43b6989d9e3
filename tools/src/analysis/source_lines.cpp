#include "analysis/source_lines.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "support/text.h"

namespace tileperf {

namespace {

// A source line as shown and kept: without its indentation and trailing
// blanks, at most 120 characters.
std::string trimmed(std::string text) {
  auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  text = text.substr(begin);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

struct Numbered {
  int line = 0;
  std::string key, text;
};

// Each file's counted lines in line order, with their texts.
std::map<std::string, std::vector<Numbered>> by_file(const std::map<std::string, std::int64_t>& counts,
                                                     const std::map<std::string, std::string>& texts) {
  std::map<std::string, std::vector<Numbered>> out;
  for (const auto& [key, n] : counts) {
    auto [file, line] = split_line(key);
    auto t = texts.find(key);
    out[file].push_back({line, key, t == texts.end() ? "" : t->second});
  }
  for (auto& [file, lines] : out) {
    std::sort(lines.begin(), lines.end(), [](const Numbered& a, const Numbered& b) { return a.line < b.line; });
  }
  return out;
}

// Largest alignment worth a quadratic table; beyond it, lines compare by number.
constexpr std::size_t kMaxAlignCells = std::size_t(1) << 24;

// Old key -> new key for the lines of one file matched by text: the longest
// common subsequence of the two texts in line order.
void match_file(const std::vector<Numbered>& old_lines, const std::vector<Numbered>& new_lines,
                std::map<std::string, std::string>& out) {
  std::size_t n = old_lines.size(), m = new_lines.size();
  if (n * m > kMaxAlignCells) return;
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i][j] =
          old_lines[i].text == new_lines[j].text ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  for (std::size_t i = 0, j = 0; i < n && j < m;) {
    if (old_lines[i].text == new_lines[j].text) {
      out[old_lines[i].key] = new_lines[j].key;
      ++i, ++j;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
}

bool has_texts(const std::vector<Numbered>& lines) {
  return std::any_of(lines.begin(), lines.end(), [](const Numbered& l) { return !l.text.empty(); });
}

}  // namespace

std::vector<LineMove> line_moves(const std::map<std::string, std::int64_t>& baseline,
                                 const std::map<std::string, std::int64_t>& current,
                                 const std::map<std::string, std::string>& baseline_text,
                                 const std::map<std::string, std::string>& current_text) {
  auto old_files = by_file(baseline, baseline_text), new_files = by_file(current, current_text);
  std::map<std::string, std::int64_t> aligned;
  std::map<std::string, std::string> old_text;  // "gelu.py:21 (old)" -> its text
  for (const auto& [file, old_lines] : old_files) {
    auto now = new_files.find(file);
    std::map<std::string, std::string> matched;
    bool by_content = now != new_files.end() && has_texts(old_lines) && has_texts(now->second);
    if (by_content) match_file(old_lines, now->second, matched);
    for (const auto& l : old_lines) {
      std::string key = l.key;
      if (by_content) {
        auto it = matched.find(l.key);
        key = it != matched.end() ? it->second : l.key + " (old)";
        if (it == matched.end()) old_text[key] = l.text;
      }
      aligned[key] += baseline.at(l.key);
    }
  }
  auto moves = line_moves(aligned, current);
  for (auto& m : moves) {
    auto it = old_text.find(m.line);
    auto now = current_text.find(m.line);
    if (it != old_text.end())
      m.text = it->second;
    else if (now != current_text.end())
      m.text = now->second;
  }
  return moves;
}

std::map<std::string, std::string> line_texts(const std::map<std::string, std::int64_t>& counts,
                                              const std::map<std::string, std::string>& paths) {
  std::map<std::string, std::vector<std::string>> files;  // each file read once
  std::map<std::string, std::string> out;
  for (const auto& [key, n] : counts) {
    auto [name, line] = split_line(key);
    auto path = paths.find(name);
    if (path == paths.end() || line < 1) continue;
    auto [it, added] = files.try_emplace(name);
    if (added) {
      std::ifstream in(path->second);
      for (std::string text; std::getline(in, text);) it->second.push_back(text);
    }
    if (static_cast<std::size_t>(line) <= it->second.size()) {
      std::string text = trimmed(it->second[static_cast<std::size_t>(line) - 1]);
      if (!text.empty()) out[key] = text;
    }
  }
  return out;
}

std::string source_key(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path file(path);
  std::string key = file.filename().string();
  std::error_code ec;
  fs::path folder = file.parent_path();
  for (int depth = 0; depth < 64 && folder.has_relative_path() && fs::is_regular_file(folder / "__init__.py", ec);
       ++depth) {
    key = folder.filename().string() + "/" + key;
    folder = folder.parent_path();
  }
  return key;
}

std::pair<std::string, int> split_line(const std::string& key) {
  auto colon = key.rfind(':');
  if (colon == std::string::npos) return {key, 0};
  return {key.substr(0, colon), std::atoi(key.c_str() + colon + 1)};
}

std::string LineKeys::of(const std::string& function, std::uint64_t address) {
  if (lines_.empty()) return "";
  auto at = lines_.find(function, address);
  if (!at) return "";
  auto [it, fresh] = keys_.try_emplace(at->file);
  if (fresh) {
    std::string path = here_ ? here_(at->file) : at->file;
    it->second = source_key(path);
    paths_.emplace(it->second, path);
  }
  return fmt::format("{}:{}", it->second, at->line);
}

LineCounts count_source_lines(const SassListing& sass, const LineTable& lines,
                              const std::function<std::string(const std::string&)>& here) {
  LineCounts out;
  LineKeys keys(lines, here);
  for (const auto& f : sass.functions) {
    for (std::size_t i = 0; i < f.padding_begin && i < f.instructions.size(); ++i) {
      std::string line = keys.of(f.name, f.instructions[i].address);
      if (!line.empty()) ++out.counts[line];
    }
  }
  out.paths = keys.paths();
  return out;
}

std::vector<LineMove> line_moves(const std::map<std::string, std::int64_t>& baseline,
                                 const std::map<std::string, std::int64_t>& current) {
  std::vector<LineMove> moves;
  for (const auto& [line, n] : current) {
    auto it = baseline.find(line);
    std::int64_t base = it == baseline.end() ? 0 : it->second;
    if (base != n) moves.push_back({line, base, n, ""});
  }
  for (const auto& [line, n] : baseline) {
    if (!current.contains(line) && n != 0) moves.push_back({line, n, 0, ""});
  }
  std::sort(moves.begin(), moves.end(), [](const LineMove& a, const LineMove& b) {
    auto da = std::llabs(a.delta()), db = std::llabs(b.delta());
    return da != db ? da > db : a.line < b.line;
  });
  return moves;
}

std::string source_text(const std::string& line, const std::map<std::string, std::string>& paths) {
  auto colon = line.rfind(':');
  if (colon == std::string::npos) return "";
  auto path = paths.find(line.substr(0, colon));
  if (path == paths.end()) return "";
  std::string number = line.substr(colon + 1);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return "";
  int wanted = std::atoi(number.c_str());
  std::ifstream in(path->second);
  std::string text;
  for (int n = 1; n <= wanted && std::getline(in, text); ++n) {
    if (n == wanted) return trimmed(text);
  }
  return "";
}

}  // namespace tileperf
