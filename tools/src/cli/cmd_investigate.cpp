// tileperf investigate: from a (red) test to what to try, without a GPU:
// the configuration's what-if variants (inspect/investigation.h), ranked by
// the launch estimate, with what each kind of experiment says.
#include <CLI/CLI.hpp>

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "inspect/investigation.h"
#include "report/investigation_text.h"
#include "results/run_record.h"
#include "support/error.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace fs = std::filesystem;

namespace {

struct Chosen {
  std::string test, kernel, config, arch;
};

// The tests a name stands for: perf.<kernel>.<config>.<arch> itself,
// perf.<kernel>.<config> on every architecture, perf.<kernel> or <kernel>
// every configuration on every architecture; UsageError naming what the
// kernel's record lists when none matches.
std::vector<Chosen> chosen_tests(const std::string& name, const std::string& work_dir) {
  std::string bare = name.rfind("perf.", 0) == 0 ? name.substr(5) : name;
  auto parts = split(bare, '.');
  if (parts.empty() || parts.size() > 3 || parts[0].empty()) {
    throw UsageError(
        fmt::format("{}: expected perf.<kernel>.<config>.<arch>, perf.<kernel>.<config> or <kernel>", name));
  }
  std::string record_file = kernel_file((fs::path(work_dir) / parts[0]).string(), FileKind::kConfigs);
  if (!fs::exists(record_file)) {
    throw UsageError(fmt::format("{}: no kernel {} in this build ({} is missing)", name, parts[0], record_file));
  }
  nlohmann::json record = parse_json(read_file(record_file), record_file);
  std::vector<Chosen> out;
  std::vector<std::string> known;
  for (const auto& t : record.value("tests", nlohmann::json::array())) {
    Chosen c{json_string(t, "test", record_file), parts[0], json_string(t, "config", record_file),
             json_string(t, "arch", record_file)};
    known.push_back(c.test);
    if ((parts.size() < 2 || parts[1] == c.config) && (parts.size() < 3 || parts[2] == c.arch)) out.push_back(c);
  }
  if (out.empty()) {
    throw UsageError(fmt::format("{}: no such test; {} registers: {}", name, parts[0], fmt::join(known, " ")));
  }
  return out;
}

}  // namespace

int run_investigate(const Args& args) {
  CLI::App app(
      "Investigate tests without a GPU: export what-if variants of each configuration (each costly operation "
      "isolated, exp as exp2, token order off, other hints, tile sizes halved and doubled), compile them for the "
      "test's architecture and rank them by the launch estimate. No file of the project is edited.",
      "investigate");
  std::vector<std::string> names;
  std::string build_dir = "build", kinds, json_file;
  int jobs = 0;
  bool json_out = false;
  app.add_option("tests", names, "perf.<kernel>.<config>.<arch>, perf.<kernel>.<config> or a kernel's name")
      ->required();
  app.add_option("--build-dir", build_dir, "the build folder whose run to investigate")->capture_default_str();
  app.add_option("--kinds", kinds,
                 "the variant kinds, comma-separated (isolate,exp2,token_order,hint,tune; default all)");
  app.add_option("--jobs", jobs, "tileiras processes at a time (default: TILEPERF_JOBS, else the cores)");
  app.add_flag("--json", json_out, "print the investigations as JSON (format tileperf-investigation/1)");
  if (parse_args(app, args)) return kExitOk;
  auto record = run_record_near(build_dir);
  if (!record || record->work_dir.empty()) {
    throw UsageError(fmt::format("{}: no run record: configure and run the tests once (ctest) first", build_dir));
  }
  if (jobs <= 0) jobs = default_jobs();
  std::vector<Chosen> tests;
  for (const auto& n : names) {
    auto more = chosen_tests(n, record->work_dir);
    tests.insert(tests.end(), more.begin(), more.end());
  }
  nlohmann::json all = nlohmann::json::array();
  for (const auto& t : tests) {
    InvestigationInputs in;
    in.test = t.test;
    in.kernel = t.kernel;
    in.config = t.config;
    in.arch = t.arch;
    in.work_dir = record->work_dir;
    in.kernel_record = kernel_file((fs::path(record->work_dir) / t.kernel).string(), FileKind::kConfigs);
    in.toolchain_file = record->toolchain;
    in.cache_dir = record->cache_dir;
    if (record->timeout > 0) in.timeout = record->timeout;
    in.jobs = jobs;
    in.kinds = kinds;
    nlohmann::json j = investigation_json(investigate(in));
    std::string file =
        kernel_file((fs::path(record->work_dir) / t.kernel).string(), FileKind::kInvestigation, t.config, t.arch);
    with_io_errors([&] { write_file_atomic(file, j.dump(1) + "\n", Durability::kRenamed); });
    if (json_out) {
      all.push_back(std::move(j));
    } else {
      fmt::print("{}\n", investigation_text(j));
    }
  }
  if (json_out) fmt::print("{}\n", tests.size() == 1 ? all[0].dump(1) : all.dump(1));
  return kExitOk;
}

}  // namespace tileperf
