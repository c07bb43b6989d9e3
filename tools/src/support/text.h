// Small string and file helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tileperf {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(std::string_view s);
std::string trim(std::string_view s);
// The same view without its leading and trailing blanks.
std::string_view trim_view(std::string_view s);
// Line `line` (1-based) of `text` without its newline; "" past the end.
std::string line_at(const std::string& text, int line);
std::vector<std::string> split(std::string_view s, char sep);
// What follows the last '/' of `path` (all of it when there is none).
std::string file_name(const std::string& path);
// `s` cut to at most `max` characters, ending in "..." when it was cut.
std::string cut_text(std::string_view s, std::size_t max);

// Levenshtein distance: the fewest insertions, deletions and substitutions
// that turn `a` into `b` (what a "did you mean" suggestion is chosen by).
std::size_t edit_distance(std::string_view a, std::string_view b);
// Text safe inside an HTML element or a quoted attribute.
std::string html_escape(std::string_view s);

// A decimal count: digits only, at most `max` (no sign, no spaces), or nothing.
std::optional<std::int64_t> parse_count(std::string_view s, std::int64_t max);

// A decimal number with at most one point, each side 1 to `max_digits`
// digits ("2", "2.5"; not ".5", "5.", "1e9", "-1"), or nothing.
std::optional<double> parse_decimal(std::string_view s, std::size_t max_digits);

// The largest file tileperf reads (256 MiB): more is no tool output it knows.
inline constexpr std::uint64_t kMaxInputBytes = std::uint64_t(256) << 20;

// Reads a whole file; throws InputError naming the file when it cannot, when
// it is a folder, or when it is larger than kMaxInputBytes.
std::string read_file(const std::string& path);

// Whether write_file_atomic flushes the file to disk before the rename:
// kSynced for what a power loss must not take (baselines, run and toolchain
// records, reports), kRenamed for build outputs that a later run remakes or
// checks (work-folder copies of cache entries, metrics, results, cache
// entries, whose manifest records each file's SHA-256).
enum class Durability { kSynced, kRenamed };

// Writes `content` to `path` atomically: a temporary file `<path>.tmp.<pid>`
// in the same folder, flushed to disk (kSynced), then renamed over the
// target. A reader, or a process killed half way, sees the old file or the
// new one, never a partial one. Temporaries of the same target left by a
// process that no longer runs are removed.
void write_file_atomic(const std::string& path, const std::string& content,
                       Durability durability = Durability::kSynced);

}  // namespace tileperf
