#include "results/run_record.h"

#include <unistd.h>

#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"

namespace tileperf {

namespace fs = std::filesystem;

namespace {

std::string run_id_problem(const std::string& id) {
  if (id.empty() || id.size() > 200) return "must have 1 to 200 characters";
  for (char c : id) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '_' || c == '.' || c == ':';
    if (!ok) return "may hold only letters, digits and - _ . :";
  }
  return "";
}

// The current UTC time, as strftime's `format` writes it.
std::string utc_now(const char* format) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

}  // namespace

std::string new_run_id() {
  if (const char* env = std::getenv("TILEPERF_RUN_ID"); env && *env) {
    std::string id = env;
    if (auto problem = run_id_problem(id); !problem.empty()) {
      throw UsageError("TILEPERF_RUN_ID '" + id + "' " + problem);
    }
    return id;
  }
  std::random_device rd;
  return fmt::format("{}-{}-{:04x}", utc_now("%Y%m%dT%H%M%SZ"), getpid(), rd() & 0xffff);
}

void write_run_record(const std::string& path, const RunRecord& record) {
  nlohmann::json j = {{"format", kRunFormat}, {"run", record.id}, {"started", utc_now("%Y-%m-%dT%H:%M:%SZ")}};
  if (!record.checks.empty()) j["checks"] = record.checks;
  if (!record.update_command.empty()) j["update_command"] = record.update_command;
  fs::create_directories(fs::path(path).parent_path());
  write_file_atomic(path, j.dump(2) + "\n");
}

namespace {

// The string at `key`, "" when the record has none.
std::string optional_string(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.contains(key)) return "";
  if (!j.at(key).is_string()) throw InputError(path, 0, fmt::format("key '{}' must be a string", key));
  return j.at(key).get<std::string>();
}

}  // namespace

std::optional<RunRecord> read_run_record(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  nlohmann::json j = parse_json(read_file(path), path);
  if (!j.is_object() || !j.contains("format") || j.at("format") != kRunFormat) {
    throw InputError(path, 0, std::string("not a ") + kRunFormat + " file");
  }
  if (!j.contains("run") || !j.at("run").is_string()) throw InputError(path, 0, "key 'run' must be a string");
  std::string id = j.at("run").get<std::string>();
  if (auto problem = run_id_problem(id); !problem.empty()) throw InputError(path, 0, "key 'run' " + problem);
  return RunRecord{id, optional_string(j, "checks", path), optional_string(j, "update_command", path)};
}

std::optional<std::string> read_run_id(const std::string& path) {
  if (auto record = read_run_record(path)) return record->id;
  return std::nullopt;
}

std::optional<std::string> nearest_run_id(const std::string& file, const std::string& root) {
  fs::path top = fs::weakly_canonical(root);
  fs::path dir = fs::weakly_canonical(fs::path(file)).parent_path();
  while (true) {
    if (auto id = read_run_id((dir / kRunFileName).string())) return id;
    if (dir == top || !dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    auto rel = dir.lexically_relative(top);
    if (rel.empty() || *rel.begin() == "..") return std::nullopt;
    dir = dir.parent_path();
  }
}

std::optional<RunRecord> run_record_near(const std::string& results_dir) {
  fs::path dir = fs::absolute(results_dir).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "build/tileperf/"
  for (const fs::path& at : {dir, dir / "tileperf", dir.parent_path()}) {
    if (auto record = read_run_record((at / kRunFileName).string())) return record;
  }
  return std::nullopt;
}

std::string recorded_update_command(const std::vector<std::string>& results_dirs) {
  for (const auto& dir : results_dirs) {
    if (auto record = run_record_near(dir); record && !record->update_command.empty()) return record->update_command;
  }
  return "cmake --build <build-dir> --target update_baselines";
}

}  // namespace tileperf
