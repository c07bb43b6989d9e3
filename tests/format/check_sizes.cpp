// Checks the size of the code it is given (files, or folders searched for
// *.cpp, *.h and *.cmake): no C++ function longer than --function lines
// (from the line of its opening brace to that of its closing one), no C++
// file longer than --cpp-file lines, no CMake file longer than --cmake-file.
// A function is a brace-enclosed body at namespace or class scope whose head
// ends in a parameter list (a lambda or a block inside a function is part of
// it); comments, string and character literals and raw strings are skipped.
//   check_sizes [--function N] [--cpp-file N] [--cmake-file N] PATH...
// exit 0 when all fit, 1 listing those that do not (file:line: what), 2 for
// a usage error.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Limits {
  long function = 80, cpp_file = 600, cmake_file = 400;
};

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

long count_lines(const std::string& text) {
  long n = std::count(text.begin(), text.end(), '\n');
  return !text.empty() && text.back() != '\n' ? n + 1 : n;
}

// Blanks out what is not code, keeping every newline: comments, string and
// character literals, raw strings.
std::string code_only(const std::string& src) {
  std::string out = src;
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  std::size_t i = 0, n = src.size();
  while (i < n) {
    if (src.compare(i, 2, "//") == 0) {
      std::size_t end = src.find('\n', i);
      end = end == std::string::npos ? n : end;
      blank(i, end);
      i = end;
    } else if (src.compare(i, 2, "/*") == 0) {
      std::size_t end = src.find("*/", i + 2);
      end = end == std::string::npos ? n : end + 2;
      blank(i, end);
      i = end;
    } else if (src.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(src[i - 1])))) {
      std::size_t open = src.find('(', i), end = n;
      if (open != std::string::npos) {
        std::string close = ")";
        close.append(src, i + 2, open - i - 2).push_back('"');
        end = src.find(close, open);
        end = end == std::string::npos ? n : end + close.size();
      }
      blank(i, end);
      i = end;
    } else if (src[i] == '"' ||
               (src[i] == '\'' && (i == 0 || !std::isxdigit(static_cast<unsigned char>(src[i - 1]))))) {
      char quote = src[i];
      std::size_t j = i + 1;
      while (j < n && src[j] != quote && src[j] != '\n') j += src[j] == '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else {
      ++i;
    }
  }
  return out;
}

struct Function {
  std::string name;
  long line = 0, lines = 0;
};

// What a brace opens, from the code before it (since the last ';', '{' or
// '}'): a namespace, a class (struct, enum, union), a function, or
// something else (an initialiser).
enum class Scope { kNamespace, kClass, kFunction, kOther };

Scope scope_of(const std::string& head, std::string& name) {
  static const std::regex space(R"(\bnamespace\b[^()]*$|\bextern\s*$)");
  static const std::regex type(R"(\b(class|struct|enum|union)\b[^()]*$)");
  static const std::regex called(R"(([~A-Za-z_][\w:~]*)\s*\()");
  if (std::regex_search(head, space)) return Scope::kNamespace;
  if (std::regex_search(head, type)) return Scope::kClass;
  if (head.find(')') == std::string::npos) return Scope::kOther;
  std::smatch m;
  if (std::regex_search(head, m, called)) name = m[1];
  return Scope::kFunction;
}

std::vector<Function> functions(const std::string& src) {
  std::string code = code_only(src);
  std::vector<Function> out;
  struct Open {
    Scope scope;
    std::size_t at;
    std::string name;
  };
  std::vector<Open> stack;
  std::size_t last = 0;
  auto line_at = [&](std::size_t pos) {
    return 1 + static_cast<long>(std::count(code.begin(), code.begin() + pos, '\n'));
  };
  for (std::size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c != '{' && c != '}' && c != ';') continue;
    if (c == '{') {
      bool outer = std::all_of(stack.begin(), stack.end(),
                               [](const Open& o) { return o.scope == Scope::kNamespace || o.scope == Scope::kClass; });
      std::string name;
      Scope s = outer ? scope_of(code.substr(last, i - last), name) : Scope::kOther;
      stack.push_back({s, i, name});
    } else if (c == '}' && !stack.empty()) {
      Open o = stack.back();
      stack.pop_back();
      if (o.scope == Scope::kFunction) {
        long first = line_at(o.at);
        out.push_back({o.name.empty() ? "?" : o.name, first, line_at(i) - first + 1});
      }
    }
    last = i + 1;
  }
  return out;
}

// A file's kind by its name; a file named on the command line may end in
// ".in" too (a fixture that no folder search picks up).
bool is_cpp(const fs::path& p, bool named = false) {
  std::string n = p.filename().string();
  if (named && n.ends_with(".in")) n.resize(n.size() - 3);
  return n.ends_with(".cpp") || n.ends_with(".h");
}

bool is_cmake(const fs::path& p, bool named = false) {
  std::string n = p.filename().string();
  if (named && n.ends_with(".in")) n.resize(n.size() - 3);
  return n.ends_with(".cmake") || n == "CMakeLists.txt";
}

// The problems of one file, each a line "file:line: what".
std::vector<std::string> check_file(const fs::path& file, bool named, const Limits& limits) {
  std::vector<std::string> out;
  std::string text = read_file(file);
  long lines = count_lines(text);
  if (is_cmake(file, named) && lines > limits.cmake_file) {
    out.push_back(file.string() + ":1: " + std::to_string(lines) + " lines, more than " +
                  std::to_string(limits.cmake_file) + " for a CMake file");
  }
  if (!is_cpp(file, named)) return out;
  if (lines > limits.cpp_file) {
    out.push_back(file.string() + ":1: " + std::to_string(lines) + " lines, more than " +
                  std::to_string(limits.cpp_file) + " for a C++ file");
  }
  for (const auto& f : functions(text)) {
    if (f.lines > limits.function) {
      out.push_back(file.string() + ":" + std::to_string(f.line) + ": function " + f.name + " is " +
                    std::to_string(f.lines) + " lines, more than " + std::to_string(limits.function));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Limits limits;
  std::vector<fs::path> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    long* limit = a == "--function"     ? &limits.function
                  : a == "--cpp-file"   ? &limits.cpp_file
                  : a == "--cmake-file" ? &limits.cmake_file
                                        : nullptr;
    if (limit) {
      if (i + 1 >= argc) {
        std::cerr << "check_sizes: " << a << " wants a number\n";
        return 2;
      }
      *limit = std::stol(argv[++i]);
    } else {
      paths.emplace_back(a);
    }
  }
  if (paths.empty()) {
    std::cerr << "usage: check_sizes [--function N] [--cpp-file N] [--cmake-file N] PATH...\n";
    return 2;
  }
  std::vector<std::pair<fs::path, bool>> files;  // and whether named on the command line
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file() && (is_cpp(e.path()) || is_cmake(e.path()))) files.emplace_back(e.path(), false);
      }
    } else if (fs::is_regular_file(p)) {
      files.emplace_back(p, true);
    } else {
      std::cerr << "check_sizes: " << p.string() << ": no such file or folder\n";
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  std::size_t problems = 0;
  for (const auto& [f, named] : files) {
    for (const auto& line : check_file(f, named, limits)) {
      std::cout << line << "\n";
      ++problems;
    }
  }
  std::cout << files.size() << " file(s), " << problems << " over their limit\n";
  return problems == 0 ? 0 : 1;
}
