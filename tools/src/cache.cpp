#include "cache.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "error.h"
#include "sha256.h"
#include "text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

constexpr const char* kEntryFormat = "tileperf-cache-entry/1";
constexpr const char* kKeyFormat = "tileperf-cache-key/1";
constexpr const char* kSourceToken = "<kernel-folder>";

// An entry is valid when its manifest names this key and every file has
// the size and SHA-256 the manifest records.
bool valid_entry(const fs::path& dir, const std::string& key,
                 const std::map<std::string, std::string>& wanted) {
  try {
    auto manifest = nlohmann::json::parse(read_file((dir / "manifest.json").string()));
    if (manifest.value("format", "") != kEntryFormat || manifest.value("key", "") != key) return false;
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

std::string bytecode_identity(const std::string& bytecode, const std::string& source_dir) {
  if (source_dir.empty()) return sha256_hex(bytecode);
  std::string normalized;
  normalized.reserve(bytecode.size());
  std::size_t at = 0;
  while (true) {
    std::size_t next = bytecode.find(source_dir, at);
    if (next == std::string::npos) break;
    normalized.append(bytecode, at, next - at).append(kSourceToken);
    at = next + source_dir.size();
  }
  normalized.append(bytecode, at, std::string::npos);
  return sha256_hex(normalized);
}

std::string cache_key(const std::string& identity, const std::string& arch,
                      const std::map<std::string, std::string>& tool_releases,
                      const std::string& flags) {
  nlohmann::json j = {{"format", kKeyFormat}, {"bytecode", identity}, {"arch", arch},
                      {"tools", tool_releases}, {"flags", flags}};
  return sha256_hex(j.dump());
}

std::string ResultCache::entry_dir(const std::string& key) const {
  return (fs::path(dir_) / "v1" / key.substr(0, 2) / key).string();
}

bool ResultCache::fetch(const std::string& key,
                        const std::map<std::string, std::string>& destinations) const {
  if (!enabled()) return false;
  fs::path dir = entry_dir(key);
  if (!fs::is_directory(dir)) return false;
  if (!valid_entry(dir, key, destinations)) {
    discard(dir);
    return false;
  }
  for (const auto& [name, dest] : destinations) {
    write_file_atomic(dest, read_file((dir / name).string()));
  }
  return true;
}

void ResultCache::store(const std::string& key, const std::map<std::string, std::string>& files) const {
  if (!enabled()) return;
  fs::path final_dir = entry_dir(key);
  if (fs::is_directory(final_dir)) return;
  fs::path tmp = fs::path(dir_) / "v1" / "tmp" / (key + "." + unique_suffix());
  fs::create_directories(tmp);
  nlohmann::json manifest = {{"format", kEntryFormat}, {"key", key},
                             {"files", nlohmann::json::object()}};
  for (const auto& [name, path] : files) {
    std::string data = read_file(path);
    write_file_atomic((tmp / name).string(), data);
    manifest["files"][name] = {{"bytes", data.size()}, {"sha256", sha256_hex(data)}};
  }
  write_file_atomic((tmp / "manifest.json").string(), manifest.dump(2) + "\n");
  fs::create_directories(final_dir.parent_path());
  std::error_code ec;
  fs::rename(tmp, final_dir, ec);  // another writer may have won: its entry is as good
  if (ec) fs::remove_all(tmp, ec);
}

std::string cache_dir_from_environment(const std::string& fallback) {
  const char* env = std::getenv("TILEPERF_CACHE_DIR");
  if (!env || !*env) return fallback;
  std::string v = env;
  return v == "off" || v == "0" ? "" : v;
}

}  // namespace tileperf
