#include "analysis/isa.h"

#include <algorithm>
#include <unordered_map>
#include <array>
#include <cctype>
#include <charconv>
#include <utility>

namespace tileperf {

namespace {

struct ClassEntry {
  std::string_view base;
  OpClass cls;
};

// Base opcodes by class. Looked up after the special cases in op_class().
constexpr std::array kClasses = {
    ClassEntry{"FADD", OpClass::kFp32},
    ClassEntry{"FMUL", OpClass::kFp32},
    ClassEntry{"FFMA", OpClass::kFp32},
    ClassEntry{"FMNMX", OpClass::kFp32},
    ClassEntry{"FMNMX3", OpClass::kFp32},
    ClassEntry{"FSETP", OpClass::kFp32},
    ClassEntry{"FSET", OpClass::kFp32},
    ClassEntry{"FSEL", OpClass::kFp32},
    ClassEntry{"FCHK", OpClass::kFp32},
    ClassEntry{"FADD32I", OpClass::kFp32},
    ClassEntry{"FMUL32I", OpClass::kFp32},
    ClassEntry{"FFMA32I", OpClass::kFp32},
    ClassEntry{"FSWZADD", OpClass::kFp32},
    ClassEntry{"HADD2", OpClass::kFp16},
    ClassEntry{"HMUL2", OpClass::kFp16},
    ClassEntry{"HFMA2", OpClass::kFp16},
    ClassEntry{"HMNMX2", OpClass::kFp16},
    ClassEntry{"HSET2", OpClass::kFp16},
    ClassEntry{"HSETP2", OpClass::kFp16},
    ClassEntry{"FADD2", OpClass::kFp32x2},
    ClassEntry{"FMUL2", OpClass::kFp32x2},
    ClassEntry{"FFMA2", OpClass::kFp32x2},
    ClassEntry{"DADD", OpClass::kFp64},
    ClassEntry{"DMUL", OpClass::kFp64},
    ClassEntry{"DFMA", OpClass::kFp64},
    ClassEntry{"DSETP", OpClass::kFp64},
    ClassEntry{"DMNMX", OpClass::kFp64},
    ClassEntry{"DSET", OpClass::kFp64},
    ClassEntry{"MUFU", OpClass::kMufu},
    ClassEntry{"IADD3", OpClass::kInteger},
    ClassEntry{"IADD", OpClass::kInteger},
    ClassEntry{"IMAD", OpClass::kInteger},
    ClassEntry{"IMUL", OpClass::kInteger},
    ClassEntry{"ISETP", OpClass::kInteger},
    ClassEntry{"IMNMX", OpClass::kInteger},
    ClassEntry{"IABS", OpClass::kInteger},
    ClassEntry{"LOP3", OpClass::kInteger},
    ClassEntry{"LOP", OpClass::kInteger},
    ClassEntry{"SHF", OpClass::kInteger},
    ClassEntry{"SHL", OpClass::kInteger},
    ClassEntry{"SHR", OpClass::kInteger},
    ClassEntry{"LEA", OpClass::kInteger},
    ClassEntry{"MOV", OpClass::kInteger},
    ClassEntry{"SEL", OpClass::kInteger},
    ClassEntry{"PRMT", OpClass::kInteger},
    ClassEntry{"PLOP3", OpClass::kInteger},
    ClassEntry{"P2R", OpClass::kInteger},
    ClassEntry{"R2P", OpClass::kInteger},
    ClassEntry{"R2UR", OpClass::kInteger},
    ClassEntry{"CS2R", OpClass::kInteger},
    ClassEntry{"VIADD", OpClass::kInteger},
    ClassEntry{"VIMNMX", OpClass::kInteger},
    ClassEntry{"VIADDMNMX", OpClass::kInteger},
    ClassEntry{"VOTE", OpClass::kInteger},
    ClassEntry{"VOTEU", OpClass::kInteger},
    ClassEntry{"RPCMOV", OpClass::kInteger},
    ClassEntry{"BMSK", OpClass::kInteger},
    ClassEntry{"SGXT", OpClass::kInteger},
    ClassEntry{"IDP", OpClass::kInteger},
    ClassEntry{"IMNMX3", OpClass::kInteger},
    ClassEntry{"POPC", OpClass::kBitCount},
    ClassEntry{"FLO", OpClass::kBitCount},
    ClassEntry{"BREV", OpClass::kBitCount},
    ClassEntry{"F2F", OpClass::kConvert},
    ClassEntry{"F2I", OpClass::kConvert},
    ClassEntry{"I2F", OpClass::kConvert},
    ClassEntry{"FRND", OpClass::kConvert},
    ClassEntry{"I2I", OpClass::kConvert},
    ClassEntry{"F2FP", OpClass::kPack},
    ClassEntry{"I2FP", OpClass::kPack},
    ClassEntry{"I2IP", OpClass::kPack},
    ClassEntry{"SHFL", OpClass::kShuffle},
    ClassEntry{"REDUX", OpClass::kShuffle},
    ClassEntry{"CREDUX", OpClass::kShuffle},
    ClassEntry{"HMMA", OpClass::kTensor},
    ClassEntry{"HGMMA", OpClass::kTensor},
    ClassEntry{"IMMA", OpClass::kTensor},
    ClassEntry{"IGMMA", OpClass::kTensor},
    ClassEntry{"QMMA", OpClass::kTensor},
    ClassEntry{"QGMMA", OpClass::kTensor},
    ClassEntry{"OMMA", OpClass::kTensor},
    ClassEntry{"DMMA", OpClass::kTensor},
    ClassEntry{"BMMA", OpClass::kTensor},
    ClassEntry{"BGMMA", OpClass::kTensor},
    ClassEntry{"UTCHMMA", OpClass::kTensor},
    ClassEntry{"UTCQMMA", OpClass::kTensor},
    ClassEntry{"UTCIMMA", OpClass::kTensor},
    ClassEntry{"UTCOMMA", OpClass::kTensor},
    ClassEntry{"UTCMMA", OpClass::kTensor},
    ClassEntry{"LDG", OpClass::kLoad},
    ClassEntry{"LDS", OpClass::kLoad},
    ClassEntry{"LD", OpClass::kLoad},
    ClassEntry{"LDL", OpClass::kLoad},
    ClassEntry{"LDSM", OpClass::kLoad},
    ClassEntry{"LDTM", OpClass::kLoad},
    ClassEntry{"LDC", OpClass::kLoad},
    ClassEntry{"LDCU", OpClass::kLoad},
    ClassEntry{"ATOM", OpClass::kLoad},
    ClassEntry{"ATOMG", OpClass::kLoad},
    ClassEntry{"ATOMS", OpClass::kLoad},
    ClassEntry{"TLD", OpClass::kLoad},
    ClassEntry{"TEX", OpClass::kLoad},
    ClassEntry{"STG", OpClass::kStore},
    ClassEntry{"STS", OpClass::kStore},
    ClassEntry{"ST", OpClass::kStore},
    ClassEntry{"STL", OpClass::kStore},
    ClassEntry{"STSM", OpClass::kStore},
    ClassEntry{"STTM", OpClass::kStore},
    ClassEntry{"RED", OpClass::kStore},
    ClassEntry{"REDG", OpClass::kStore},
    ClassEntry{"REDS", OpClass::kStore},
    ClassEntry{"UTMALDG", OpClass::kAsyncCopy},
    ClassEntry{"UTMASTG", OpClass::kAsyncCopy},
    ClassEntry{"UTMAPF", OpClass::kAsyncCopy},
    ClassEntry{"UTMAREDG", OpClass::kAsyncCopy},
    ClassEntry{"UTMACCTL", OpClass::kAsyncCopy},
    ClassEntry{"UTMACMDFLUSH", OpClass::kAsyncCopy},
    ClassEntry{"UBLKCP", OpClass::kAsyncCopy},
    ClassEntry{"UBLKRED", OpClass::kAsyncCopy},
    ClassEntry{"UBLKPF", OpClass::kAsyncCopy},
    ClassEntry{"LDGSTS", OpClass::kAsyncCopy},
    ClassEntry{"UTCATOMSWS", OpClass::kBarrier},
    ClassEntry{"UTCCP", OpClass::kAsyncCopy},
    ClassEntry{"UTCSHIFT", OpClass::kAsyncCopy},
    ClassEntry{"BAR", OpClass::kBarrier},
    ClassEntry{"SYNCS", OpClass::kBarrier},
    ClassEntry{"MEMBAR", OpClass::kBarrier},
    ClassEntry{"FENCE", OpClass::kBarrier},
    ClassEntry{"DEPBAR", OpClass::kBarrier},
    ClassEntry{"WARPGROUP", OpClass::kBarrier},
    ClassEntry{"UTCBAR", OpClass::kBarrier},
    ClassEntry{"ERRBAR", OpClass::kBarrier},
    ClassEntry{"CCTL", OpClass::kBarrier},
    ClassEntry{"LDGDEPBAR", OpClass::kBarrier},
    ClassEntry{"ARRIVES", OpClass::kBarrier},
    ClassEntry{"BRA", OpClass::kControl},
    ClassEntry{"BRX", OpClass::kControl},
    ClassEntry{"JMP", OpClass::kControl},
    ClassEntry{"JMX", OpClass::kControl},
    ClassEntry{"CALL", OpClass::kControl},
    ClassEntry{"RET", OpClass::kControl},
    ClassEntry{"EXIT", OpClass::kControl},
    ClassEntry{"KILL", OpClass::kControl},
    ClassEntry{"BSSY", OpClass::kControl},
    ClassEntry{"BSYNC", OpClass::kControl},
    ClassEntry{"BREAK", OpClass::kControl},
    ClassEntry{"BPT", OpClass::kControl},
    ClassEntry{"WARPSYNC", OpClass::kControl},
    ClassEntry{"NOP", OpClass::kControl},
    ClassEntry{"YIELD", OpClass::kControl},
    ClassEntry{"NANOSLEEP", OpClass::kControl},
    ClassEntry{"S2R", OpClass::kControl},
    ClassEntry{"S2UR", OpClass::kControl},
    ClassEntry{"ELECT", OpClass::kControl},
    ClassEntry{"USETMAXREG", OpClass::kControl},
    ClassEntry{"ACQBULK", OpClass::kControl},
    ClassEntry{"PMTRIG", OpClass::kControl},
    ClassEntry{"CSMTEST", OpClass::kControl},
};

std::int64_t parse_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : 0;
}

}  // namespace

