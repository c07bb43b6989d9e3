// tileperf dump: the command of a dump test. The dump batch of the run
// (run_dump.py --batch) checks every kernel file's stamp from one Python
// start and leaves a marker beside the stamp (dump.stamp.json.current)
// naming the run when nothing that decides the bytecode changed; then this
// ends at once. Otherwise it runs the export command it is given
// (run_dump.py --stamp ...), which decides alone.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "support/error.h"
#include "results/run_record.h"
#include "support/sha256.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

// Whether this run's dump batch found `stamp` current: its marker names the
// run of `run_file`, is newer than it, and vouches for the stamp as it is.
bool checked_by_batch(const std::string& stamp, const std::string& run_file) {
  std::string folder = fs::path(stamp).parent_path().string();
  std::string marker = kernel_file(folder.empty() ? "." : folder, FileKind::kDumpCurrent);
  std::error_code ec;
  if (!fs::is_regular_file(marker, ec) || !fs::is_regular_file(stamp, ec)) return false;
  try {
    auto run = read_run_id(run_file);
    auto j = nlohmann::json::parse(read_file(marker));
    return run && j.value("run", "") == *run && j.value("stamp_sha256", "") == sha256_hex(read_file(stamp)) &&
           fs::last_write_time(marker) >= fs::last_write_time(run_file);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

int run_dump(const Args& args) {
  CLI::App app(
      "The command of a dump test: done at once when this run's dump batch found the stamp "
      "current, else the export command after --.",
      "dump");
  std::string stamp, run_file;
  std::vector<std::string> command;
  app.add_option("--stamp", stamp, "the kernel's dump stamp")->required();
  app.add_option("--run-file", run_file, "the record of `tileperf run-start`")->required();
  app.add_option("command", command, "the export command (after --)")->required();
  if (parse_args(app, args)) return kExitOk;
  if (checked_by_batch(stamp, run_file)) {
    fmt::print(
        "dump up to date ({}): the dump batch of this run found nothing that decides the bytecode "
        "changed\n",
        stamp);
    return kExitOk;
  }
  std::fflush(stdout);
  std::vector<char*> argv;
  for (auto& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  throw ToolError(fmt::format("cannot run {}: {}", command[0], std::strerror(errno)));
}

}  // namespace tileperf
