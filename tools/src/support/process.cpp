#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "support/error.h"

extern char** environ;

namespace tileperf {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The running tool's process group, for the signal handler.
volatile sig_atomic_t g_group = 0;
volatile sig_atomic_t g_signal = 0;
const int kForwarded[] = {SIGINT, SIGTERM, SIGHUP};
constexpr auto kGrace = 2s;  // for the tool to end after a forwarded signal

// What the children report through the report pipe: exec failed (then
// nothing runs), or the layout could not be fixed (the program runs anyway).
enum Report : int { kExecFailed = 1, kLayoutRefused = 2 };
struct ReportMessage {
  int what;
  int error;
};

// The stack limit of a fixed layout: the mappings' base follows it (above
// 128 MiB, or unlimited, the kernel lays them out another way).
constexpr rlim_t kFixedStack = rlim_t(8) << 20;

std::vector<std::string> child_environment(const ProcessOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; !options.clear_env && *e; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    bool drop = options.set_env.count(name) > 0;
    for (const auto& u : options.unset_env) drop = drop || u == name;
    if (!drop) env.push_back(entry);
  }
  for (const auto& [k, v] : options.set_env) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) throw ToolError(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

void forward_signal(int sig) {
  if (g_group > 0) ::kill(-static_cast<pid_t>(g_group), sig);
  g_signal = sig;
}

// Installs the forwarding handlers for the lifetime of one tool call.
class SignalForwarding {
 public:
  explicit SignalForwarding(pid_t group) {
    g_signal = 0;
    g_group = group;
    struct sigaction sa {};
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &sa, &old_[i]);
  }
  ~SignalForwarding() {
    g_group = 0;
    for (std::size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &old_[i], nullptr);
  }
  // After the tool is gone: end tileperf the way the signal meant to.
  static void reraise() {
    if (g_signal == 0) return;
    ::signal(g_signal, SIG_DFL);
    ::raise(g_signal);
  }

 private:
  struct sigaction old_[std::size(kForwarded)]{};
};

// In the children, between fork and exec: only async-signal-safe calls.
void send_report(int report, Report what, int error) {
  ReportMessage m{what, error};
  ssize_t ignored = ::write(report, &m, sizeof m);
  (void)ignored;
}

// Address-space randomisation off for what this process executes next, and
// the stack limit of a fixed layout; a refused personality call is reported,
// not fatal.
void fix_layout(int report) {
  int current = ::personality(0xffffffff);
  if (current == -1 || ::personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) == -1) {
    send_report(report, kLayoutRefused, errno);
  }
  struct rlimit stack {};
  if (::getrlimit(RLIMIT_STACK, &stack) == 0 && (stack.rlim_max == RLIM_INFINITY || stack.rlim_max >= kFixedStack)) {
    stack.rlim_cur = kFixedStack;
    ::setrlimit(RLIMIT_STACK, &stack);
  }
}

[[noreturn]] void exec_tool(int in, int out, int err, int report, const char* program, char** argv, char** envp) {
  for (int sig : kForwarded) ::signal(sig, SIG_DFL);
  ::signal(SIGUSR1, SIG_DFL);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (in >= 0) ::dup2(in, 0);
  ::dup2(out, 1);
  ::dup2(err, 2);
  if (*program) {
    ::execve(program, argv, envp);
  } else {
    ::execvpe(argv[0], argv, envp);
  }
  send_report(report, kExecFailed, errno);
  ::_exit(127);
}

void kill_own_group(int) { ::kill(0, SIGKILL); }

// Ends as the tool ended: the same exit code, or the same signal.
[[noreturn]] void end_like(int status) {
  if (WIFSIGNALED(status)) {
    struct rlimit none {};
    ::setrlimit(RLIMIT_CORE, &none);
    ::signal(WTERMSIG(status), SIG_DFL);
    ::kill(::getpid(), WTERMSIG(status));
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

// The leader of the tool's process group: runs the tool as its child and
// ends as the tool ended. Should tileperf die, even by SIGKILL, the kernel
// sends it SIGUSR1 (PR_SET_PDEATHSIG) and it kills the whole group: the tool
// and whatever the tool started. Forwarded signals are the tool's to handle.
struct ChildSetup {
  const char* dir;
  const char* program;
  bool fixed_layout;
};

[[noreturn]] void lead_group(pid_t parent, int in, int out, int err, int report, char** argv, char** envp,
                             const ChildSetup& setup) {
  ::setpgid(0, 0);
  if (*setup.dir && ::chdir(setup.dir) != 0) {
    send_report(report, kExecFailed, errno);
    ::_exit(127);
  }
  if (setup.fixed_layout) fix_layout(report);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGUSR1, kill_own_group);
  ::prctl(PR_SET_PDEATHSIG, SIGUSR1);
  if (::getppid() != parent) kill_own_group(0);  // tileperf died before prctl
  for (int sig : kForwarded) ::signal(sig, SIG_IGN);
  pid_t tool = ::fork();
  if (tool == 0) exec_tool(in, out, err, report, setup.program, argv, envp);
  if (in >= 0) ::close(in);
  ::close(out);
  ::close(err);
  ::close(report);
  int status = 0;
  if (tool < 0) ::_exit(127);
  while (::waitpid(tool, &status, 0) < 0 && errno == EINTR) {
  }
  end_like(status);
}

// Whether the process has ended (left unreaped, so its group id stays valid).
bool has_ended(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

enum class Outcome { kExited, kTimedOut, kFlooded, kInterrupted };

// Reads one ready pipe; false when the stream went past the cap.
bool read_ready(Pipe& pipe, std::string& into, std::size_t cap) {
  char buf[65536];
  ssize_t got = ::read(pipe.fd[0], buf, sizeof buf);
  if (got > 0) {
    into.append(buf, static_cast<std::size_t>(got));
    return into.size() <= cap;
  }
  if (got == 0 || errno != EINTR) pipe.close_end(0);
  return true;
}

// Reads both pipes until the tool and its pipes are gone, the deadline
// passes, the output overflows or a signal arrives.
Outcome supervise(pid_t pid, Pipe& out, Pipe& err, Clock::time_point deadline, std::size_t cap, ProcessResult& r) {
  bool ended = false;
  while (true) {
    if (g_signal != 0) return Outcome::kInterrupted;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Outcome::kTimedOut;
    int slice = static_cast<int>(std::min<std::int64_t>(left.count() + 1, 100));
    if (out.fd[0] < 0 && err.fd[0] < 0) {
      if (ended || has_ended(pid)) return Outcome::kExited;
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(slice, 10)));
      continue;
    }
    pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    int n = ::poll(fds, 2, slice);
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (!read_ready(i == 0 ? out : err, i == 0 ? r.out : r.err, cap)) {
        r.flooded = i == 0 ? "standard output" : "standard error";
        return Outcome::kFlooded;
      }
    }
    // A tool that ended while something it started still holds its pipes:
    // end that too.
    if (!ended && has_ended(pid)) {
      ended = true;
      ::kill(-pid, SIGKILL);
    }
  }
}