bool has_modifier(std::string_view opcode, std::string_view modifier) {
  std::size_t at = 0;
  while ((at = opcode.find(modifier, at)) != std::string_view::npos) {
    bool starts = at > 0 && opcode[at - 1] == '.';
    std::size_t end = at + modifier.size();
    bool ends = end == opcode.size() || opcode[end] == '.';
    if (starts && ends) return true;
    at = end;
  }
  return false;
}

const char* op_class_name(OpClass c) {
  switch (c) {
    case OpClass::kFp32:
      return "fp32";
    case OpClass::kFp16:
      return "fp16x2";
    case OpClass::kFp32x2:
      return "fp32x2";
    case OpClass::kFp64:
      return "fp64";
    case OpClass::kMufu:
      return "mufu";
    case OpClass::kInteger:
      return "integer";
    case OpClass::kBitCount:
      return "bitcount";
    case OpClass::kConvert:
      return "convert";
    case OpClass::kConvert64:
      return "convert64";
    case OpClass::kPack:
      return "pack";
    case OpClass::kShuffle:
      return "shuffle";
    case OpClass::kTensor:
      return "tensor";
    case OpClass::kLoad:
      return "load";
    case OpClass::kStore:
      return "store";
    case OpClass::kAsyncCopy:
      return "async_copy";
    case OpClass::kBarrier:
      return "barrier";
    case OpClass::kUniform:
      return "uniform";
    case OpClass::kControl:
      return "control";
    case OpClass::kOther:
      return "other";
  }
  return "other";
}

