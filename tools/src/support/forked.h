// Work spread over forked processes, the way the batches run tools: a
// process per worker, up to a job count, each taking the next item when it
// is done with one. Processes rather than threads, since a tool call
// (support/process.h) forwards signals through process-wide state, and a
// crash in one item takes down one worker, not the run.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tileperf {

// A scratch folder the workers write into, removed with what it holds when
// this goes out of scope, whether the work finished or threw.
class ScratchFolder {
 public:
  explicit ScratchFolder(std::string path) : path_(std::move(path)) {}
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs work(i) for every i below n in up to `jobs` forked processes.
void run_forked(std::size_t n, int jobs, void (*work)(std::size_t, void*), void* context);

// What make(i) returned, or the message of the exception it threw.
struct ForkedText {
  std::optional<std::string> text;
  std::string error;
};

// make(i) for every i below n, in up to `jobs` forked processes (in this one
// when there is one job or one item); the texts come back through files in
// a scratch folder of the system's temporary folder. An item whose worker
// died reports that as its error.
std::vector<ForkedText> texts_forked(std::size_t n, int jobs, const std::function<std::string(std::size_t)>& make);

}  // namespace tileperf