// Waits for the process to end until `until`; true when it did.
bool wait_until(pid_t pid, Clock::time_point until) {
  while (!has_ended(pid)) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

void check_timeout(double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0) {
    throw UsageError(fmt::format("timeout must be a positive number of seconds, got {}", seconds));
  }
}

// Reads the children's reports until the pipe closes (the tool executed, or
// failed to); throws ToolError when it could not be run.
void read_reports(pid_t pid, int fd, const std::vector<std::string>& argv, const ProcessOptions& options,
                  ProcessResult& r) {
  ReportMessage m{};
  ssize_t got = 0;
  while ((got = ::read(fd, &m, sizeof m)) == sizeof m || (got < 0 && errno == EINTR)) {
    if (got < 0) continue;
    if (m.what == kLayoutRefused) r.layout_errno = m.error;
    if (m.what == kExecFailed) {
      ::waitpid(pid, nullptr, 0);
      const std::string& what = options.program.empty() ? argv[0] : options.program;
      std::string dir = options.working_dir.empty() ? "" : " in " + options.working_dir;
      throw ToolError(fmt::format("cannot run {}{}: {}", what, dir, std::strerror(m.error)));
    }
  }
}

// Starts the tool in a process group of its own; ToolError when it cannot
// be run at all.
pid_t start_tool(const std::vector<std::string>& argv, const ProcessOptions& options, Pipe& out, Pipe& err,
                 ProcessResult& r) {
  Pipe report;
  int in = -1;
  if (!options.input_file.empty()) {
    in = ::open(options.input_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
      throw ToolError(fmt::format("cannot run {}: {}: {}", argv[0], options.input_file, std::strerror(errno)));
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> env = child_environment(options);
  auto c_args = c_strings(args);
  auto c_env = c_strings(env);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    if (in >= 0) ::close(in);
    throw ToolError(fmt::format("cannot run {}: {}", argv[0], std::strerror(e)));
  }
  if (pid == 0) {
    lead_group(parent, in, out.fd[1], err.fd[1], report.fd[1], c_args.data(), c_env.data(),
               {options.working_dir.c_str(), options.program.c_str(), options.fixed_layout});
  }
  if (in >= 0) ::close(in);
  ::setpgid(pid, pid);
  out.close_end(1);
  err.close_end(1);
  report.close_end(1);
  read_reports(pid, report.fd[0], argv, options, r);
  return pid;
}

// Ends what is left of the tool's group and records how the tool ended.
void reap(pid_t pid, Outcome outcome, Clock::time_point start, ProcessResult& r) {
  ::kill(-pid, SIGKILL);  // nothing of the tool outlives the call
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.timed_out = outcome == Outcome::kTimedOut;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && outcome == Outcome::kExited) r.signal = WTERMSIG(status);
}

}  // namespace

std::string ProcessResult::describe() const {
  if (timed_out) return fmt::format("timed out after {:.0f}s", seconds);
  if (!flooded.empty()) return fmt::format("wrote more than {} MiB to {}", max_output_bytes >> 20, flooded);
  if (signal) return fmt::format("killed by signal {} ({})", signal, ::strsignal(signal));
  return fmt::format("exit {}", exit_code);
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  check_timeout(options.timeout_seconds);
  Pipe out, err;
  auto start = Clock::now();
  auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_seconds));
  ProcessResult r;
  pid_t pid = start_tool(argv, options, out, err, r);
  SignalForwarding forwarding(pid);
  r.max_output_bytes = options.max_output_bytes;
  Outcome outcome = supervise(pid, out, err, deadline, options.max_output_bytes, r);
  if (outcome == Outcome::kInterrupted) wait_until(pid, std::min(deadline, Clock::now() + kGrace));
  reap(pid, outcome, start, r);
  if (outcome == Outcome::kInterrupted) SignalForwarding::reraise();
  return r;
}

}  // namespace tileperf
