// Small string and file helpers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tileperf {

bool is_blank(std::string_view s);
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep);

// Reads a whole file; throws InputError naming the file when it cannot.
std::string read_file(const std::string& path);

// Writes `content` to `path` atomically: a temporary file in the same folder,
// flushed to disk, then renamed over the target. A reader sees the old file or
// the new one, never a partial one.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace tileperf