std::string_view base_opcode(std::string_view opcode) { return opcode.substr(0, opcode.find('.')); }

OpClass op_class(std::string_view opcode) {
  // The table by base opcode, built once (the replay asks for every
  // instruction it issues).
  static const std::unordered_map<std::string_view, OpClass> by_base = [] {
    std::unordered_map<std::string_view, OpClass> m;
    for (const auto& e : kClasses) m.emplace(e.base, e.cls);  // the first entry of a base wins
    return m;
  }();
  std::string_view base = base_opcode(opcode);
  if (auto it = by_base.find(base); it != by_base.end()) {
    if (it->second == OpClass::kConvert && has_modifier(opcode, "F64")) return OpClass::kConvert64;
    if (it->second == OpClass::kConvert && (has_modifier(opcode, "S64") || has_modifier(opcode, "U64"))) {
      return OpClass::kConvert64;
    }
    return it->second;
  }
  // The uniform datapath: UIADD3, UMOV, ULDC, USHF, ... (after the U*
  // opcodes above that belong to other units).
  if (base.size() > 1 && base[0] == 'U') return OpClass::kUniform;
  return OpClass::kOther;
}

Flow flow(const SassInstruction& insn) {
  std::string_view base = base_opcode(insn.opcode);
  if (base == "BRA" || base == "JMP") return Flow::kBranch;
  if (base == "BRX" || base == "JMX") return Flow::kIndirect;
  if (base == "CALL") return Flow::kCall;
  if (base == "RET") return Flow::kReturn;
  if (base == "EXIT" || base == "KILL" || insn.opcode == "BPT.TRAP") return Flow::kExit;
  return Flow::kNone;
}

std::optional<std::uint64_t> branch_target(const SassInstruction& insn) {
  std::string_view ops = insn.operands;
  auto at = ops.rfind("0x");
  if (at == std::string_view::npos) return std::nullopt;
  if (at > 0 && ops[at - 1] != ' ' && ops[at - 1] != ',') return std::nullopt;
  std::string_view digits = ops.substr(at + 2);
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  std::uint64_t value = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
  return value;
}

