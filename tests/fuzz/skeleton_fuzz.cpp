// The scalar evaluator on `tileirdisasm -g` output: parsed, then evaluated
// for a grid the input's length picks (4 x 3 blocks, or one of 2^31 - 1, of
// 2^20 x 2^20, of 7 x 65535 x 3) with every argument a small number, within
// a bound of operations. Its errors (a count past the bound, a stale
// declaration, blocks that differ too much) are located in the kernel's
// source, which the listing names: any InputError is a finding of the
// input, anything else a crash. Every class the blocks are given is one of
// the skeleton's, and the classes hold every block.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "model/skeleton.h"
#include "fuzz_input.h"
#include "readers/tileir.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  static const std::vector<std::int64_t> kGrids[] = {{4, 3}, {2147483647}, {1 << 20, 1 << 20}, {7, 65535, 3}};
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
    SkeletonInputs in{&stats.program, &stats, kGrids[size % 4], args, "", nullptr, std::int64_t(1) << 16};
    Skeleton s = evaluate_skeleton(in);
    std::int64_t blocks = 0;
    for (const auto& c : s.classes) blocks += c.blocks;
    if (blocks != s.blocks()) std::abort();
    for (std::int64_t b : {std::int64_t(0), std::int64_t(1), s.blocks() / 2, s.blocks() / 3, s.blocks() - 1}) {
      if (b < 0 || b >= s.blocks()) continue;
      if (s.class_of(b) < 0 || static_cast<std::size_t>(s.class_of(b)) >= s.classes.size()) std::abort();
    }
    for (int c = -1; c < static_cast<int>(s.classes.size()); ++c) s.trips(c);
  } catch (const InputError&) {
  }
  return 0;
}
