#include "source_lines.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

namespace tileperf {

namespace {

std::string file_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

LineCounts count_source_lines(const SassListing& sass, const LineTable& lines) {
  LineCounts out;
  if (lines.empty()) return out;
  for (const auto& f : sass.functions) {
    for (std::size_t i = 0; i < f.padding_begin && i < f.instructions.size(); ++i) {
      auto at = lines.find(f.name, f.instructions[i].address);
      if (!at) continue;
      std::string name = file_name(at->file);
      ++out.counts[fmt::format("{}:{}", name, at->line)];
      out.paths.emplace(name, at->file);
    }
  }
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
  int wanted = std::atoi(line.c_str() + colon + 1);
  std::ifstream in(path->second);
  std::string text;
  for (int n = 1; n <= wanted && std::getline(in, text); ++n) {
    if (n < wanted) continue;
    auto begin = text.find_first_not_of(" \t");
    if (begin == std::string::npos) return "";
    text = text.substr(begin);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
    return text.size() > 120 ? text.substr(0, 117) + "..." : text;
  }
  return "";
}

}  // namespace tileperf
