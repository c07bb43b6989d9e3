// The block schedule over the SMs on grids and classes the input gives:
// the SMs, resident blocks, the launch's blocks (simulated, or past
// kMaxSimulatedBlocks the closed form per class with the tail simulated),
// up to 16 classes with their latency and work, and their order in
// dispatch: a pattern of classes, each repeated `run` times, over and over.
// The schedule must end, with finite figures in range.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "model/block_schedule.h"

namespace {

struct Reader {
  const std::uint8_t* data;
  std::size_t size, at = 0;
  std::uint64_t next(int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | (at < size ? data[at++] : 0);
    return v;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  Reader r{data, size};
  int sms = 1 + static_cast<int>(r.next(1));  // 1 to 256
  std::int64_t resident = 1 + static_cast<std::int64_t>(r.next(1) % 64);
  bool large = r.next(1) & 1;
  std::int64_t blocks = large ? kMaxSimulatedBlocks + 1 + static_cast<std::int64_t>(r.next(5) % (std::int64_t(1) << 40))
                              : 1 + static_cast<std::int64_t>(r.next(2) % 16384);
  std::size_t count = 1 + r.next(1) % 16;
  std::vector<BlockWork> classes(count);
  for (auto& c : classes) {
    c.latency = static_cast<double>(r.next(3));
    c.work = static_cast<double>(r.next(3)) / 16;
  }
  std::int64_t run = 1 + static_cast<std::int64_t>(r.next(3));
  std::vector<int> pattern(1 + r.next(1) % 32);
  for (auto& p : pattern) p = static_cast<int>(r.next(1) % count);
  auto class_of = [&](std::int64_t b) {
    return pattern[static_cast<std::size_t>((b / run) % static_cast<std::int64_t>(pattern.size()))];
  };
  // Each class's blocks, in closed form over the repeats of the pattern.
  std::int64_t period = run * static_cast<std::int64_t>(pattern.size());
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    std::int64_t rest = blocks % period - static_cast<std::int64_t>(i) * run;
    classes[static_cast<std::size_t>(pattern[i])].blocks +=
        blocks / period * run + std::min(run, std::max<std::int64_t>(0, rest));
  }
  BlockSchedule s = schedule_blocks(sms, resident, blocks, class_of, classes, large ? 0 : 8);
  if (!std::isfinite(s.cycles) || s.cycles < 0 || !(s.idle >= 0 && s.idle <= 1) || s.waves < 1 ||
      !std::isfinite(s.mean) || !std::isfinite(s.slowest)) {
    std::abort();
  }
  return 0;
}
