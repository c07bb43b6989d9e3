#include "toolchain/git.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"

namespace tileperf {

const char* const kGitLogFormat = "%x1e%H%x1f%P%x1f%ct%x1f%cs%x1f%s";

namespace {

namespace fs = std::filesystem;

// Git's own words for what went wrong: its first line that says something.
std::string git_message(const ProcessResult& r) {
  for (const std::string* text : {&r.err, &r.out}) {
    for (const auto& line : split(*text, '\n')) {
      if (!is_blank(line)) return trim(line);
    }
  }
  return r.describe();
}

// A scratch file that removes itself.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    std::string pattern = (fs::temp_directory_path() / "tileperf-git-XXXXXX").string();
    int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw ToolError("cannot create a temporary file in " + fs::temp_directory_path().string());
    ::close(fd);
    path_ = pattern;
    write_file_atomic(path_, content, Durability::kRenamed);
  }
  ~TempFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

GitCommit parse_log_header(const std::string& token) {
  // \x1e H \x1f P \x1f ct \x1f cs \x1f subject (the subject may hold anything but NUL)
  std::vector<std::string> fields;
  std::size_t at = 1;
  for (int i = 0; i < 4; ++i) {
    std::size_t end = token.find('\x1f', at);
    if (end == std::string::npos) throw ToolError("git log: unexpected output: " + token.substr(0, 80));
    fields.push_back(token.substr(at, end - at));
    at = end + 1;
  }
  GitCommit c;
  c.sha = fields[0];
  for (const auto& p : split(fields[1], ' ')) {
    if (!p.empty()) c.parents.push_back(p);
  }
  c.time = parse_count(fields[2], kMaxCount).value_or(0);
  c.date = fields[3];
  c.subject = token.substr(at);
  return c;
}

// ":100644 100644 <old> <new> M" -> the new blob ("" when deleted, or not a file).
std::string raw_new_blob(const std::string& meta) {
  std::vector<std::string> f = split(meta.substr(1), ' ');
  if (f.size() < 5) throw ToolError("git log: unexpected raw line: " + meta);
  bool deleted = f[4] == "D" || f[3].find_first_not_of('0') == std::string::npos;
  bool regular = f[1].rfind("100", 0) == 0;
  return deleted || !regular ? "" : f[3];
}

std::string strip_newlines(const std::string& token) {
  std::size_t start = token.find_first_not_of('\n');
  return start == std::string::npos ? "" : token.substr(start);
}

}  // namespace

