// tileperf batch: the compile-and-disassemble batch of every architecture
// of a list (or of one, --arch),
// run by the test compile.batch before the perf checks (see
// compile_batch.h).
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "toolchain/cache.h"
#include "cli/commands.h"
#include "metrics/compile_batch.h"
#include "toolchain/ctest_selection.h"
#include "support/error.h"
#include "support/lock.h"
#include "results/run_record.h"
#include "support/text.h"
#include "support/work_paths.h"
#include "toolchain/toolchain_record.h"

namespace tileperf {

namespace fs = std::filesystem;

int run_batch(const Args& args) {
  CLI::App app(
      "Compile and disassemble, ahead of the checks, every perf test of a batch list that "
      "the result cache lacks: tileiras in parallel, nvdisasm a few times per architecture. Each check "
      "then finds its entry in the cache; what the batch could not do is left to the check.",
      "batch");
  std::string run_file, list, toolchain_file, cache_dir, arch, build_dir, project_dir;
  double timeout = 120;
  int jobs = 0;
  app.add_option("--run-file", run_file,
                 "the record of `tileperf run-start`: what is not given here (the list in its work folder, "
                 "the toolchain record, cache, build folder, timeout) is the run's");
  app.add_option("--list", list, "the batch list the CMake API writes (compile-batch.json)");
  app.add_option("--toolchain", toolchain_file, "the toolchain record of `tileperf toolchain`");
  app.add_option("--cache-dir", cache_dir, "the result cache (TILEPERF_CACHE_DIR overrides it; off: none)");
  app.add_option("--arch", arch, "only the entries of this architecture");
  app.add_option("--build-dir", build_dir,
                 "the build folder: run by ctest, only the entries of the tests it selected are compiled");
  app.add_option("--jobs", jobs, "tileiras processes at a time (default: TILEPERF_JOBS, else the cores)");
  app.add_option("--timeout", timeout, "seconds before a tool counts as hung")->capture_default_str();
  if (parse_args(app, args)) return kExitOk;
  if (!run_file.empty()) {
    auto record = read_run_record(run_file);
    if (!record) throw InputError(run_file, 0, "no run record: run the test run.start first (ctest runs it)");
    auto fill = [](std::string& value, const std::string& recorded) {
      if (value.empty()) value = recorded;
    };
    if (list.empty() && !record->work_dir.empty()) list = work_file(record->work_dir, FileKind::kCompileBatch);
    fill(toolchain_file, record->toolchain);
    fill(cache_dir, record->cache_dir);
    fill(build_dir, record->build_dir);
    project_dir = record->project_dir;
    if (app.count("--timeout") == 0 && record->timeout > 0) timeout = record->timeout;
  }
  if (list.empty() || toolchain_file.empty()) throw UsageError("batch: give --list and --toolchain, or --run-file");
  if (jobs <= 0) jobs = default_jobs();
  ResultCache cache(cache_dir_from_environment(cache_dir == "off" ? "" : cache_dir));
  std::string what = arch.empty() ? "batch" : "batch " + arch;
  if (!cache.enabled()) {
    fmt::print("{}: the result cache is off: each check compiles on its own\n", what);
    return kExitOk;
  }
  // A second run's batch waits, then finds in the cache what the first made.
  std::string part = arch.empty() ? "all" : arch;
  std::string folder = fs::path(list).parent_path().string();
  FileLock lock(work_file(folder.empty() ? "." : folder, FileKind::kCompileBatchLock, part), "tileperf " + what,
                30 * timeout);
  auto start = std::chrono::steady_clock::now();
  // Under ctest, the tests it runs; run by hand, the whole list.
  CtestSelection selected = build_dir.empty() ? CtestSelection{} : ctest_selection(build_dir, project_dir);
  if (selected.under_ctest && !selected.tests) {
    fmt::print("{}: cannot tell which tests this ctest runs ({}): each check compiles on its own\n", what,
               selected.why_not);
    return kExitOk;
  }
  std::vector<BatchEntry> entries;
  for (auto& e : read_batch_list(list)) {
    bool chosen = !selected.tests || selected.tests->count(e.test);
    if (chosen && (arch.empty() || e.arch == arch)) entries.push_back(std::move(e));
  }
  ToolchainRecord tools = read_toolchain_record(toolchain_file);
  require_unchanged(tools, toolchain_file);
  Toolchain tc = tools.toolchain(timeout, toolchain_file);
  check_timeout(tc);
  BatchOutcome out = with_io_errors([&] { return run_compile_batch(entries, tools, tc, cache, jobs); });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "{}: {} configuration(s): {} in the cache, {} compiled by {} tileiras process(es) at a time "
      "and disassembled by {} nvdisasm process(es), {} left to their checks ({:.1f} s: cache lookups "
      "{:.1f} s, compiling {:.1f} s, disassembling {:.1f} s, storing {:.1f} s)\n",
      what, out.entries, out.cached, out.compiled, jobs, out.disassembler_calls, out.left.size(), seconds,
      out.lookup_seconds, out.compile_wall_seconds, out.disassembly_seconds, out.store_seconds);
  // Each configuration's tileiras time, for a benchmark's share of a kernel.
  nlohmann::json times(out.compile_seconds);
  write_file_atomic(work_file(folder.empty() ? "." : folder, FileKind::kCompileBatchSeconds, part),
                    times.dump(1) + "\n", Durability::kRenamed);
  for (const auto& line : out.left) fmt::print("  left to its check: {}\n", line);
  return kExitOk;
}

}  // namespace tileperf
