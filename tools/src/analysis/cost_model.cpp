#include "analysis/cost_model.h"

#include <algorithm>
#include <array>

namespace tileperf {

namespace {

// Per-SM rates. Sources:
// - ALU rows: CUDA C++ Programming Guide, "Arithmetic Instructions",
//   throughput of native arithmetic instructions (results per clock per
//   multiprocessor) for compute capabilities 8.0, 8.6/8.9, 9.0, 10.0, 12.0.
//   FP64 is half the FP32 rate on the data-centre parts (8.0, 9.0, 10.0)
//   and 1/64 of it on 8.6/8.9/12.0. 12.0's unified FP32/INT32 cores run
//   integer instructions at the FP32 rate (NVIDIA RTX Blackwell GPU
//   architecture whitepaper).
// - tensor_macs: dense FP16/BF16 tensor throughput with FP32 accumulation
//   per SM and clock, from the architecture whitepapers: A100 312 TFLOP/s
//   (108 SMs, 1.41 GHz) = 1024 MAC/clk/SM; H100 twice A100 per SM and
//   clock = 2048; B200 twice H100 = 4096; RTX Blackwell (RTX PRO 6000:
//   503.8 TFLOP/s, 188 SMs, 2.617 GHz) = 512, as Ada (RTX 6000 Ada).
//   GeForce parts run FP32 accumulation at half that rate.
// - fp64_tensor_macs: H100 67 TFLOP/s FP64 tensor = 128 MAC/clk/SM; A100
//   half of it; B200 about 64; no FP64 tensor cores on 8.6/8.9/12.0 (the
//   FP64 ALU rate).
// - l1_bytes: 128 bytes per clock per SM of L1/shared-memory bandwidth
//   (Volta and later tuning guides).
constexpr std::array kRates = {
    //        arch     fp32 fp16 fp64 mufu int  bitc conv c64 pack shfl tensor fp64t  l1
    ArchRates{"sm_80", 64, 256, 32, 16, 64, 16, 16, 16, 64, 32, 1024, 64, 128},
    ArchRates{"sm_86", 128, 256, 2, 16, 64, 16, 16, 2, 64, 32, 512, 2, 128},
    ArchRates{"sm_90", 128, 256, 64, 16, 64, 16, 16, 16, 64, 32, 2048, 128, 128},
    ArchRates{"sm_100", 128, 256, 64, 16, 64, 16, 16, 16, 64, 32, 4096, 64, 128},
    ArchRates{"sm_120", 128, 256, 2, 16, 128, 16, 16, 2, 64, 32, 512, 2, 128},
};

constexpr double kIssueCycles = 0.25;  // four schedulers per SM, one warp instruction each per clock
const ArchRates* rates_for(std::string_view arch) {
  int want = arch_number(arch);
  const ArchRates* best = &kRates.front();
  for (const auto& row : kRates) {
    if (arch_number(row.arch) <= want) best = &row;
  }
  return best;
}

}  // namespace

CostModel::CostModel(std::string_view arch, std::int64_t tensor_macs_hint)
    : rates_(rates_for(arch)), tensor_macs_hint_(tensor_macs_hint) {}

double CostModel::alu(double results_per_clock, double lanes) const {
  return std::max(kIssueCycles, lanes / results_per_clock);
}

double CostModel::tensor(std::string_view opcode) const {
  std::string_view base = base_opcode(opcode);
  double macs = static_cast<double>(mma_shape_macs(opcode));
  if (macs == 0) macs = static_cast<double>(tensor_macs_hint_);
  if (macs == 0) return kIssueCycles;
  // A warpgroup MMA is issued by each of the group's four warps for one
  // product: a quarter of it per warp.
  if (base.size() > 3 && base.substr(base.size() - 4) == "GMMA") macs /= 4;
  if (base == "DMMA") return std::max(kIssueCycles, macs / rates_->fp64_tensor_macs);
  double rate = rates_->tensor_macs;
  if (has_modifier(opcode, "TF32")) rate /= 2;
  // 8-bit integer and floating-point operands run at twice the 16-bit rate.
  if (base[0] == 'I' || base[0] == 'Q' || base == "UTCIMMA" || base == "UTCQMMA") rate *= 2;
  return std::max(kIssueCycles, macs / rate);
}

double CostModel::memory(std::string_view opcode) const {
  std::string_view base = base_opcode(opcode);
  // Constant-cache loads broadcast one value to the warp.
  if (base == "LDC" || base == "LDCU") return kIssueCycles;
  return std::max(kIssueCycles, kWarpLanes * access_bytes(opcode) / rates_->l1_bytes);
}

double CostModel::cycles(const SassInstruction& insn) const {
  const std::string& op = insn.opcode;
  const ArchRates& r = *rates_;
  switch (op_class(op)) {
    case OpClass::kFp32:
      return alu(r.fp32, kWarpLanes);
    case OpClass::kFp16:
      return alu(r.fp16, 2 * kWarpLanes);
    case OpClass::kFp32x2:
      return alu(r.fp32, 2 * kWarpLanes);
    case OpClass::kFp64:
      return alu(r.fp64, kWarpLanes);
    case OpClass::kMufu:
      return alu(r.mufu, kWarpLanes);
    case OpClass::kInteger:
      return alu(r.integer, kWarpLanes);
    case OpClass::kBitCount:
      return alu(r.bitcount, kWarpLanes);
    case OpClass::kConvert:
      return alu(r.convert, kWarpLanes);
    case OpClass::kConvert64:
      return alu(r.convert64, kWarpLanes);
    case OpClass::kPack:
      return alu(r.pack, kWarpLanes);
    case OpClass::kShuffle:
      return alu(r.shuffle, kWarpLanes);
    case OpClass::kTensor:
      return tensor(op);
    case OpClass::kLoad:
    case OpClass::kStore:
      return memory(op);
    case OpClass::kAsyncCopy:
    case OpClass::kBarrier:
    case OpClass::kUniform:
    case OpClass::kControl:
    case OpClass::kOther:
      return kIssueCycles;
  }
  return kIssueCycles;
}

}  // namespace tileperf
