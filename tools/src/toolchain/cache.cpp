#include "toolchain/cache.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/error.h"
#include "support/sha256.h"
#include "support/text.h"
#include "toolchain/cache_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

constexpr const char* kKeyFormat = "tileperf-cache-key/2";
// The one file of an entry that is not text: kept as compiled.
constexpr const char* kBinaryFile = "cubin";

// An entry is valid when its manifest names this key and every file has
// the size and SHA-256 the manifest records.
bool valid_entry(const fs::path& dir, const std::string& key, const std::map<std::string, std::string>& wanted) {
  try {
    auto manifest = nlohmann::json::parse(read_file((dir / "manifest.json").string()));
    if (manifest.value("format", "") != kCacheEntryFormat || manifest.value("key", "") != key) return false;
    const auto& files = manifest.at("files");
    for (const auto& [name, dest] : wanted) {
      const auto& f = files.at(name);
      std::string data = read_file((dir / name).string());
      if (data.size() != f.at("bytes").get<std::size_t>() || sha256_hex(data) != f.at("sha256")) {
        return false;
      }
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Moves a damaged entry aside and removes it, so that a concurrent reader
// never sees it half deleted.
void discard(const fs::path& dir) {
  std::error_code ec;
  fs::path aside = dir.string() + fmt::format(".damaged.{}", ::getpid());
  fs::rename(dir, aside, ec);
  if (!ec) fs::remove_all(aside, ec);
}

std::string unique_suffix() {
  std::random_device rd;
  return fmt::format("{}.{:x}", ::getpid(), rd());
}

}  // namespace

std::string cache_key(const std::string& identity, const std::string& arch,
                      const std::map<std::string, std::string>& tool_releases, const std::string& flags) {
  nlohmann::json j = {
      {"format", kKeyFormat}, {"bytecode", identity}, {"arch", arch}, {"tools", tool_releases}, {"flags", flags}};
  return sha256_hex(j.dump());
}

std::string ResultCache::entry_dir(const std::string& key) const {
  return (fs::path(dir_) / "v1" / key.substr(0, 2) / key).string();
}

std::string ResultCache::frames_dir() const { return enabled() ? (fs::path(dir_) / "nvdisasm-frames").string() : ""; }

bool ResultCache::pull(const std::string& key) const {
  auto files = remote_.fetch(key);
  if (!files) return false;
  try {
    store_local(key, *files);
  } catch (const std::exception& e) {  // a full disk, a name the file system refuses: a miss
    std::fprintf(stderr, "tileperf: note: the remote cache's entry %s cannot be stored locally (%s): not used\n",
                 key.c_str(), e.what());
    return false;
  }
  std::error_code ec;
  return fs::is_directory(entry_dir(key), ec);
}

bool ResultCache::fetch(const CacheKey& key, const std::map<std::string, std::string>& destinations) const {
  if (!enabled()) return false;
  fs::path dir = entry_dir(key.hash);
  if (!fs::is_directory(dir) && !pull(key.hash)) return false;
  if (!valid_entry(dir, key.hash, destinations)) {
    discard(dir);
    return false;
  }
  std::map<std::string, std::string> contents;
  try {
    for (const auto& [name, dest] : destinations) {
      std::string data = read_file((dir / name).string());
      if (name != kBinaryFile) {
        auto here = tokens_to_roots(data, key.roots);
        if (!here) {  // a token this bytecode has no folder for: not this key's entry
          discard(dir);
          return false;
        }
        data = std::move(*here);
      }
      contents[dest] = std::move(data);
    }
  } catch (const InputError&) {
    return false;  // pruned while it was read: the tools make the files anew
  }
  for (const auto& [dest, data] : contents) write_file_atomic(dest, data, Durability::kRenamed);
  std::error_code ec;
  fs::last_write_time(dir, fs::file_time_type::clock::now(), ec);  // used: kept by a prune
  return true;
}

bool ResultCache::has(const CacheKey& key) const {
  return enabled() && (fs::is_directory(entry_dir(key.hash)) || pull(key.hash));
}

void ResultCache::store(const CacheKey& key, const std::map<std::string, std::string>& files) const {
  if (!enabled()) return;
  std::map<std::string, std::string> contents;
  for (const auto& [name, path] : files) {
    std::string data = read_file(path);
    if (name != kBinaryFile) {
      auto canonical = roots_to_tokens(data, key.roots);
      if (!canonical) return;
      data = std::move(*canonical);
    }
    contents[name] = std::move(data);
  }
  try {
    store_local(key.hash, contents);
  } catch (const std::exception& e) {  // the cache only speeds a run up: a fault in it fails nothing
    std::fprintf(stderr, "tileperf: note: the result cache cannot store entry %s (%s): not stored\n", key.hash.c_str(),
                 e.what());
    return;
  }
  remote_.store(key.hash, contents);
}

void ResultCache::store_local(const std::string& key, const std::map<std::string, std::string>& files) const {
  fs::path final_dir = entry_dir(key);
  if (fs::is_directory(final_dir)) return;
  fs::path tmp = fs::path(dir_) / "v1" / "tmp" / (key + "." + unique_suffix());
  fs::create_directories(tmp);
  for (const auto& [name, data] : files) write_file_atomic((tmp / name).string(), data, Durability::kRenamed);
  write_file_atomic((tmp / "manifest.json").string(), RemoteCache::manifest(key, files), Durability::kRenamed);
  fs::create_directories(final_dir.parent_path());
  std::error_code ec;
  fs::rename(tmp, final_dir, ec);  // another writer may have won: its entry is as good
  if (ec) fs::remove_all(tmp, ec);
}

namespace {

struct Entry {
  fs::path dir;
  std::uint64_t bytes = 0;
  fs::file_time_type used;
};

std::uint64_t folder_bytes(const fs::path& dir) {
  std::uint64_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      auto n = it->file_size(size_ec);
      if (!size_ec) bytes += n;
    }
  }
  return bytes;
}

// Whole entries (<dir>/v1/<xx>/<key>) and leftovers (<dir>/v1/tmp/*, and
// entries set aside as damaged).
void scan(const fs::path& root, std::vector<Entry>& entries, std::vector<Entry>& leftovers) {
  std::error_code ec;
  fs::path v1 = root / "v1";
  if (!fs::is_directory(v1, ec)) return;
  for (const auto& shard : fs::directory_iterator(v1, ec)) {
    if (!shard.is_directory()) continue;
    for (const auto& e : fs::directory_iterator(shard.path(), ec)) {
      std::error_code t_ec;
      auto used = fs::last_write_time(e.path(), t_ec);
      if (t_ec) continue;  // removed meanwhile
      Entry entry{e.path(), folder_bytes(e.path()), used};
      bool whole = shard.path().filename() != "tmp" && e.path().filename().string().find('.') == std::string::npos;
      (whole ? entries : leftovers).push_back(std::move(entry));
    }
  }
}

void remove_entry(const fs::path& dir) {
  std::error_code ec;
  fs::path aside = dir.string() + ".pruned." + unique_suffix();
  fs::rename(dir, aside, ec);
  if (!ec) fs::remove_all(aside, ec);
}

void count(CacheUsage& usage, const Entry& e) {
  ++usage.entries;
  usage.bytes += e.bytes;
}

}  // namespace

