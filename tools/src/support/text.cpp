#include "support/text.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "support/error.h"

namespace tileperf {

namespace {

constexpr std::string_view kSpace = " \t\r\n";

void write_all(int fd, const std::string& content, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_file_error(path, errno, "cannot write");
    done += static_cast<std::size_t>(n);
  }
}

// `<path>.tmp.<pid>` files whose process is gone: what a killed write left.
void remove_stale_temporaries(const std::filesystem::path& target) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string prefix = target.filename().string() + ".tmp.";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    auto pid = parse_count(std::string_view(name).substr(prefix.size()), 1 << 30);
    if (!pid || *pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) fs::remove(it->path(), ec);
  }
}

}  // namespace

std::optional<std::int64_t> parse_count(std::string_view s, std::int64_t max) {
  if (s.empty()) return std::nullopt;
  std::int64_t value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (max - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::optional<double> parse_decimal(std::string_view s, std::size_t max_digits) {
  auto parts = split(s, '.');
  if (parts.size() > 2) return std::nullopt;
  for (const auto& part : parts) {
    if (part.empty() || part.size() > max_digits || !std::all_of(part.begin(), part.end(), is_digit)) {
      return std::nullopt;
    }
  }
  return std::stod(std::string(s));
}

bool is_blank(std::string_view s) { return s.find_first_not_of(kSpace) == std::string_view::npos; }

std::string line_at(const std::string& text, int line) {
  std::size_t begin = 0;
  for (int i = 1; i < line && begin != std::string::npos; ++i) {
    begin = text.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (line < 1 || begin == std::string::npos || begin > text.size()) return "";
  return text.substr(begin, text.find('\n', begin) - begin);
}

std::string_view trim_view(std::string_view s) {
  auto b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

std::string trim(std::string_view s) { return std::string(trim_view(s)); }

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw InputError(path, 0, "is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_file_error(path, errno, "cannot read");
  std::string out;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<std::size_t>(in.gcount()));
    if (out.size() > kMaxInputBytes) {
      throw InputError(path, 0, fmt::format("larger than {} MiB: not an input tileperf reads", kMaxInputBytes >> 20));
    }
  }
  return out;
}

void write_file_atomic(const std::string& path, const std::string& content, Durability durability) {
  namespace fs = std::filesystem;
  fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  remove_stale_temporaries(target);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_file_error(tmp, errno, "cannot create");
  try {
    write_all(fd, content, tmp);
    if (durability == Durability::kSynced && ::fsync(fd) != 0) throw_file_error(tmp, errno, "cannot sync");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw_file_error(path, err, "cannot replace");
  }
}

std::string cut_text(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max > 3 ? max - 3 : 0)) + "...";
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string file_name(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace tileperf
