// tileperf variance: every configuration of a build compiled N times, with
// tileiras's address-space randomisation on and off; which vary, and how
// (metrics/variance.h).
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "cli/commands.h"
#include "metrics/compile_batch.h"
#include "metrics/variance.h"
#include "results/run_record.h"
#include "support/error.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

namespace fs = std::filesystem;

int run_variance(const Args& args) {
  CLI::App app(
      "Compile every perf test of a build N times, never from the result cache, with tileiras's address-space "
      "randomisation on, off or both, and report the configurations whose cubins differ, which metrics differ "
      "and by how much. The runs are kept in --folder: the same command again goes on where it stopped, and "
      "a larger --runs adds runs.",
      "variance");
  std::string run_file, list, toolchain_file, filter, arch, randomisation = "both", folder, evidence, markdown;
  VarianceOptions o;
  double timeout = 600;
  o.jobs = 0;
  app.add_option("--run-file", run_file,
                 "the run record of the build (<build>/tileperf/run.json): its batch list and toolchain");
  app.add_option("--list", list, "the batch list the CMake API writes (compile-batch.json)");
  app.add_option("--toolchain", toolchain_file, "the toolchain record of `tileperf toolchain`");
  app.add_option("-n,--runs", o.runs, "compilations of each configuration in each mode")->capture_default_str();
  app.add_option("--randomisation", randomisation, "on, off or both")->capture_default_str();
  app.add_option("-R,--filter", filter, "only the tests whose name this regular expression finds");
  app.add_option("--arch", arch, "only the tests of this architecture");
  app.add_option("-j,--jobs", o.jobs, "compilations at a time (default: the cores)");
  app.add_option("--folder", folder, "where the runs are kept (default: <work folder>/variance)");
  app.add_option("--evidence", evidence,
                 "write a reproducer of each varying configuration into this folder: the bytecode tileiras was "
                 "given, each variant's cubin and listing, the functions that differ, a README");
  app.add_option("--markdown", markdown, "write the table of varying configurations to this file too");
  app.add_option("--timeout", timeout, "seconds before a compilation counts as hung")->capture_default_str();
  if (parse_args(app, args)) return kExitOk;
  std::string work;
  if (!run_file.empty()) {
    auto record = read_run_record(run_file);
    if (!record) throw InputError(run_file, 0, "no run record: configure and run the build's tests first");
    work = record->work_dir;
    if (list.empty() && !work.empty()) list = work_file(work, FileKind::kCompileBatch);
    if (toolchain_file.empty()) toolchain_file = record->toolchain;
  }
  if (list.empty() || toolchain_file.empty()) throw UsageError("variance: give --list and --toolchain, or --run-file");
  if (randomisation != "on" && randomisation != "off" && randomisation != "both") {
    throw UsageError("variance: --randomisation " + randomisation + ": expected on, off or both");
  }
  o.randomized = randomisation != "off";
  o.fixed = randomisation != "on";
  if (o.jobs <= 0) o.jobs = std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  o.folder = folder.empty()
                 ? (fs::path(work.empty() ? fs::path(list).parent_path() : fs::path(work)) / "variance").string()
                 : folder;
  o.evidence = evidence;
  std::regex pattern;
  try {
    pattern = std::regex(filter.empty() ? std::string(".") : filter);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("variance: --filter {}: {}", filter, e.what()));
  }
  std::vector<BatchEntry> entries;
  for (auto& e : read_batch_list(list)) {
    if (std::regex_search(e.test, pattern) && (arch.empty() || e.arch == arch)) entries.push_back(std::move(e));
  }
  ToolchainRecord tools = read_toolchain_record(toolchain_file);
  require_unchanged(tools, toolchain_file);
  Toolchain tc = tools.toolchain(timeout, toolchain_file);
  if (tools.compile_process != "fixed" && o.fixed) {
    fmt::print(
        "variance: note: this platform does not let tileiras's randomisation be turned off ({}): "
        "the runs 'with it off' run with it on\n",
        compile_process_text(tools.compile_process));
  }
  VarianceReport r = with_io_errors([&] { return measure_variance(entries, tools, tc, o); });
  std::string command = "tileperf variance";
  for (const auto& a : args) command += " " + a;
  std::string table = variance_markdown(r, o, command);
  write_file_atomic((fs::path(o.folder) / "variance.md").string(), table, Durability::kRenamed);
  write_file_atomic((fs::path(o.folder) / "variance.json").string(), variance_json(r), Durability::kRenamed);
  if (!markdown.empty()) write_file_atomic(markdown, table);
  for (const auto& c : r.configurations) {
    if (!c.varies() && c.errors.empty()) continue;
    fmt::print("{}: {} variant(s){}\n", c.test, c.variants.size(),
               c.varies_fixed() ? ", also with the randomisation off" : "");
    for (const auto& v : c.variants) {
      fmt::print("  {}: {} of {} run(s) with the randomisation on, {} of {} with it off\n", v.sha256.substr(0, 16),
                 v.randomized, c.randomized_runs, v.fixed, c.fixed_runs);
    }
    for (const auto& m : differing_metrics(c, 8)) fmt::print("  {}\n", m);
    for (const auto& e : c.errors) fmt::print("  error: {}\n", e);
  }
  std::size_t varying = 0, varying_fixed = 0;
  for (const auto& c : r.configurations) varying += c.varies(), varying_fixed += c.varies_fixed();
  fmt::print(
      "variance: {} configuration(s), {} compilation(s) made now, {} found in {}; {} vary, {} with the "
      "randomisation off{}\n",
      r.configurations.size(), r.compiled, r.reused, o.folder, varying, varying_fixed,
      o.evidence.empty() ? "" : "; reproducers in " + o.evidence);
  return kExitOk;
}

}  // namespace tileperf
