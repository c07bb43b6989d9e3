#include "support/forked.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>

#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace fs = std::filesystem;

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void run_forked(std::size_t n, int jobs, void (*work)(std::size_t, void*), void* context) {
  void* shared =
      ::mmap(nullptr, sizeof(std::atomic<std::size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw Error(State::kError, "cannot map the batch's job counter");
  auto* next = new (shared) std::atomic<std::size_t>(0);
  std::fflush(nullptr);
  std::vector<pid_t> children;
  for (int j = 0; j < std::max(1, jobs) && static_cast<std::size_t>(j) < n; ++j) {
    pid_t pid = ::fork();
    if (pid == 0) {
      for (std::size_t i = next->fetch_add(1); i < n; i = next->fetch_add(1)) work(i, context);
      std::fflush(nullptr);
      ::_exit(0);
    }
    if (pid > 0) children.push_back(pid);
  }
  if (children.empty()) {  // no process could be started: the work is done here
    for (std::size_t i = next->fetch_add(1); i < n; i = next->fetch_add(1)) work(i, context);
  }
  for (pid_t pid : children) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::munmap(shared, sizeof(std::atomic<std::size_t>));
}

namespace {

ForkedText make_one(const std::function<std::string(std::size_t)>& make, std::size_t i) {
  try {
    return {make(i), ""};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

struct TextContext {
  const std::function<std::string(std::size_t)>* make;
  std::string dir;
};

// In a worker: item i's text into <dir>/<i>, or its error into <dir>/<i>.error.
void text_job(std::size_t i, void* context) {
  const auto& c = *static_cast<TextContext*>(context);
  ForkedText got = make_one(*c.make, i);
  std::string file = (fs::path(c.dir) / std::to_string(i)).string();
  try {
    if (got.text) {
      write_file_atomic(file, *got.text, Durability::kRenamed);
    } else {
      write_file_atomic(file + ".error", got.error, Durability::kRenamed);
    }
  } catch (const std::exception&) {
    // The parent finds neither file and says so.
  }
}

}  // namespace

std::vector<ForkedText> texts_forked(std::size_t n, int jobs, const std::function<std::string(std::size_t)>& make) {
  std::vector<ForkedText> out(n);
  if (jobs <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) out[i] = make_one(make, i);
    return out;
  }
  std::string pattern = (fs::temp_directory_path() / "tileperf-forked.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw IoError(pattern, errno, "cannot create");
  ScratchFolder scratch(pattern);
  TextContext context{&make, scratch.path()};
  run_forked(n, jobs, text_job, &context);
  for (std::size_t i = 0; i < n; ++i) {
    fs::path file = fs::path(scratch.path()) / std::to_string(i);
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) {
      out[i].text = read_file(file.string());
    } else if (fs::is_regular_file(file.string() + ".error", ec)) {
      out[i].error = read_file(file.string() + ".error");
    } else {
      out[i].error = "its worker process ended without a result";
    }
  }
  return out;
}

}  // namespace tileperf
