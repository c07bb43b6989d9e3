// The GPU the launch model stands for on each architecture: one row per
// architecture of tools/tileperf_dump/archs.json, the one table of them,
// which the dump step also answers torch's device queries from. The table is
// compiled in (generated/support/arch_table_json.inc) and read by field name.
// The H200 (sm_90) row is measured: tools/gpu/calibrate.sh, whose output is
// tools/bench/h200_calibration.json (NVIDIA H200, driver 580, SM clock
// 1.98 GHz; unit.launch_model_test checks the row against it).
// Latencies in SM cycles: global load 675 (a dependent chain over 2 GiB;
// 482 from L2, where spills go that L1 cannot hold), shared 29, SHFL 30,
// MUFU 23, BAR.SYNC of 8 warps 75, a TMA (bulk) load 357 + 8.85 per KiB
// (392 for 4 KiB, 498 for 16 KiB), a TMA store 78 + 32 per KiB (206, 590).
// A warpgroup MMA's tensor-core time: 1682 MACs per cycle (dependent
// 64x128x64 and 64x64x64 steps in 309 and 157 cycles); its results are
// taken as usable when it ends: the replay of the chain that adds outside
// the MMA (its own SASS, tools/bench/h200_mma/) already takes 535 and 315
// cycles per step against 503 and 290 measured, and that of the chain
// through the accumulator 312 and 156 against 309 and 157
// (tools/bench/mma_latency.py).
// Rates: DRAM 4578 GB/s read (bulk copies; 4480 with loads), 4252 written,
// 3979 copied; L2 8717 GB/s (bulk copies, two blocks per SM: the most any
// microbenchmark reached; the shipped GEMM moves 10.2 TB/s through L2, so
// the L2 term errs high); launch 5.4 us between events; 79 ns per block an
// SM starts; cuBLAS fp16 753 TFLOP/s = 1441 MACs per clock per SM. Per
// clock per SM FFMA 113, IMAD 63, LOP3/SHF 61, MUFU 16, DFMA 63, conversions
// 32: the CUDA guide's 128, 64, 64, 16, 64, 16 (F2I; I2F on the ALU) less
// the microbenchmark loop's own instructions, so the pipes use the guide's.
// Not measured, and guesses: constant-cache and S2R latency (taken as 29
// and 20), conversions 15, any other scoreboard 20, a store's operand read
// 10, register MMA (HMMA) 32, one warp memory instruction per clock per SM
// (the microbenchmark reached 0.6, limited by its own issue).
//
// sm_100 and sm_120 are derived, not measured: SM counts, clocks, memory
// and tensor rates from the B200 and RTX PRO 6000 Blackwell datasheets,
// the bandwidths derated by the H200's measured fraction of its datasheet
// (read 0.954, write 0.886, copy 0.829 of 4.8 TB/s), tensor rates by its
// cuBLAS fraction (0.761), L2 bandwidth as the H200's bytes per SM and
// clock, latencies and launch costs the H200's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/timeline.h"

namespace tileperf {

struct ArchSpec {
  std::string arch;    // "sm_90"
  std::string part;    // the GPU whose figures these are
  std::string source;  // measured or derived, and from what
  int sms = 0;
  double clock_ghz = 0;
  double dram_read_gbs = 0, dram_write_gbs = 0, dram_copy_gbs = 0, l2_gbs = 0;
  std::int64_t registers = 0, max_threads = 0, max_blocks = 0;  // per SM
  std::int64_t shared = 0, reserved_shared = 0;                 // bytes per SM, reserved per block
  std::int64_t l1_and_shared = 0;                               // bytes of the SM's unified L1 and shared memory
  double l2_latency = 0;                                        // cycles: where spills go when L1 cannot hold them
  double launch_us = 0;                                         // an empty launch between CUDA events
  double dispatch_ns = 0;                                       // what each block costs its SM to start
  double tensor_macs = 0;    // dense fp16 MACs per clock per SM, as a large GEMM achieves them
  double lsu_per_clock = 0;  // warp memory instructions per clock per SM
  Latencies latency;
};

// The rows in ascending architecture order.
const std::vector<ArchSpec>& arch_table();

// The row for `arch` ("sm_90a" -> sm_90); the nearest row below it when
// there is none, the lowest row below every row.
const ArchSpec& arch_spec(std::string_view arch);

// The rows of an architecture table's text (the format of archs.json);
// `filename` names it in a located error (InputError) for a missing field or
// one of the wrong type.
std::vector<ArchSpec> parse_arch_table(const std::string& text, const std::string& filename);

}  // namespace tileperf
