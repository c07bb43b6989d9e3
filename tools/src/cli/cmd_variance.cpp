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

namespace {

// The command's arguments, as given.
struct VarianceArgs {
  std::string run_file, list, toolchain_file, filter, arch, randomisation = "both", folder, evidence, markdown;
  double timeout = 600;
  VarianceOptions o;
};

void add_variance_options(CLI::App& app, VarianceArgs& a) {
  app.add_option("--run-file", a.run_file,
                 "the run record of the build (<build>/tileperf/run.json): its batch list and toolchain");
  app.add_option("--list", a.list, "the batch list the CMake API writes (compile-batch.json)");
  app.add_option("--toolchain", a.toolchain_file, "the toolchain record of `tileperf toolchain`");
  app.add_option("-n,--runs", a.o.runs, "compilations of each configuration in each mode")->capture_default_str();
  app.add_option("--randomisation", a.randomisation, "on, off or both")->capture_default_str();
  app.add_option("-R,--filter", a.filter, "only the tests whose name this regular expression finds");
  app.add_option("--arch", a.arch, "only the tests of this architecture");
  app.add_option("-j,--jobs", a.o.jobs, "compilations at a time (default: the cores)");
  app.add_option("--folder", a.folder, "where the runs are kept (default: <work folder>/variance)");
  app.add_option("--evidence", a.evidence,
                 "write a reproducer of each varying configuration into this folder: the bytecode tileiras was "
                 "given, each variant's cubin and listing, the functions that differ, a README");
  app.add_option("--markdown", a.markdown, "write the table of varying configurations to this file too");
  app.add_option("--timeout", a.timeout, "seconds before a compilation counts as hung")->capture_default_str();
}

// The batch list and toolchain record (from the run record when given), the
// modes, the jobs and the folder; UsageError for what does not fit.
void resolve_inputs(VarianceArgs& a) {
  std::string work;
  if (!a.run_file.empty()) {
    auto record = read_run_record(a.run_file);
    if (!record) throw InputError(a.run_file, 0, "no run record: configure and run the build's tests first");
    work = record->work_dir;
    if (a.list.empty() && !work.empty()) a.list = work_file(work, FileKind::kCompileBatch);
    if (a.toolchain_file.empty()) a.toolchain_file = record->toolchain;
  }
  if (a.list.empty() || a.toolchain_file.empty()) {
    throw UsageError("variance: give --list and --toolchain, or --run-file");
  }
  if (a.randomisation != "on" && a.randomisation != "off" && a.randomisation != "both") {
    throw UsageError("variance: --randomisation " + a.randomisation + ": expected on, off or both");
  }
  a.o.randomized = a.randomisation != "off";
  a.o.fixed = a.randomisation != "on";
  if (a.o.jobs <= 0) a.o.jobs = std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  a.o.folder = a.folder.empty()
                   ? (fs::path(work.empty() ? fs::path(a.list).parent_path() : fs::path(work)) / "variance").string()
                   : a.folder;
  a.o.evidence = a.evidence;
}

// The batch list's tests that --filter and --arch select.
std::vector<BatchEntry> selected_entries(const VarianceArgs& a) {
  std::regex pattern;
  try {
    pattern = std::regex(a.filter.empty() ? std::string(".") : a.filter);
  } catch (const std::regex_error& e) {
    throw UsageError(fmt::format("variance: --filter {}: {}", a.filter, e.what()));
  }
  std::vector<BatchEntry> entries;
  for (auto& e : read_batch_list(a.list)) {
    if (std::regex_search(e.test, pattern) && (a.arch.empty() || e.arch == a.arch)) entries.push_back(std::move(e));
  }
  return entries;
}

// Each configuration that varies or failed, its variants and the metrics
// that differ, then the counts.
void print_variance(const VarianceReport& r, const VarianceOptions& o) {
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
}

}  // namespace

int run_variance(const Args& args) {
  CLI::App app(
      "Compile every perf test of a build N times, never from the result cache, with tileiras's address-space "
      "randomisation on, off or both, and report the configurations whose cubins differ, which metrics differ "
      "and by how much. The runs are kept in --folder: the same command again goes on where it stopped, and "
      "a larger --runs adds runs.",
      "variance");
  VarianceArgs a;
  a.o.jobs = 0;
  add_variance_options(app, a);
  if (parse_args(app, args)) return kExitOk;
  resolve_inputs(a);
  std::vector<BatchEntry> entries = selected_entries(a);
  ToolchainRecord tools = read_toolchain_record(a.toolchain_file);
  require_unchanged(tools, a.toolchain_file);
  Toolchain tc = tools.toolchain(a.timeout, a.toolchain_file);
  // A record written by a tileperf that did not probe the compiler's
  // process: probed here, as the runs are made here.
  if (tools.compile_process.empty()) tools.compile_process = probe_compile_process();
  if (tools.compile_process != "fixed" && a.o.fixed) {
    fmt::print(
        "variance: note: this platform does not let tileiras's randomisation be turned off ({}): "
        "the runs 'with it off' run with it on\n",
        compile_process_text(tools.compile_process));
  }
  VarianceReport r = with_io_errors([&] { return measure_variance(entries, tools, tc, a.o); });
  std::string command = "tileperf variance";
  for (const auto& arg : args) command += " " + arg;
  std::string table = variance_markdown(r, a.o, command);
  write_file_atomic((fs::path(a.o.folder) / "variance.md").string(), table, Durability::kRenamed);
  write_file_atomic((fs::path(a.o.folder) / "variance.json").string(), variance_json(r), Durability::kRenamed);
  if (!a.markdown.empty()) write_file_atomic(a.markdown, table);
  print_variance(r, a.o);
  return kExitOk;
}

}  // namespace tileperf
