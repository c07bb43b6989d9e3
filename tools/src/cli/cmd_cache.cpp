// tileperf cache: what a result cache folder holds, and pruning it to the
// entries the latest runs used (see cache.h).
#include <CLI/CLI.hpp>

#include <filesystem>

#include <fmt/format.h>

#include "toolchain/cache.h"
#include "cli/commands.h"
#include "support/error.h"

namespace tileperf {

namespace {

std::string megabytes(std::uint64_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6); }

std::string usage_line(const CacheUsage& u) { return fmt::format("{} entries, {}", u.entries, megabytes(u.bytes)); }

}  // namespace

int run_cache(const Args& args) {
  CLI::App app(
      "What a result cache folder holds; with --max-age or --max-size, remove the "
      "entries no recent run used (a hit marks its entry used), least recently used "
      "first, and the leftovers of fills that never finished.",
      "cache");
  std::string dir, max_size, max_age;
  app.add_option("dir", dir, "the cache folder (default: TILEPERF_CACHE_DIR)");
  app.add_option("--max-size", max_size, "keep the most recently used entries up to this size: 500M, 2G, bytes");
  app.add_option("--max-age", max_age, "remove entries not used for this long: 30d, 12h, 90m, seconds");
  if (parse_args(app, args)) return kExitOk;
  if (dir.empty()) dir = cache_dir_from_environment("");
  if (dir.empty()) throw UsageError("give the cache folder, or set TILEPERF_CACHE_DIR");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw UsageError(fmt::format("{}: not a folder", dir));
  }
  PruneLimits limits;
  if (!max_size.empty()) {
    limits.max_bytes = parse_size(max_size);
    if (!limits.max_bytes) {
      throw UsageError(fmt::format("--max-size {}: expected a size such as 500M, 2G or bytes", max_size));
    }
  }
  if (!max_age.empty()) {
    limits.max_age_seconds = parse_duration(max_age);
    if (!limits.max_age_seconds) {
      throw UsageError(fmt::format("--max-age {}: expected an age such as 30d, 12h, 90m or seconds", max_age));
    }
  }
  if (!limits.max_bytes && !limits.max_age_seconds) {
    auto u = cache_usage(dir);
    fmt::print("{}: {}; {} unfinished or set-aside folder(s)\n", dir, usage_line(u), u.leftovers);
    return kExitOk;
  }
  auto r = prune_cache(dir, limits, std::filesystem::file_time_type::clock::now());
  fmt::print("{}: kept {}; removed {} and {} leftover folder(s)\n", dir, usage_line(r.kept), usage_line(r.removed),
             r.removed.leftovers);
  return kExitOk;
}

}  // namespace tileperf