bool never_executes(const SassInstruction& insn) { return insn.predicate == "@!PT" || insn.predicate == "@!UPT"; }

bool always_executes(const SassInstruction& insn) {
  return insn.predicate.empty() || insn.predicate == "@PT" || insn.predicate == "@UPT";
}

bool conditional(const SassInstruction& insn) {
  if (!always_executes(insn)) return true;
  std::string_view ops = insn.operands;
  auto comma = ops.find(',');
  if (comma == std::string_view::npos) return false;
  std::string_view first = ops.substr(0, comma);
  while (!first.empty() && first.back() == ' ') first.remove_suffix(1);
  if (first == "PT" || first == "UPT") return false;
  if (!first.empty() && first[0] == '!') first.remove_prefix(1);
  if (!first.empty() && first[0] == 'U') first.remove_prefix(1);
  return first.size() >= 2 && first[0] == 'P';
}

bool is_allocation_try(std::string_view opcode) { return opcode.rfind("USETMAXREG.TRY_ALLOC", 0) == 0; }

bool is_poll(std::string_view opcode) {
  std::string_view base = base_opcode(opcode);
  return opcode.rfind("SYNCS.PHASECHK", 0) == 0 || base == "NANOSLEEP" || base == "YIELD" || is_allocation_try(opcode);
}

std::int64_t mma_shape_macs(std::string_view opcode) {
  // HGMMA.64x128x16.F32 / IGMMA... : "MxNxK" as one modifier.
  std::size_t dot = opcode.find('.');
  while (dot != std::string_view::npos) {
    std::size_t next = opcode.find('.', dot + 1);
    std::string_view mod = opcode.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1);
    auto x1 = mod.find('x');
    auto x2 = x1 == std::string_view::npos ? x1 : mod.find('x', x1 + 1);
    if (x2 != std::string_view::npos) {
      std::int64_t m = parse_int(mod.substr(0, x1)), n = parse_int(mod.substr(x1 + 1, x2 - x1 - 1));
      std::int64_t k = parse_int(mod.substr(x2 + 1));
      if (m > 0 && n > 0 && k > 0) return m * n * k;
    }
    // HMMA.16816 / HMMA.1688 / IMMA.16832 / DMMA.884: M, N, K run together.
    if (!mod.empty() &&
        std::all_of(mod.begin(), mod.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      static constexpr std::array<std::pair<std::string_view, std::int64_t>, 7> kShapes = {{{"16816", 16 * 8 * 16},
                                                                                            {"1688", 16 * 8 * 8},
                                                                                            {"16832", 16 * 8 * 32},
                                                                                            {"16864", 16 * 8 * 64},
                                                                                            {"884", 8 * 8 * 4},
                                                                                            {"8816", 8 * 8 * 16},
                                                                                            {"8832", 8 * 8 * 32}}};
      for (const auto& [name, macs] : kShapes) {
        if (mod == name) return macs;
      }
    }
    dot = next;
  }
  return 0;
}

int access_bytes(std::string_view opcode) {
  if (has_modifier(opcode, "128")) return 16;
  if (has_modifier(opcode, "64")) return 8;
  if (has_modifier(opcode, "U8") || has_modifier(opcode, "S8")) return 1;
  if (has_modifier(opcode, "U16") || has_modifier(opcode, "S16")) return 2;
  // ldmatrix / stmatrix: .x4 = four 8x8 matrices of 16-bit values per warp.
  if (has_modifier(opcode, "4") && (base_opcode(opcode) == "LDSM" || base_opcode(opcode) == "STSM")) return 16;
  if (has_modifier(opcode, "2") && (base_opcode(opcode) == "LDSM" || base_opcode(opcode) == "STSM")) return 8;
  return 4;
}

int arch_number(std::string_view arch) {
  if (arch.rfind("sm_", 0) == 0) arch.remove_prefix(3);
  int n = 0;
  std::from_chars(arch.data(), arch.data() + arch.size(), n);
  return n;
}

bool is_global_access(std::string_view opcode) {
  std::string_view base = base_opcode(opcode);
  return base == "LDG" || base == "STG" || base == "LD" || base == "ST" || base == "ATOM" || base == "ATOMG" ||
         base == "RED" || base == "REDG";
}

bool is_copy_load(std::string_view opcode) {
  return base_opcode(opcode) == "UTMALDG" || opcode.rfind("UBLKCP.S.G", 0) == 0;
}

bool is_copy_store(std::string_view opcode) {
  std::string_view base = base_opcode(opcode);
  return base == "UTMASTG" || base == "UTMAREDG" || opcode.rfind("UBLKCP.G.S", 0) == 0 || base == "UBLKRED";
}

}  // namespace tileperf
