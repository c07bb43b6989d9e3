// The static cost model: what one warp's issue of an instruction costs on a
// target architecture, in cycles of one SM's throughput. The whole table,
// its units and its sources are in cost_model.cpp, in one place (the model
// is described in docs/design/loops-and-cost.md).
//
// An instruction costs the larger of its issue slot (an SM issues four warp
// instructions per clock, one per scheduler: 0.25 cycles) and the cycles its
// execution unit needs for 32 lanes at the unit's published per-SM rate.
// Tensor-core instructions cost their multiply-accumulates at the
// architecture's dense rate; loads and stores their bytes at the L1/shared
// bandwidth. Latency and memory bandwidth beyond L1 are not modelled: the
// model ranks code by the work it issues, the loop metrics (loop.main.ii,
// loop.main.waits) describe its latency.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/isa.h"
#include "readers/sass.h"

namespace tileperf {

// The rates of one architecture: a row of the architecture table's
// issue_rates (tools/tileperf_dump/archs.json, whose issue_rates_source
// says where each figure comes from), read by name.
struct ArchRates {
  std::string arch;  // the table's row, e.g. "sm_90"
  // Results per clock per SM, as CUDA's arithmetic-instruction throughput
  // table gives them.
  double fp32 = 0, fp16 = 0, fp64 = 0, mufu = 0, integer = 0, bitcount = 0, convert = 0, convert64 = 0, pack = 0,
         shuffle = 0;
  double tensor_macs = 0;       // dense fp16/bf16 multiply-accumulates per clock per SM
  double fp64_tensor_macs = 0;  // DMMA multiply-accumulates per clock per SM
  double l1_bytes = 0;          // load/store bytes per clock per SM
};

// The issue_rates rows of an architecture table's text (the format of
// archs.json), in ascending architecture order; `filename` names it in a
// located error (InputError) for a missing row, field or one of the wrong
// type.
std::vector<ArchRates> parse_issue_rates(const std::string& text, const std::string& filename);

class CostModel {
 public:
  // `arch` as a listing names it ("sm_90a", "sm_120"); the nearest row of
  // the table below it when there is no exact row. `tensor_macs_hint`: the
  // multiply-accumulates of one tensor-core instruction whose opcode gives
  // no shape (tcgen05's UTC*MMA), from the tensor-core remark; 0 if unknown.
  explicit CostModel(std::string_view arch, std::int64_t tensor_macs_hint = 0);

  const ArchRates& rates() const { return *rates_; }
  double cycles(const SassInstruction& insn) const;

 private:
  double alu(double results_per_clock, double lanes) const;
  double tensor(std::string_view opcode) const;
  double memory(std::string_view opcode) const;

  const ArchRates* rates_;
  std::int64_t tensor_macs_hint_;
};

// Assumed trip count of a loop whose configuration declares none.
inline constexpr std::int64_t kAssumedTrips = 16;

}  // namespace tileperf
