// Runs an external program with a deadline, capturing stdout and stderr.
//
// The program runs in a process group of its own. Whatever it does, the call
// returns by its deadline: on timeout the whole group is killed, also when
// the program closed its pipes and hangs. Output past a cap kills it too.
// SIGINT, SIGTERM and SIGHUP received meanwhile are passed on to the group;
// once it is gone, tileperf ends with the same signal. The group's leader is a
// small process of tileperf's that runs the program and ends as it ended; if
// tileperf dies, even by SIGKILL, the kernel tells the leader
// (PR_SET_PDEATHSIG), which kills the whole group.
//
// A compiler whose output follows the addresses its process gets (a hash
// table keyed by pointers, iterated) is run with a fixed layout: address-space
// randomisation off for the program (personality(ADDR_NO_RANDOMIZE), what
// `setarch -R` does) and the stack limit the layout of its mappings follows
// set to 8 MiB. Where the platform refuses the personality call (a container
// whose seccomp filter forbids it), the program runs all the same, with
// randomisation on, and the result says why.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tileperf {

struct ProcessOptions {
  double timeout_seconds = 600;                          // positive and finite: UsageError otherwise
  std::size_t max_output_bytes = std::size_t(64) << 20;  // per stream
  std::vector<std::string> unset_env;                    // variables removed for the child
  std::map<std::string, std::string> set_env;            // variables set for the child
  std::string input_file;                                // the child's standard input ("": tileperf's own)
  std::string working_dir;                               // "": this process's
  bool clear_env = false;                                // the child's environment is set_env alone, not this process's
  bool fixed_layout = false;  // address-space randomisation off, an 8 MiB stack limit (above)
  std::string program;        // the file run ("": argv[0], looked up in PATH); argv[0] is then only its name
};

struct ProcessResult {
  int exit_code = -1;  // valid when the process exited normally
  int signal = 0;      // terminating signal, 0 if none
  bool timed_out = false;
  std::string flooded;  // "standard output" or "standard error" when past the cap
  std::size_t max_output_bytes = 0;
  std::string out;
  std::string err;
  double seconds = 0;
  // With fixed_layout: 0 when randomisation was off for the program, else
  // the errno of the refused personality call (EPERM under seccomp).
  int layout_errno = 0;
  bool ok() const { return !timed_out && flooded.empty() && signal == 0 && exit_code == 0; }
  // "exit 5", "killed by signal 11 (Segmentation fault)", "timed out after 600s",
  // "wrote more than 64 MiB to standard error"
  std::string describe() const;
};

// Throws ToolError if the program cannot be started at all, UsageError for
// a timeout that is not a positive finite number of seconds.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The seconds since `t`, by the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace tileperf
