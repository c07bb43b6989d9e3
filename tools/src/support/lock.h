// Runs that share a build folder (an IDE's test panel and a terminal, two
// shells) take turns on what they cannot share: an exclusive lock on a file
// (flock, so that the kernel releases it when its holder dies, even by
// SIGKILL). A process that finds it held says once who holds it (the
// holder writes its pid and what it does into the file) and waits, up to a
// bound, then fails naming the holder. For tests only, TILEPERF_TEST_UNLOCKED=1
// in the environment takes no lock at all, so that a test can show what the
// locks guard against (consumer.unlocked); never set it in a real run.
#pragma once

#include <string>

namespace tileperf {

class FileLock {
 public:
  // Takes the lock on `path` (created if missing) for `what` (shown to
  // whoever waits); waits up to `timeout_seconds`. Throws IoError when the
  // file cannot be opened, Error (exit 10) when the wait runs out.
  FileLock(const std::string& path, const std::string& what, double timeout_seconds);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool waited() const { return waited_; }

 private:
  int fd_ = -1;
  bool waited_ = false;
};

}  // namespace tileperf
