#include "support/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

// What the holder wrote into the lock file.
std::string holder_of(int fd) {
  char buf[512];
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string text = n > 0 ? trim(std::string_view(buf, static_cast<std::size_t>(n))) : "";
  return text.empty() ? "another process" : text;
}

void announce(int fd, const std::string& what) {
  std::string text = fmt::format("pid {}: {}\n", ::getpid(), what);
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] ssize_t n = ::pwrite(fd, text.data(), text.size(), 0);
  }
}

}  // namespace

FileLock::FileLock(const std::string& path, const std::string& what, double timeout_seconds) {
  const char* unlocked = std::getenv("TILEPERF_TEST_UNLOCKED");
  if (unlocked && std::string(unlocked) == "1") return;  // a test's switch: runs collide as they would without locks
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_file_error(path, errno, "cannot open the lock");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int err = errno;
      ::close(fd_);
      throw_file_error(path, err, "cannot lock");
    }
    if (!waited_) {
      fmt::print("tileperf: waiting for {} held by {} (another run in this build folder), up to {:.0f} s\n", path,
                 holder_of(fd_), timeout_seconds);
      std::fflush(stdout);
      waited_ = true;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      std::string holder = holder_of(fd_);
      ::close(fd_);
      throw Error(State::kIoFailure, fmt::format("{}: still held by {} after {:.0f} s", path, holder, timeout_seconds));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  announce(fd_, what);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace tileperf
