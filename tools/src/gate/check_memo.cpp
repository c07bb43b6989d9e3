#include "gate/check_memo.h"

#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "support/error.h"
#include "support/sha256.h"
#include "support/text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

constexpr const char* kMemoFormat = "tileperf-check-memo/1";
constexpr std::size_t kMaxPolicyFiles = 4096;  // beyond that a folder is no policy folder

std::string file_digest(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return "absent";
  return sha256_hex(read_file(path));
}

// name -> digest of every regular file under `dir`, sorted by name.
nlohmann::json folder_digest(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) files.push_back(it->path().string());
    // Too many to hash for each check: a digest no later run matches.
    if (files.size() > kMaxPolicyFiles) return fmt::format("unhashed {} {}", ::getpid(), ::time(nullptr));
  }
  std::sort(files.begin(), files.end());
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : files) j[f] = file_digest(f);
  return j;
}

std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "absent";
  return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

}  // namespace

std::string memo_fingerprint(const MemoInputs& inputs) {
  nlohmann::json j = {{"format", kMemoFormat},
                      {"args", inputs.args},
                      {"tileperf", file_identity("/proc/self/exe")},
                      {"tools", nlohmann::json::object()},
                      {"files", nlohmann::json::object()},
                      {"folders", nlohmann::json::object()}};
  for (const auto& t : inputs.tools) j["tools"][t] = file_identity(t);
  for (const auto& f : inputs.files) j["files"][f] = file_digest(f);
  for (const auto& d : inputs.folders) j["folders"][d] = folder_digest(d);
  return sha256_hex(j.dump());
}

std::optional<Memo> reusable_memo(const std::string& path, const std::string& fingerprint, const std::string& metrics) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(read_file(path));
    if (j.value("format", "") != kMemoFormat || j.value("fingerprint", "") != fingerprint) return std::nullopt;
    Memo m{fingerprint, j.at("exit_code").get<int>(), j.at("output").get<std::string>(), j.at("result"),
           j.at("metrics_sha256").get<std::string>()};
    if (file_digest(metrics) != m.metrics_sha256) return std::nullopt;
    return m;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged or foreign: measured again, and rewritten
  }
}

void save_memo(const std::string& path, const Memo& memo) {
  nlohmann::json j = {{"format", kMemoFormat},       {"fingerprint", memo.fingerprint},
                      {"exit_code", memo.exit_code}, {"output", memo.output},
                      {"result", memo.result},       {"metrics_sha256", memo.metrics_sha256}};
  try {
    write_file_atomic(path, j.dump(1) + "\n", Durability::kRenamed);
  } catch (const Error&) {
    std::error_code ec;
    fs::remove(path, ec);
  }
}

}  // namespace tileperf
