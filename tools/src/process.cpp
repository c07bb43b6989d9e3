#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "error.h"

extern char** environ;

namespace tileperf {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> child_environment(const ProcessOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
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
    for (int f : fd) if (f >= 0) ::close(f);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

// Reads both pipes until they close or the deadline passes.
bool drain(Pipe& out, Pipe& err, ProcessResult& r, double timeout) {
  auto start = Clock::now();
  char buf[65536];
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    int wait_ms = -1;
    if (timeout > 0) {
      double left = timeout - std::chrono::duration<double>(Clock::now() - start).count();
      if (left <= 0) return false;
      wait_ms = static_cast<int>(left * 1000) + 1;
    }
    pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
    int n = ::poll(fds, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        (i == 0 ? out : err).close_end(0);
      }
    }
  }
  return true;
}

}  // namespace

std::string ProcessResult::describe() const {
  if (timed_out) return fmt::format("timed out after {:.0f}s", seconds);
  if (signal) return fmt::format("killed by signal {} ({})", signal, ::strsignal(signal));
  return fmt::format("exit {}", exit_code);
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  Pipe out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // own group: a timeout kills it whole
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<std::string> args = argv;
  std::vector<std::string> env = child_environment(options);
  auto c_args = c_strings(args);
  auto c_env = c_strings(env);
  pid_t pid = 0;
  auto start = Clock::now();
  int rc = ::posix_spawnp(&pid, c_args[0], &actions, &attr, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw ToolError(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  out.close_end(1);
  err.close_end(1);

  ProcessResult r;
  if (!drain(out, err, r, options.timeout_seconds)) {
    r.timed_out = true;
    ::kill(-pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !r.timed_out) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace tileperf
