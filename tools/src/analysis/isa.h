// What a SASS instruction does, as far as the loop analysis and the cost
// model need to know: how it changes control flow, and which class of
// hardware unit executes it. Classes are decided from the opcode and its
// modifiers only; the tables are in isa.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "readers/sass.h"

namespace tileperf {

enum class Flow {
  kNone,      // falls through to the next instruction
  kBranch,    // BRA, JMP: to a known target, or also falls through when predicated
  kIndirect,  // BRX, JMX: target in a register, unknown statically
  kCall,      // CALL: runs a subroutine, then falls through
  kReturn,    // RET: leaves the subroutine
  kExit,      // EXIT, KILL: ends the thread (falls through when predicated)
};

enum class OpClass {
  kFp32,       // FADD, FMUL, FFMA, FMNMX, FSETP, ...
  kFp16,       // HADD2, HMUL2, HFMA2, ... (two fp16 values per register)
  kFp32x2,     // FADD2, FMUL2, FFMA2: two fp32 operations per lane
  kFp64,       // DADD, DMUL, DFMA, DSETP, ...
  kMufu,       // MUFU.*: special function unit
  kInteger,    // IADD3, IMAD, LOP3, SHF, ISETP, MOV, SEL, PRMT, ...
  kBitCount,   // POPC, FLO, BREV: quarter-rate integer
  kConvert,    // F2F, F2I, I2F, FRND: type conversions
  kConvert64,  // a conversion from or to a 64-bit type
  kPack,       // F2FP, I2FP: packing conversions on the full-rate path
  kShuffle,    // SHFL
  kTensor,     // HMMA, HGMMA, IMMA, DMMA, UTC*MMA, ...: tensor cores
  kLoad,       // LDG, LDS, LD, LDL, LDSM, LDC, ATOM, ...
  kStore,      // STG, STS, ST, STL, STSM, RED
  kAsyncCopy,  // UTMALDG, UTMASTG, UBLKCP, LDGSTS, ...: copies the hardware runs by itself
  kBarrier,    // BAR, SYNCS, MEMBAR, FENCE, DEPBAR, ...
  kUniform,    // U*: the uniform datapath (one value per warp)
  kControl,    // branches, calls, EXIT, BSSY/BSYNC, NOP, S2R, ...
  kOther,      // an opcode the tables do not know: costed as one issue slot
};

const char* op_class_name(OpClass c);

// The opcode without modifiers: "HGMMA.64x128x16.F32" -> "HGMMA".
std::string_view base_opcode(std::string_view opcode);

// Whether `opcode` carries `modifier` as one of its dot-separated parts
// (has_modifier("HMMA.16816.F32", "F32")).
bool has_modifier(std::string_view opcode, std::string_view modifier);

OpClass op_class(std::string_view opcode);
Flow flow(const SassInstruction& insn);

// The target address of a BRA/JMP/CALL (the last operand, "0x1a0"), if known.
std::optional<std::uint64_t> branch_target(const SassInstruction& insn);

// The predicate never lets the instruction run (@!PT) / always does (none, @PT).
bool never_executes(const SassInstruction& insn);
bool always_executes(const SassInstruction& insn);

// A branch taken on a condition: a guard predicate (@P0 BRA) or a
// predicate operand before the target (BRA.U !UP0, 0x1d0; @P0 BRA P1, 0x80).
bool conditional(const SassInstruction& insn);

// A barrier-wait poll: SYNCS.PHASECHK*, NANOSLEEP, YIELD, or a register
// allocation try. Loops made of
// polls and bookkeeping only are the retry loops of a barrier wait.
bool is_poll(std::string_view opcode);
// A register-allocation try (USETMAXREG.TRY_ALLOC), polled until it succeeds:
// also a poll.
bool is_allocation_try(std::string_view opcode);

// Multiply-accumulate operations per warp-level issue of a tensor-core
// instruction whose opcode carries its shape (HMMA.16816 -> 16*8*16,
// HGMMA.64x128x16 -> 64*128*16); 0 when the opcode gives no shape.
std::int64_t mma_shape_macs(std::string_view opcode);

// Bytes one lane moves for a load or store: from the width modifier
// (.64, .128, .U8, .S16, ...), 4 otherwise.
int access_bytes(std::string_view opcode);

// A load, store or atomic of global memory by one warp's threads (LDG, STG,
// generic LD/ST, ATOM/ATOMG, RED/REDG): what the SASS moves when there is no
// TileIR to count tiles from.
bool is_global_access(std::string_view opcode);

// A copy from global into shared memory by the copy engine (a TMA load,
// UTMALDG, or a bulk copy, UBLKCP.S.G), and one out of shared memory (a TMA
// store or reduction, a bulk copy or reduction to global).
bool is_copy_load(std::string_view opcode);
bool is_copy_store(std::string_view opcode);

// The threads of a warp, each a lane of every warp instruction.
inline constexpr double kWarpLanes = 32;

// The number of an architecture: 120 for "sm_120" (and "sm_120a", "120"),
// 0 when it has none.
int arch_number(std::string_view arch);

}  // namespace tileperf
