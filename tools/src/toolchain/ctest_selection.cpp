#include "toolchain/ctest_selection.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

// Options of ctest that take a value and do not select tests.
bool takes_value_but_selects_nothing(const std::string& a) {
  static const char* const kOptions[] = {"-j",
                                         "--parallel",
                                         "-T",
                                         "-D",
                                         "-M",
                                         "--test-action",
                                         "--dashboard",
                                         "--test-dir",
                                         "--output-junit",
                                         "--output-log",
                                         "-O",
                                         "--timeout",
                                         "--stop-time",
                                         "--repeat",
                                         "--test-load",
                                         "--resource-spec-file",
                                         "--test-output-size-passed",
                                         "--test-output-size-failed",
                                         "--test-output-truncation",
                                         "--max-width"};
  for (const char* o : kOptions) {
    if (a == o) return true;
  }
  return false;
}

// The command line of process `pid`, split at its NULs.
std::vector<std::string> command_line(pid_t pid) {
  std::string raw;
  try {
    raw = read_file("/proc/" + std::to_string(pid) + "/cmdline");
  } catch (const std::exception&) {
    return {};
  }
  std::vector<std::string> argv;
  for (std::size_t begin = 0; begin < raw.size();) {
    std::size_t end = raw.find('\0', begin);
    if (end == std::string::npos) end = raw.size();
    argv.push_back(raw.substr(begin, end - begin));
    begin = end + 1;
  }
  return argv;
}

}  // namespace

std::vector<std::string> show_only_arguments(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (takes_value_but_selects_nothing(a)) {
      ++i;
      continue;
    }
    bool joined_value = (a.rfind("-j", 0) == 0 && a.size() > 2) || a.rfind("--parallel=", 0) == 0 ||
                        a.rfind("--output-junit=", 0) == 0 || a.rfind("--show-only", 0) == 0 ||
                        a.rfind("--test-dir=", 0) == 0;
    if (!joined_value && a != "-N" && a != "-V" && a != "-VV" && a != "--output-on-failure" && a != "-Q") {
      out.push_back(a);
    }
  }
  out.push_back("--show-only=json-v1");
  return out;
}

CtestSelection ctest_selection(const std::string& build_dir, const std::string& project_dir) {
  CtestSelection s;
  pid_t parent = ::getppid();
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/" + std::to_string(parent) + "/exe", ec);
  if (ec || exe.filename() != "ctest") return s;
  s.under_ctest = true;
  fs::path cwd = fs::absolute(build_dir, ec);
  std::vector<std::string> argv = command_line(parent);
  if (ec || argv.empty()) {
    s.why_not = "its command line or folder cannot be read";
    return s;
  }
  std::vector<std::string> show = {exe.string()};
  for (auto& a : show_only_arguments(argv)) show.push_back(a);
  // The selection is listed in the build folder (ctest's own folder changes
  // as it reads the tests' files); a preset is found from the project's
  // folder, which the run record names.
  ProcessOptions options;
  options.timeout_seconds = 60;
  options.working_dir = cwd.string();
  bool preset = std::any_of(argv.begin(), argv.end(), [](const std::string& a) { return a.rfind("--preset", 0) == 0; });
  if (preset && !project_dir.empty()) options.working_dir = project_dir;
  try {
    auto r = run_process(show, options);
    if (!r.ok()) {
      s.why_not =
          fmt::format("{} --show-only=json-v1: {}: {}", exe.string(), r.describe(), trim(r.err + r.out).substr(0, 300));
      return s;
    }
    std::set<std::string> names;
    nlohmann::json listed = nlohmann::json::parse(r.out);
    for (const auto& t : listed.at("tests")) names.insert(t.at("name").get<std::string>());
    s.tests = std::move(names);
  } catch (const std::exception& e) {
    s.tests.reset();
    s.why_not = e.what();
  }
  return s;
}

}  // namespace tileperf