CacheUsage cache_usage(const std::string& dir) {
  std::vector<Entry> entries, leftovers;
  scan(dir, entries, leftovers);
  CacheUsage usage;
  for (const auto& e : entries) count(usage, e);
  usage.leftovers = leftovers.size();
  return usage;
}

PruneResult prune_cache(const std::string& dir, const PruneLimits& limits, fs::file_time_type now) {
  std::vector<Entry> entries, leftovers;
  scan(dir, entries, leftovers);
  PruneResult result;
  for (const auto& e : leftovers) {
    if (now - e.used > std::chrono::hours(1)) {
      remove_entry(e.dir);
      ++result.removed.leftovers;
    } else {
      ++result.kept.leftovers;
    }
  }
  // Most recently used first; ties by name, so that a prune is reproducible.
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used != b.used ? a.used > b.used : a.dir < b.dir; });
  for (const auto& e : entries) {
    bool too_old = limits.max_age_seconds && now - e.used > std::chrono::seconds(*limits.max_age_seconds);
    bool too_big = limits.max_bytes && result.kept.bytes + e.bytes > *limits.max_bytes;
    if (too_old || too_big) {
      remove_entry(e.dir);
      count(result.removed, e);
    } else {
      count(result.kept, e);
    }
  }
  return result;
}

namespace {

std::optional<double> parse_with_unit(std::string_view text, std::string_view units, const double* factors) {
  if (text.empty()) return std::nullopt;
  double factor = 1;
  std::size_t unit = units.find(text.back());
  if (unit != std::string_view::npos) {
    factor = factors[unit];
    text.remove_suffix(1);
  }
  auto v = parse_decimal(text, 12);  // a size or an age in any unit fits 12 digits
  if (!v) return std::nullopt;
  double value = *v * factor;
  if (value >= 9.0e18) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text) {
  static const double kFactors[] = {1024.0, 1024.0 * 1024, 1024.0 * 1024 * 1024, 1024.0 * 1024 * 1024 * 1024};
  auto v = parse_with_unit(text, "KMGT", kFactors);
  if (!v) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

std::optional<std::int64_t> parse_duration(std::string_view text) {
  static const double kFactors[] = {1, 60, 3600, 86400};
  auto v = parse_with_unit(text, "smhd", kFactors);
  if (!v) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

std::string cache_dir_from_environment(const std::string& fallback) {
  const char* env = std::getenv("TILEPERF_CACHE_DIR");
  if (!env || !*env) return fallback;
  std::string v = env;
  return v == "off" || v == "0" ? "" : v;
}

}  // namespace tileperf
