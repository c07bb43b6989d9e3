// A result cache shared by a team over plain HTTP: TILEPERF_CACHE_URL names
// a WebDAV folder (nginx with dav_methods PUT) or a bazel-remote server, in
// the layout both serve and ccache's HTTP storage uses:
//   <url>/ac/<key>      the entry's manifest (JSON: each file's size and SHA-256)
//   <url>/cas/<sha256>  each file, named by the SHA-256 of its content
// The local cache reads through it: a local miss asks the server (GET), and
// an entry it returns is used only once every file matches the SHA-256 in
// its manifest and the manifest names the key; it is then stored locally.
// After a compilation the entry is written back (HEAD, then PUT of what the
// server lacks, the manifest last) only where TILEPERF_CACHE_WRITE is 1.
// TILEPERF_CACHE_TOKEN, when set, goes with every request as a bearer token
// and never into a message.
//
// The server can only speed a run up: a request that fails (no server,
// refused, timed out after TILEPERF_CACHE_TIMEOUT seconds, an answer that
// is not an entry, an entry that names what no entry holds, an entry the
// local cache cannot store) is a miss, never a failure. The first failure opens a
// circuit breaker that every process of the run sees (a file in the local
// cache folder): the server is not asked again for kBreakerSeconds, and the
// failure is said once, by the process that met it. A refused write stops
// writes the same way.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "support/http.h"

namespace tileperf {

// The format of an entry's manifest, local and remote.
inline constexpr const char* kCacheEntryFormat = "tileperf-cache-entry/1";

struct RemoteSettings {
  std::string url;     // "": no remote cache
  bool write = false;  // TILEPERF_CACHE_WRITE=1
  HttpOptions http;
};

// From TILEPERF_CACHE_URL, TILEPERF_CACHE_WRITE, TILEPERF_CACHE_TOKEN and
// TILEPERF_CACHE_TIMEOUT (seconds, default 10); UsageError for a malformed
// value.
RemoteSettings remote_settings_from_environment();

// What an entry may name: at most kMaxEntryFiles files, each a name of
// [A-Za-z0-9_.-] of at most kMaxEntryName characters that is not "." or
// ".."; an entry that names anything else is refused (a miss, with a note).
inline constexpr std::size_t kMaxEntryFiles = 16;
inline constexpr std::size_t kMaxEntryName = 64;

// Seconds the breaker keeps the server out after a failure.
inline constexpr int kBreakerSeconds = 600;

class RemoteCache {
 public:
  // `state_dir`: the local cache folder, where the breaker lives.
  RemoteCache(RemoteSettings settings, std::string state_dir);
  bool enabled() const { return !settings_.url.empty(); }

  // The entry's files (name -> content), verified; nullopt on a miss, a
  // failure or an entry that fails verification.
  std::optional<std::map<std::string, std::string>> fetch(const std::string& key) const;

  // Writes the entry back, when writing is allowed and the breaker is shut.
  void store(const std::string& key, const std::map<std::string, std::string>& files) const;

  // The manifest a remote entry holds (also what the local cache writes).
  static std::string manifest(const std::string& key, const std::map<std::string, std::string>& files);

 private:
  bool open(const std::string& what) const;  // whether the breaker keeps `what` ("read", "write") out
  void trip(const std::string& what, const std::string& why) const;
  std::nullopt_t not_whole(const std::string& key) const;                       // says so; a miss
  std::nullopt_t refuse(const std::string& key, const std::string& why) const;  // says why; a miss
  std::string url(const std::string& path) const;

  RemoteSettings settings_;
  std::string breaker_file_;
};

}  // namespace tileperf
