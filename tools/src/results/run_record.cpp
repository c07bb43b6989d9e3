#include "results/run_record.h"

#include <unistd.h>

#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace fs = std::filesystem;

namespace {

std::string run_id_problem(const std::string& id) {
  if (id.empty() || id.size() > 200) return "must have 1 to 200 characters";
  for (char c : id) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              c == '.' || c == ':';
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
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"checks", &record.checks},
                                   {"update_command", &record.update_command},
                                   {"project_dir", &record.project_dir},
                                   {"build_dir", &record.build_dir},
                                   {"work_dir", &record.work_dir},
                                   {"toolchain", &record.toolchain},
                                   {"cache_dir", &record.cache_dir}}) {
    if (!value->empty()) j[key] = *value;
  }
  if (record.timeout > 0) j["timeout"] = record.timeout;
  for (const auto& [key, value] : {std::pair<const char*, bool>{"strict", record.strict},
                                   {"require_run", record.require_run},
                                   {"measurements", record.measurements}}) {
    if (value) j[key] = true;
  }
  fs::create_directories(fs::path(path).parent_path());
  write_file_atomic(path, j.dump(2) + "\n");
}

namespace {

// The flag at `key`, false when the record has none.
bool optional_flag(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.contains(key)) return false;
  if (!j.at(key).is_boolean()) throw InputError(path, 0, fmt::format("key '{}' must be true or false", key));
  return j.at(key).get<bool>();
}

}  // namespace

std::optional<RunRecord> read_run_record(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  nlohmann::json j = parse_json(read_file(path), path);
  if (!j.is_object() || !j.contains("format") || j.at("format") != kRunFormat) {
    throw InputError(path, 0, std::string("not a ") + kRunFormat + " file");
  }
  std::string id = json_string(j, "run", path);
  if (auto problem = run_id_problem(id); !problem.empty()) throw InputError(path, 0, "key 'run' " + problem);
  RunRecord r;
  r.id = id;
  r.checks = json_optional_string(j, "checks", path);
  r.update_command = json_optional_string(j, "update_command", path);
  r.project_dir = json_optional_string(j, "project_dir", path);
  r.build_dir = json_optional_string(j, "build_dir", path);
  r.work_dir = json_optional_string(j, "work_dir", path);
  r.toolchain = json_optional_string(j, "toolchain", path);
  r.cache_dir = json_optional_string(j, "cache_dir", path);
  if (j.contains("timeout")) {
    if (!j.at("timeout").is_number() || j.at("timeout").get<double>() <= 0) {
      throw InputError(path, 0, "key 'timeout' must be a number of seconds above 0");
    }
    r.timeout = j.at("timeout").get<double>();
  }
  r.strict = optional_flag(j, "strict", path);
  r.require_run = optional_flag(j, "require_run", path);
  r.measurements = optional_flag(j, "measurements", path);
  return r;
}

std::optional<std::string> read_run_id(const std::string& path) {
  if (auto record = read_run_record(path)) return record->id;
  return std::nullopt;
}

std::optional<std::string> nearest_run_id(const std::string& file, const std::string& root) {
  fs::path top = fs::weakly_canonical(root);
  fs::path dir = fs::weakly_canonical(fs::path(file)).parent_path();
  while (true) {
    if (auto id = read_run_id(work_file(dir.string(), FileKind::kRun))) return id;
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
    if (auto record = read_run_record(work_file(at.string(), FileKind::kRun))) return record;
  }
  return std::nullopt;
}

std::string recorded_update_command(const std::vector<std::string>& results_dirs) {
  for (const auto& dir : results_dirs) {
    if (auto record = run_record_near(dir); record && !record->update_command.empty()) return record->update_command;
  }
  return "cmake --build <build-dir> --target update_baselines";
}

std::string accept_command(const std::vector<std::string>& results_dirs, const std::string& filter) {
  std::string command = recorded_update_command(results_dirs);
  for (const auto& dir : results_dirs) {
    auto record = run_record_near(dir);
    if (!record || record->build_dir.empty()) continue;
    std::error_code ec;
    fs::path here = fs::current_path(ec);
    bool at_project = !record->project_dir.empty() && !record->update_command.empty() &&
                      fs::equivalent(here, record->project_dir, ec);
    if (!at_project) {
      fs::path build = fs::weakly_canonical(record->build_dir, ec);
      fs::path rel = build.lexically_relative(fs::weakly_canonical(here, ec));
      bool below = !rel.empty() && *rel.begin() != "..";
      command = fmt::format("cmake --build {} --target update_baselines", below ? rel.string() : build.string());
    }
    break;
  }
  return filter.empty() ? command : fmt::format("TILEPERF_FILTER='{}' {}", filter, command);
}

}  // namespace tileperf
