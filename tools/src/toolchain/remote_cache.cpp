#include "toolchain/remote_cache.h"

#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/error.h"
#include "support/sha256.h"
#include "support/text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

std::string environment_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// A name as a note shows it: printable, and cut short.
std::string shown_name(const std::string& name) {
  std::string out;
  for (char c : name.substr(0, 40)) out += (c >= ' ' && c <= '~') ? c : '?';
  return name.size() > 40 ? out + fmt::format("... ({} characters)", name.size()) : out;
}

bool is_sha256_hex(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A name an entry's file may have: a word of [A-Za-z0-9_.-] (no "." or
// "..", no folder, not the manifest's own), at most kMaxEntryName long.
bool entry_file_name(const std::string& name) {
  return !name.empty() && name.size() <= kMaxEntryName && name.front() != '.' && name != "manifest.json" &&
         name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") ==
             std::string::npos;
}

// The files a manifest lists (name -> size and SHA-256); nullopt with the
// reason when it is not the manifest of `key` or names what no entry holds.
std::optional<std::map<std::string, std::pair<std::size_t, std::string>>> listed_files(const std::string& text,
                                                                                       const std::string& key,
                                                                                       std::string& refused) {
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("format", "") != kCacheEntryFormat || j.value("key", "") != key) return std::nullopt;
    std::map<std::string, std::pair<std::size_t, std::string>> files;
    if (j.at("files").size() > kMaxEntryFiles) {
      refused = fmt::format("it lists more than {} files", kMaxEntryFiles);
      return std::nullopt;
    }
    for (const auto& [name, f] : j.at("files").items()) {
      if (!entry_file_name(name)) {
        refused = fmt::format("it names a file '{}', which is no name of an entry's file", shown_name(name));
        return std::nullopt;
      }
      std::string sha = f.at("sha256").get<std::string>();
      if (!is_sha256_hex(sha)) return std::nullopt;
      files[name] = {f.at("bytes").get<std::size_t>(), sha};
    }
    return files;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

RemoteSettings remote_settings_from_environment() {
  RemoteSettings s;
  s.url = environment_value("TILEPERF_CACHE_URL");
  while (!s.url.empty() && s.url.back() == '/') s.url.pop_back();
  if (!s.url.empty() && s.url.rfind("http://", 0) != 0 && s.url.rfind("https://", 0) != 0) {
    throw UsageError(fmt::format("TILEPERF_CACHE_URL={}: expected an http:// or https:// URL", shown_url(s.url)));
  }
  std::string write = environment_value("TILEPERF_CACHE_WRITE");
  if (!write.empty() && write != "0" && write != "1") {
    throw UsageError(fmt::format("TILEPERF_CACHE_WRITE={}: expected 1 (write entries back) or 0", write));
  }
  s.write = write == "1";
  s.http.bearer_token = environment_value("TILEPERF_CACHE_TOKEN");
  if (std::string t = environment_value("TILEPERF_CACHE_TIMEOUT"); !t.empty()) {
    auto v = parse_decimal(t, 6);
    if (!v || *v <= 0) throw UsageError(fmt::format("TILEPERF_CACHE_TIMEOUT={}: expected a number of seconds", t));
    s.http.timeout_seconds = *v;
    s.http.connect_timeout_seconds = std::min(*v, s.http.connect_timeout_seconds);
  }
  return s;
}

RemoteCache::RemoteCache(RemoteSettings settings, std::string state_dir)
    : settings_(std::move(settings)), breaker_file_((fs::path(state_dir) / "remote-breaker").string()) {}

std::string RemoteCache::url(const std::string& path) const { return settings_.url + "/" + path; }

std::string RemoteCache::manifest(const std::string& key, const std::map<std::string, std::string>& files) {
  nlohmann::json j = {{"format", kCacheEntryFormat}, {"key", key}, {"files", nlohmann::json::object()}};
  for (const auto& [name, data] : files) j["files"][name] = {{"bytes", data.size()}, {"sha256", sha256_hex(data)}};
  return j.dump(2) + "\n";
}

bool RemoteCache::open(const std::string& what) const {
  std::error_code ec;
  std::string file = breaker_file_ + "." + what;
  if (!fs::is_regular_file(file, ec)) return false;
  try {
    auto j = nlohmann::json::parse(read_file(file));
    return j.value("url", "") == settings_.url && j.value("until", std::int64_t(0)) > std::time(nullptr);
  } catch (const std::exception&) {
    return false;
  }
}

void RemoteCache::trip(const std::string& what, const std::string& why) const {
  if (open(what)) return;  // another process met it first and said so
  nlohmann::json j = {{"url", settings_.url}, {"until", std::time(nullptr) + kBreakerSeconds}, {"why", why}};
  try {
    write_file_atomic(breaker_file_ + "." + what, j.dump() + "\n", Durability::kRenamed);
  } catch (const Error&) {
    // Unwritten, the next process meets the failure itself, within its bound.
  }
  std::fprintf(stderr,
               "tileperf: note: remote cache %s: %s failed (%s); not asked to %s again for %d s, "
               "the run goes on with the local cache\n",
               shown_url(settings_.url).c_str(), what.c_str(), why.c_str(), what.c_str(), kBreakerSeconds);
}

namespace {

std::string failure(const HttpResponse& r) { return r.status == 0 ? r.error : fmt::format("HTTP {}", r.status); }

}  // namespace

std::optional<std::map<std::string, std::string>> RemoteCache::fetch(const std::string& key) const {
  if (!enabled() || !is_sha256_hex(key) || open("read")) return std::nullopt;
  HttpResponse m = http_request("GET", url("ac/" + key), "", settings_.http);
  if (m.status == 404) return std::nullopt;
  if (!m.ok()) {
    trip("read", failure(m));
    return std::nullopt;
  }
  std::string refused;
  auto listed = listed_files(m.body, key, refused);
  if (!listed && !refused.empty()) return refuse(key, refused);
  if (!listed) return not_whole(key);
  std::map<std::string, std::string> files;
  for (const auto& [name, f] : *listed) {
    HttpResponse r = http_request("GET", url("cas/" + f.second), "", settings_.http);
    if (r.status == 404) return std::nullopt;  // evicted since: a miss
    if (!r.ok()) {
      trip("read", failure(r));
      return std::nullopt;
    }
    if (r.body.size() != f.first || sha256_hex(r.body) != f.second) return not_whole(key);
    files[name] = std::move(r.body);
  }
  return files;
}

std::nullopt_t RemoteCache::not_whole(const std::string& key) const {
  std::fprintf(stderr,
               "tileperf: note: remote cache %s: the entry %s is not whole (a file does not match "
               "its SHA-256, or no manifest of that key): not used\n",
               shown_url(settings_.url).c_str(), key.c_str());
  return std::nullopt;
}

std::nullopt_t RemoteCache::refuse(const std::string& key, const std::string& why) const {
  std::fprintf(stderr, "tileperf: note: remote cache %s: the entry %s is refused (%s): not used\n",
               shown_url(settings_.url).c_str(), key.c_str(), why.c_str());
  return std::nullopt;
}

void RemoteCache::store(const std::string& key, const std::map<std::string, std::string>& files) const {
  if (!enabled() || !settings_.write || !is_sha256_hex(key) || open("write") || open("read")) return;
  auto put = [&](const std::string& path, const std::string& data) {
    HttpResponse r = http_request("PUT", url(path), data, settings_.http);
    if (!r.ok()) trip("write", failure(r));
    return r.ok();
  };
  for (const auto& [name, data] : files) {
    std::string sha = sha256_hex(data);
    HttpResponse head = http_request("HEAD", url("cas/" + sha), "", settings_.http);
    if (head.ok()) continue;
    if (head.status != 404) {
      trip("write", failure(head));
      return;
    }
    if (!put("cas/" + sha, data)) return;
  }
  put("ac/" + key, manifest(key, files));  // last: a reader never finds a manifest without its files
}

}  // namespace tileperf