ProcessResult run_git(const std::string& repo, const std::vector<std::string>& args, const ProcessOptions& options) {
  std::vector<std::string> argv = {"git", "-C", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o = options;
  for (const char* v : {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"}) o.unset_env.push_back(v);
  o.set_env["LC_ALL"] = "C";  // git's messages, which bisect reads, in English
  return run_process(argv, o);
}

std::string git_output(const std::string& repo, const std::vector<std::string>& args, const ProcessOptions& options) {
  ProcessResult r = run_git(repo, args, options);
  if (!r.ok()) throw UsageError("git " + args.front() + " in " + repo + ": " + git_message(r));
  return r.out;
}

std::string git_toplevel(const std::string& dir) {
  ProcessResult r = run_git(dir, {"rev-parse", "--show-toplevel"});
  if (!r.ok()) throw UsageError(dir + ": not in a git work tree (" + git_message(r) + ")");
  return trim(r.out);
}

std::string git_commit_of(const std::string& repo, const std::string& rev) {
  if (rev.empty() || rev[0] == '-') throw UsageError("'" + rev + "' is not a revision");
  ProcessResult r = run_git(repo, {"rev-parse", "--verify", "--quiet", rev + "^{commit}"});
  if (!r.ok()) throw UsageError("unknown revision '" + rev + "' in " + repo);
  return trim(r.out);
}

std::vector<GitLogEntry> parse_git_log(const std::string& out) {
  std::vector<GitLogEntry> entries;
  std::vector<std::string> tokens = split(out, '\0');
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string token = strip_newlines(tokens[i]);
    if (token.empty()) continue;
    if (token[0] == '\x1e') {
      entries.push_back({parse_log_header(token), {}});
    } else if (token[0] == ':' && !entries.empty() && i + 1 < tokens.size()) {
      entries.back().changes.push_back({tokens[i + 1], raw_new_blob(token)});
      ++i;
    } else {
      throw ToolError("git log: unexpected output: " + token.substr(0, 80));
    }
  }
  return entries;
}

std::vector<GitLogEntry> git_path_log(const std::string& repo, const std::vector<std::string>& revs,
                                      const std::vector<std::string>& paths) {
  std::vector<std::string> args = {"log",
                                   "--first-parent",
                                   "-m",
                                   "--reverse",
                                   "--no-renames",
                                   "--raw",
                                   "--no-abbrev",
                                   "-z",
                                   std::string("--format=") + kGitLogFormat};
  args.insert(args.end(), revs.begin(), revs.end());
  args.push_back("--");
  args.insert(args.end(), paths.begin(), paths.end());
  ProcessOptions o;
  o.max_output_bytes = std::size_t(1) << 30;
  return parse_git_log(git_output(repo, args, o));
}

GitCommit git_commit_info(const std::string& repo, const std::string& rev) {
  std::string out =
      git_output(repo, {"log", "-1", "-z", std::string("--format=") + kGitLogFormat, git_commit_of(repo, rev), "--"});
  auto entries = parse_git_log(out);
  if (entries.size() != 1) throw ToolError("git log -1 " + rev + ": unexpected output");
  return entries[0].commit;
}

std::map<std::string, std::string> git_tree(const std::string& repo, const std::string& rev,
                                            const std::vector<std::string>& paths) {
  std::vector<std::string> args = {"ls-tree", "-r", "-z", "--full-tree", rev, "--"};
  args.insert(args.end(), paths.begin(), paths.end());
  ProcessOptions o;
  o.max_output_bytes = std::size_t(1) << 30;
  std::map<std::string, std::string> files;
  for (const auto& entry : split(git_output(repo, args, o), '\0')) {
    std::size_t tab = entry.find('\t');
    if (tab == std::string::npos) continue;
    std::vector<std::string> f = split(entry.substr(0, tab), ' ');
    if (f.size() == 3 && f[1] == "blob" && f[0].rfind("100", 0) == 0) files[entry.substr(tab + 1)] = f[2];
  }
  return files;
}

std::map<std::string, std::string> parse_cat_file_batch(const std::string& out) {
  std::map<std::string, std::string> blobs;
  std::size_t at = 0;
  while (at < out.size()) {
    std::size_t eol = out.find('\n', at);
    if (eol == std::string::npos) throw ToolError("git cat-file: output cut short");
    std::vector<std::string> f = split(out.substr(at, eol - at), ' ');
    at = eol + 1;
    if (f.size() == 2 && f[1] == "missing") throw ToolError("git cat-file: object " + f[0] + " is missing");
    auto size = f.size() == 3 ? parse_count(f[2], kMaxCount) : std::nullopt;
    if (!size || at + *size > out.size()) throw ToolError("git cat-file: unexpected output");
    blobs[f[0]] = out.substr(at, static_cast<std::size_t>(*size));
    at += static_cast<std::size_t>(*size) + 1;  // the content, then a newline
  }
  return blobs;
}

std::map<std::string, std::string> git_blobs(const std::string& repo, const std::vector<std::string>& blobs) {
  if (blobs.empty()) return {};
  std::string list;
  for (const auto& b : blobs) list += b + "\n";
  TempFile input(list);
  ProcessOptions o;
  o.input_file = input.path();
  o.max_output_bytes = std::size_t(4) << 30;
  return parse_cat_file_batch(git_output(repo, {"cat-file", "--batch"}, o));
}

}  // namespace tileperf
