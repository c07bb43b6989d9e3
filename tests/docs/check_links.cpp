// Checks that every relative link of the Markdown files it is given (files,
// or folders searched for *.md) resolves: the file or folder exists and, for
// a link with #anchor, the Markdown file it names has a heading with that
// anchor (GitHub's rule: lower case, punctuation dropped, spaces to hyphens).
// Links inside fenced code blocks and code spans are not links.
//   check_links PATH...   exit 0 when all resolve, 1 listing those that do not
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Link {
  int line;
  std::string target;
};

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

bool is_fence(const std::string& line) {
  auto start = line.find_first_not_of(' ');
  return start != std::string::npos && (line.compare(start, 3, "```") == 0 || line.compare(start, 3, "~~~") == 0);
}

// The line without its code spans.
std::string without_code(const std::string& line) {
  std::string out;
  bool code = false;
  for (char c : line) {
    if (c == '`')
      code = !code;
    else if (!code)
      out += c;
  }
  return out;
}

// The lines outside fenced code blocks, with their numbers.
std::vector<std::pair<int, std::string>> prose_lines(const fs::path& file) {
  std::vector<std::pair<int, std::string>> out;
  bool fence = false;
  int number = 0;
  for (const auto& line : read_lines(file)) {
    ++number;
    if (is_fence(line))
      fence = !fence;
    else if (!fence)
      out.emplace_back(number, line);
  }
  return out;
}

std::string slug(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '_' || c == '-' || c >= 0x80)
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      out += '-';
  }
  return out;
}

// The anchors of a Markdown file's headings; a repeated one gets -1, -2, ...
std::set<std::string> anchors(const fs::path& file) {
  std::set<std::string> out;
  std::map<std::string, int> seen;
  for (const auto& [number, line] : prose_lines(file)) {
    auto hashes = line.find_first_not_of('#');
    if (hashes == 0 || hashes > 6 || hashes == std::string::npos || line[hashes] != ' ') continue;
    std::string a = slug(line.substr(hashes + 1));
    int n = seen[a]++;
    out.insert(n ? a + "-" + std::to_string(n) : a);
  }
  return out;
}

std::vector<Link> links(const fs::path& file) {
  std::vector<Link> out;
  for (const auto& [number, raw] : prose_lines(file)) {
    std::string line = without_code(raw);
    for (auto at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) {
      auto end = line.find_first_of(") ", at + 2);
      if (end != std::string::npos) out.push_back({number, line.substr(at + 2, end - at - 2)});
    }
  }
  return out;
}

bool external(const std::string& target) {
  return target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0;
}

// What is wrong with one link of `file`, or "" when it resolves.
std::string problem(const fs::path& file, const std::string& target) {
  auto hash = target.find('#');
  std::string path = target.substr(0, hash);
  fs::path to = path.empty() ? file : file.parent_path() / path;
  if (!fs::exists(to)) return "no such file " + to.lexically_normal().string();
  if (hash == std::string::npos) return "";
  std::string anchor = target.substr(hash + 1);
  if (to.extension() != ".md" || !anchors(to).count(anchor))
    return "no heading with anchor '" + anchor + "' in " + to.lexically_normal().string();
  return "";
}

std::vector<fs::path> markdown_files(const std::vector<std::string>& args) {
  std::vector<fs::path> out;
  for (const auto& a : args) {
    if (!fs::is_directory(a)) {
      out.emplace_back(a);
      continue;
    }
    for (const auto& e : fs::recursive_directory_iterator(a)) {
      if (e.path().extension() == ".md") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> files = markdown_files({argv + 1, argv + argc});
  int checked = 0, broken = 0;
  for (const auto& file : files) {
    if (!fs::is_regular_file(file)) {
      std::cerr << "check_links: error: " << file.string() << ": not a file\n";
      return 2;
    }
    for (const auto& link : links(file)) {
      if (external(link.target)) continue;
      ++checked;
      std::string p = problem(file, link.target);
      if (p.empty()) continue;
      ++broken;
      std::cout << file.string() << ":" << link.line << ": link '" << link.target << "': " << p << "\n";
    }
  }
  std::cout << checked << " relative link(s) in " << files.size() << " file(s), " << broken << " broken\n";
  return broken ? 1 : 0;
}
