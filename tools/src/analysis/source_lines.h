// Instructions per source line: how many SASS instructions the line table
// attributes to each line of the kernel's sources, which lines gained or
// lost instructions against a baseline, and the text of those lines.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "readers/line_table.h"
#include "readers/sass.h"

namespace tileperf {

// The key ("gelu.py:21") of the line the table gives an instruction, each
// file's key (source_key of where `here` says it lies) made once.
class LineKeys {
 public:
  explicit LineKeys(const LineTable& lines, std::function<std::string(const std::string&)> here = {})
      : lines_(lines), here_(std::move(here)) {}
  // "" where the table gives the instruction no line.
  std::string of(const std::string& function, std::uint64_t address);
  // Each key's file -> where it lies, of the files met so far.
  const std::map<std::string, std::string>& paths() const { return paths_; }

 private:
  const LineTable& lines_;
  std::function<std::string(const std::string&)> here_;
  std::map<std::string, std::string> keys_;  // the table's path -> its key
  std::map<std::string, std::string> paths_;
};

// "gelu.py:21" -> ("gelu.py", 21); line 0 when it has none.
std::pair<std::string, int> split_line(const std::string& key);

// "gelu.py:21" -> instructions, padding excluded. Each file is keyed by the
// path of its module (source_key), so that clones in other folders count
// the same lines and two files of one name stay apart. `here` gives where a
// path the line table names lies on this machine (the table's own paths
// when empty). Instructions the table gives no line are not counted.
struct LineCounts {
  std::map<std::string, std::int64_t> counts;
  std::map<std::string, std::string> paths;  // "gelu.py" -> where the file lies
};
LineCounts count_source_lines(const SassListing& sass, const LineTable& lines,
                              const std::function<std::string(const std::string&)>& here = {});

// The name a source file's lines are counted under: its path from the
// folder that holds its top-level package, when it is a module of a package
// (each folder on the way holds an __init__.py): "flashinfer/gemm/fp8.py";
// else its file name: "gelu.py".
std::string source_key(const std::string& path);

struct LineMove {
  std::string line;  // "gelu.py:21"
  std::int64_t baseline = 0, current = 0;
  std::string text;   // the line's source text, when known
  double share = -1;  // its share of the current launch estimate's limiting term (-1: not known)
  double ns = 0;      // ... as estimated time
  std::int64_t delta() const { return current - baseline; }
};

// The lines whose count differs, largest change first (then by line).
std::vector<LineMove> line_moves(const std::map<std::string, std::int64_t>& baseline,
                                 const std::map<std::string, std::int64_t>& current);

// The same, with each side's line texts ("gelu.py:21" -> its text): the
// baseline's lines of a file are first matched to the current ones by
// content (the longest common subsequence of their texts, in line order),
// so that lines an edit shifted compare with themselves. A baseline line
// that matches none is shown where it was, as "gelu.py:21 (old)", with its
// text; a file without texts on either side compares by line number.
std::vector<LineMove> line_moves(const std::map<std::string, std::int64_t>& baseline,
                                 const std::map<std::string, std::int64_t>& current,
                                 const std::map<std::string, std::string>& baseline_text,
                                 const std::map<std::string, std::string>& current_text);

// The text of each counted line, read from the sources at `paths`.
std::map<std::string, std::string> line_texts(const std::map<std::string, std::int64_t>& counts,
                                              const std::map<std::string, std::string>& paths);

// The text of "file:line" (trimmed, at most 120 characters) from the file at
// `paths`' path for it, or "" when the file cannot be read.
std::string source_text(const std::string& line, const std::map<std::string, std::string>& paths);

}  // namespace tileperf
