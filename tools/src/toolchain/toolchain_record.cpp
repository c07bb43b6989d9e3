#include "toolchain/toolchain_record.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

// Size and modification time (nanoseconds since the epoch) of the file.
ToolIdentity identity_of(const std::string& path, std::string version = "") {
  ToolIdentity id{path, std::move(version), 0, 0};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.size = static_cast<std::uintmax_t>(st.st_size);
    id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  return id;
}

// Where each tool of a Toolchain is: tileirdisasm beside tileiras, nvdisasm
// beside cuobjdump (cuobjdump --dump-sass runs it).
std::map<std::string, std::string> tool_paths(const Toolchain& tc) {
  return {{"tileiras", tc.tileiras},
          {"tileirdisasm", tc.tileirdisasm()},
          {"cuobjdump", tc.cuobjdump},
          {"nvdisasm", (fs::path(tc.cuobjdump).parent_path() / "nvdisasm").string()}};
}

nlohmann::json identity_json(const ToolIdentity& t) {
  return {{"path", t.path}, {"version", t.version}, {"size", t.size}, {"mtime_ns", t.mtime_ns}};
}

ToolIdentity identity_from_json(const nlohmann::json& j, const std::string& name, const std::string& file) {
  try {
    return {j.at("path").get<std::string>(), j.at("version").get<std::string>(), j.at("size").get<std::uintmax_t>(),
            j.at("mtime_ns").get<std::int64_t>()};
  } catch (const nlohmann::json::exception&) {
    throw InputError(file, 0, "tools." + name + ": needs path, version, size and mtime_ns");
  }
}

}  // namespace

const ToolIdentity& ToolchainRecord::tool(const std::string& name, const std::string& file) const {
  auto it = tools.find(name);
  if (it == tools.end()) throw InputError(file, 0, "the toolchain record has no " + name);
  return it->second;
}

Toolchain ToolchainRecord::toolchain(double timeout_seconds, const std::string& file) const {
  Toolchain tc;
  tc.tileiras = tool("tileiras", file).path;
  tc.cuobjdump = tool("cuobjdump", file).path;
  tc.timeout_seconds = timeout_seconds;
  tc.randomized = randomized_from_environment();
  return tc;
}

std::string ToolchainRecord::process_key(const Toolchain& tc) const {
  return !tc.randomized && compile_process == "fixed" ? "fixed" : "randomized";
}

ToolchainRecord probe_toolchain(const Toolchain& tc) {
  ToolchainRecord r;
  for (const auto& [name, path] : tool_paths(tc)) {
    if (!fs::exists(path)) {
      if (name == "nvdisasm") continue;  // recorded when present: it shapes the listing
      throw SkipError(name + " not found at '" + path + "'");
    }
    r.tools[name] = identity_of(path, tool_version(path));
  }
  r.architectures = tileiras_architectures(tc.tileiras);
  r.compile_process = probe_compile_process();
  return r;
}

ToolchainRecord probe_or_reuse(const Toolchain& tc, const std::string& path, bool& reused) {
  reused = false;
  if (fs::exists(path)) {
    ToolchainRecord old = read_toolchain_record(path);
    bool same = !old.compile_process.empty();
    for (const auto& [name, tool_path] : tool_paths(tc)) {
      auto it = old.tools.find(name);
      bool present = fs::exists(tool_path);
      if (!present && it == old.tools.end()) continue;
      same = same && it != old.tools.end() && it->second.path == tool_path &&
             identity_of(tool_path, it->second.version) == it->second;
    }
    if (same) {
      reused = true;
      return old;
    }
  }
  ToolchainRecord fresh = probe_toolchain(tc);
  fs::create_directories(fs::path(path).parent_path());
  write_file_atomic(path, to_json_text(fresh));
  return fresh;
}

std::string to_json_text(const ToolchainRecord& r) {
  nlohmann::json tools = nlohmann::json::object();
  for (const auto& [name, t] : r.tools) tools[name] = identity_json(t);
  nlohmann::json j = {{"format", kToolchainFormat},
                      {"tools", tools},
                      {"architectures", r.architectures},
                      {"compile_process", r.compile_process}};
  return j.dump(2) + "\n";
}

ToolchainRecord read_toolchain_record(const std::string& path) {
  nlohmann::json j = parse_json(read_file(path), path);
  if (!j.is_object() || j.value("format", "") != kToolchainFormat) {
    throw InputError(path, 0, std::string("not a ") + kToolchainFormat + " record");
  }
  if (!j.contains("tools") || !j.at("tools").is_object() || !j.contains("architectures") ||
      !j.at("architectures").is_array()) {
    throw InputError(path, 0, "the toolchain record needs 'tools' and 'architectures'");
  }
  ToolchainRecord r;
  for (const auto& [name, t] : j.at("tools").items()) r.tools[name] = identity_from_json(t, name, path);
  for (const auto& a : j.at("architectures")) {
    if (!a.is_string()) throw InputError(path, 0, "architectures: expected strings");
    r.architectures.push_back(a.get<std::string>());
  }
  if (j.contains("compile_process")) {
    if (!j.at("compile_process").is_string()) throw InputError(path, 0, "compile_process: expected a string");
    r.compile_process = j.at("compile_process").get<std::string>();
  }
  return r;
}

void require_unchanged(const ToolchainRecord& r, const std::string& file) {
  for (const auto& [name, t] : r.tools) {
    if (!fs::exists(t.path)) throw SkipError(name + " not found at '" + t.path + "'");
    if (!(identity_of(t.path, t.version) == t)) {
      throw ToolError(
          fmt::format("{} at {} changed on disk after the toolchain was probed into {}; "
                      "probe it again (the toolchain.probe test, or delete the record)",
                      name, t.path, file));
    }
  }
}

}  // namespace tileperf
