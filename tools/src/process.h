// Runs an external program with a timeout, capturing stdout and stderr.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tileperf {

struct ProcessOptions {
  double timeout_seconds = 0;  // 0: no limit
  std::vector<std::string> unset_env;               // variables removed for the child
  std::map<std::string, std::string> set_env;       // variables set for the child
};

struct ProcessResult {
  int exit_code = -1;   // valid when the process exited normally
  int signal = 0;       // terminating signal, 0 if none
  bool timed_out = false;
  std::string out;
  std::string err;
  double seconds = 0;
  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
  std::string describe() const;  // "exit 5", "killed by signal 11", "timed out"
};

// Throws ToolError if the program cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace tileperf
