// Reading a repository's history through git's command line: the commits
// that touched some paths, what each changed, a tree's files and the text of
// blobs. Every call runs `git -C <repo> ...` with the process runner; a git
// that fails (not a repository, an unknown revision) is a UsageError that
// quotes git's own message.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/process.h"

namespace tileperf {

struct GitCommit {
  std::string sha;
  std::vector<std::string> parents;
  std::int64_t time = 0;  // committer time, seconds since the epoch
  std::string date;       // committer date, YYYY-MM-DD
  std::string subject;
};

// One file a commit changed against its first parent: the blob it now has,
// or "" when the commit deleted it.
struct GitChange {
  std::string path;  // from the repository's top folder
  std::string blob;
};

struct GitLogEntry {
  GitCommit commit;
  std::vector<GitChange> changes;
};

// `git -C repo args...` as it ended (GIT_DIR and GIT_WORK_TREE of the
// caller's environment left out, so that `repo` decides).
ProcessResult run_git(const std::string& repo, const std::vector<std::string>& args,
                      const ProcessOptions& options = {});

// Standard output of run_git; UsageError with git's first line
// of standard error when git fails.
std::string git_output(const std::string& repo, const std::vector<std::string>& args,
                       const ProcessOptions& options = {});

// The top folder of the work tree that holds `dir`.
std::string git_toplevel(const std::string& dir);

// The commit a revision names (full SHA-1 or SHA-256 hex).
std::string git_commit_of(const std::string& repo, const std::string& rev);

// The first-parent line of `revs` (as git log takes them; none: HEAD) that
// changed something under `paths`, oldest first, each with its changes
// against its first parent (a merge: what it brought into that line).
std::vector<GitLogEntry> git_path_log(const std::string& repo, const std::vector<std::string>& revs,
                                      const std::vector<std::string>& paths);

// Parses the output of git log -z --raw --no-abbrev --no-renames with the
// format kGitLogFormat. Exposed for the unit tests.
extern const char* const kGitLogFormat;
std::vector<GitLogEntry> parse_git_log(const std::string& out);

// One commit's metadata.
GitCommit git_commit_info(const std::string& repo, const std::string& rev);

// The files under `paths` in a commit's tree: path -> blob.
std::map<std::string, std::string> git_tree(const std::string& repo, const std::string& rev,
                                            const std::vector<std::string>& paths);

// The text of each blob (git cat-file --batch, one process for all).
std::map<std::string, std::string> git_blobs(const std::string& repo, const std::vector<std::string>& blobs);

// Parses git cat-file --batch output. Exposed for the unit tests.
std::map<std::string, std::string> parse_cat_file_batch(const std::string& out);

}  // namespace tileperf
