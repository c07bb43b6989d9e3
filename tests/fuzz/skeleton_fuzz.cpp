// The scalar evaluator on `tileirdisasm -g` output: parsed, then evaluated
// for a grid of 4 x 3 blocks with every argument a small number, within a
// bound of operations. Its errors (a count past the bound, a stale
// declaration) are located in the kernel's source, which the listing names:
// any InputError is a finding of the input, anything else a crash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "analysis/skeleton.h"
#include "fuzz_input.h"
#include "readers/tileir.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    TileIrStats stats = parse_tileir(text, fuzz::kInputName);
    std::vector<LaunchArgument> args;
    for (std::size_t k = 0; k < stats.program.body.arguments.size(); ++k) {
      LaunchArgument a;
      a.known = true;
      a.integer = static_cast<std::int64_t>(k % 7) * (k % 2 ? -1 : 1) + 3;
      args.push_back(a);
    }
    SkeletonInputs in{&stats.program, &stats, {4, 3}, args, "", nullptr, std::int64_t(1) << 16};
    Skeleton s = evaluate_skeleton(in);
    for (std::int64_t b = 0; b < s.blocks(); ++b) {
      if (s.class_of(b) < 0 || static_cast<std::size_t>(s.class_of(b)) >= s.classes.size()) std::abort();
    }
    for (int c = -1; c < static_cast<int>(s.classes.size()); ++c) s.trips(c);
  } catch (const InputError&) {
  }
  return 0;
}
