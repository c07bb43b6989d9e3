// The result cache: what the tools made of one bytecode for one
// architecture (cubin, remarks, SASS listing, resource usage, TileIR text),
// stored by a key of everything that decides it, so that a rerun, another
// clone or another CI job skips tileiras, cuobjdump, nvdisasm and
// tileirdisasm for a bytecode the cache has seen.
//
// The key hashes the bytecode (with the folders it names left out, so that
// clones at other paths share it: cache_paths.h), the architecture, the
// tools' releases and the flags. The entry's text files are stored with
// those folders as tokens and read back with the fetching clone's; the cubin
// is kept as compiled. An entry is a folder <dir>/v1/<key[0:2]>/<key>
// holding the files and a manifest of their SHA-256; it is filled in a
// temporary folder and renamed into place, so that concurrent tests and jobs
// see a whole entry or none. An entry whose files do not match its manifest
// (damaged, or written by something else) is removed and counted as a miss.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolchain/remote_cache.h"

namespace tileperf {

// The cache key of one compilation (`bytecode_identity`: bytecode_paths().identity).
std::string cache_key(const std::string& bytecode_identity, const std::string& arch,
                      const std::map<std::string, std::string>& tool_releases, const std::string& flags);

// A key and the folders its bytecode names here (bytecode_paths().roots): an
// entry's text files hold them as tokens.
struct CacheKey {
  std::string hash;
  std::vector<std::string> roots;
  CacheKey() = default;
  CacheKey(std::string key, std::vector<std::string> key_roots = {})  // NOLINT: a bare key has no roots
      : hash(std::move(key)), roots(std::move(key_roots)) {}
};

// With TILEPERF_CACHE_URL set, the folder reads through a remote cache
// (remote_cache.h): a local miss asks the server, and a stored entry is
// written back where that is allowed.
class ResultCache {
 public:
  explicit ResultCache(std::string dir)  // "": off (the remote cache too)
      : dir_(std::move(dir)), remote_(dir_.empty() ? RemoteSettings{} : remote_settings_from_environment(), dir_) {}
  bool enabled() const { return !dir_.empty(); }

  // Copies the entry's files to their destinations (name -> path), the text
  // files with the key's roots; false on a miss. A damaged entry is removed first.
  bool fetch(const CacheKey& key, const std::map<std::string, std::string>& destinations) const;

  // Whether an entry for `key` is there (not whether it is whole: fetch
  // checks that), after asking the remote cache on a local miss.
  bool has(const CacheKey& key) const;

  // Stores the files (name -> path) under `key`, unless an entry is there;
  // the text files with the key's roots as tokens (none where a text holds
  // a token already: it could not be read back).
  void store(const CacheKey& key, const std::map<std::string, std::string>& files) const;

  std::string entry_dir(const std::string& key) const;
  // Where the disassembly batch keeps what it learned of nvdisasm's listings.
  std::string frames_dir() const;

 private:
  // Stores the files (name -> content) under `key` locally, unless an entry is there.
  void store_local(const std::string& key, const std::map<std::string, std::string>& files) const;
  // A local miss: the remote cache's entry, stored locally; whether there is one now.
  bool pull(const std::string& key) const;

  std::string dir_;
  RemoteCache remote_;
};

// What a cache folder holds: whole entries, their bytes, and leftovers of
// fills that never finished (temporary folders, damaged entries set aside).
struct CacheUsage {
  std::size_t entries = 0;
  std::uint64_t bytes = 0;
  std::size_t leftovers = 0;
};

// Which entries prune_cache keeps: those used (filled or read) within
// `max_age_seconds` of `now`, then the most recently used ones up to
// `max_bytes`. Unset: no limit of that kind.
struct PruneLimits {
  std::optional<std::int64_t> max_age_seconds;
  std::optional<std::uint64_t> max_bytes;
};

struct PruneResult {
  CacheUsage kept;
  CacheUsage removed;  // leftovers: those older than an hour, which no fill still writes
};

// A hit marks its entry used (the folder's modification time), so that the
// entries a pruned cache keeps are those the latest runs needed. An entry
// is moved aside before it is deleted: a check reading it then finds no
// entry, or a whole one.
CacheUsage cache_usage(const std::string& dir);
PruneResult prune_cache(const std::string& dir, const PruneLimits& limits, std::filesystem::file_time_type now);

// "500M", "2G", "1.5G", "4096" (bytes; K, M, G, T are powers of 1024) -> bytes;
// "30d", "12h", "90m", "0" (seconds) -> seconds. nullopt when malformed.
std::optional<std::uint64_t> parse_size(std::string_view text);
std::optional<std::int64_t> parse_duration(std::string_view text);

// The cache folder a check uses: TILEPERF_CACHE_DIR when set ("off" turns the
// cache off), else `fallback`.
std::string cache_dir_from_environment(const std::string& fallback);

}  // namespace tileperf
