// The control bits of SASS instructions, decoded from real listings of
// sm_90, sm_100 and sm_120 and checked against what the hardware requires of
// them: if the decoder read the wrong bits, these invariants would break
// (the last test shows they do for a layout shifted by one bit).
#define BOOST_TEST_MODULE control
#include <boost/test/unit_test.hpp>

#include <functional>
#include <regex>
#include <set>

#include "fixtures.h"
#include "analysis/isa.h"
#include "readers/sass.h"

using namespace tileperf;
using namespace tileperf::testing;

namespace {

const char* const kListings[] = {
    "gelu.f16_1024.sm_90.sass",
    "matmul.f16_128x128x64.sm_90.sass",
    "attention.f16_d64_causal.sm_90.sass",
    "rope_fp64_angles.bf16_t4_h8_d128.sm_90.sass",
    "softmax.f16_1024.sm_100.sass",
    "matmul.f16_128x128x64.sm_100.sass",
    "gelu.f16_1024.sm_120.sass",
    "matmul.f16_128x128x64.sm_120.sass",
    "vector_add.f32_4096.sm_120.sass",
    "two_functions.sm_120.sass",
};

SassListing load(const std::string& name) {
  std::istringstream in(fixture(name));
  return parse_sass(in, name);
}

// Re-decodes every instruction with `decode` (to test a wrong layout).
SassListing redecoded(SassListing listing, const std::function<ControlCode(std::uint64_t)>& decode) {
  for (auto& fn : listing.functions) {
    for (auto& insn : fn.instructions) insn.control = decode(insn.high_word);
  }
  return listing;
}

// General registers an instruction writes (its first operand) and reads.
struct Registers {
  std::set<int> written, read;
};

int register_width(const std::string& opcode) {
  std::string_view base = base_opcode(opcode);
  bool matrix = base == "LDSM";
  if (opcode.find(".128") != std::string::npos ||
      (matrix && opcode.size() > 2 && opcode.substr(opcode.size() - 2) == ".4"))
    return 4;
  if (opcode.find(".64") != std::string::npos || opcode.find(".WIDE") != std::string::npos ||
      (matrix && opcode.size() > 2 && opcode.substr(opcode.size() - 2) == ".2")) {
    return 2;
  }
  return 1;
}

Registers registers(const SassInstruction& insn) {
  static const std::regex kRegister(R"((?:^|[^A-Z_])R(\d+))");
  Registers r;
  std::string ops = insn.operands;
  auto comma = ops.find(',');
  std::string first = ops.substr(0, comma);
  std::smatch m;
  bool store = base_opcode(insn.opcode).substr(0, 2) == "ST" || base_opcode(insn.opcode) == "RED";
  static const std::regex kDestination(R"(\s*R(\d+)\s*)");
  if (!store && comma != std::string::npos && std::regex_match(first, m, kDestination)) {
    int base = std::stoi(m[1]);
    for (int i = 0; i < register_width(insn.opcode); ++i) r.written.insert(base + i);
    ops = ops.substr(comma + 1);
  }
  for (auto it = std::sregex_iterator(ops.begin(), ops.end(), kRegister); it != std::sregex_iterator(); ++it) {
    r.read.insert(std::stoi((*it)[1]));
  }
  return r;
}

bool intersects(const std::set<int>& a, const std::set<int>& b) {
  for (int x : a) {
    if (b.count(x)) return true;
  }
  return false;
}

bool ends_flow(const SassInstruction& insn) { return flow(insn) != Flow::kNone; }

const std::set<std::string> kVariableLatency = {"LDG", "LDS", "LDSM", "LDC", "LD", "LDL", "S2R", "MUFU", "SHFL"};

// For every register a variable-latency instruction writes and a later
// instruction of the same block reads: the reader, or an instruction
// between, waits on the writer's scoreboard, or on the scoreboard of a later
// instruction of the same unit (whose results come back in order).
// Returns {pairs checked, pairs without such a wait}.
std::pair<int, int> unwaited_reads(const SassListing& listing) {
  int checked = 0, unwaited = 0;
  for (const auto& fn : listing.functions) {
    const auto& insns = fn.instructions;
    for (std::size_t k = 0; k < fn.padding_begin; ++k) {
      std::string unit(base_opcode(insns[k].opcode));
      if (!kVariableLatency.count(unit)) continue;
      auto written = registers(insns[k]).written;
      if (written.empty()) continue;
      std::set<int> covering;
      if (insns[k].control.write_scoreboard >= 0) covering.insert(insns[k].control.write_scoreboard);
      bool waited = false;
      for (std::size_t j = k + 1; j < fn.padding_begin; ++j) {
        for (int sb : covering) waited = waited || insns[j].control.waits_on(sb);
        if (intersects(registers(insns[j]).read, written)) {
          ++checked;
          unwaited += waited ? 0 : 1;
          break;
        }
        if (base_opcode(insns[j].opcode) == unit && insns[j].control.write_scoreboard >= 0) {
          covering.insert(insns[j].control.write_scoreboard);
        }
        if (ends_flow(insns[j])) break;
      }
    }
  }
  return {checked, unwaited};
}

const std::set<std::string> kFixedLatency = {"FFMA", "FADD", "FMUL", "FSEL", "FSETP", "FMNMX", "IADD3", "LOP3",
                                             "SHF",  "SEL",  "MOV",  "LEA",  "ISETP", "PRMT",  "HFMA2", "HADD2"};

// The smallest number of stall cycles between an unpredicated fixed-latency
// ALU instruction and the first instruction of its block that reads its result.
std::pair<int, int> min_fixed_latency_distance(const SassListing& listing) {
  const std::set<std::string> producers = {"FFMA", "FADD", "FMUL", "IADD3", "LOP3", "SHF", "LEA", "MOV"};
  int pairs = 0, minimum = 99;
  for (const auto& fn : listing.functions) {
    const auto& insns = fn.instructions;
    for (std::size_t k = 0; k < fn.padding_begin; ++k) {
      if (!producers.count(std::string(base_opcode(insns[k].opcode))) || !insns[k].predicate.empty()) continue;
      auto written = registers(insns[k]).written;
      if (written.empty()) continue;
      int stalls = 0;
      for (std::size_t j = k + 1; j < fn.padding_begin && j < k + 12; ++j) {
        stalls += insns[j - 1].control.stall;
        auto regs = registers(insns[j]);
        if (intersects(regs.read, written)) {
          ++pairs;
          minimum = std::min(minimum, stalls);
          break;
        }
        if (intersects(regs.written, written) || ends_flow(insns[j])) break;
      }
    }
  }
  return {pairs, minimum};
}

}  // namespace

BOOST_AUTO_TEST_CASE(decodes_the_control_words_of_a_listing) {
  // 0x000e220000000800 (LDC R0, c[0x0][0x144] on sm_90): stall 1, no
  // yield (the bit is set), writes scoreboard 0, waits on nothing.
  ControlCode ldc = decode_control(0x000e220000000800ull);
  BOOST_TEST(ldc.stall == 1);
  BOOST_TEST(!ldc.yield);
  BOOST_TEST(ldc.write_scoreboard == 0);
  BOOST_TEST(ldc.read_scoreboard == -1);
  BOOST_TEST(ldc.wait_mask == 0u);
  // 0x001fe40007ffe0ff (IADD3 R3, R2, -0x2, RZ): stall 2, waits on scoreboard 0.
  ControlCode add = decode_control(0x001fe40007ffe0ffull);
  BOOST_TEST(add.stall == 2);
  BOOST_TEST(add.write_scoreboard == -1);
  BOOST_TEST(add.wait_mask == 1u);
  BOOST_TEST(add.waits_on(0));
  // 0x081fe40000201000 (I2FP.F32.U32 R2, R0.reuse): one reuse flag.
  BOOST_TEST(decode_control(0x081fe40000201000ull).reuse == 2u);
  // 0x000fc00000000000 (NOP padding): stall 0, yield bit clear.
  BOOST_TEST(decode_control(0x000fc00000000000ull).yield);
}

BOOST_AUTO_TEST_CASE(every_listing_keeps_both_encoding_words) {
  for (const char* name : kListings) {
    auto listing = load(name);
    for (const auto& fn : listing.functions) {
      for (const auto& insn : fn.instructions) {
        BOOST_TEST_INFO(name << " " << insn.address);
        BOOST_TEST(insn.high_word != 0u);
        BOOST_TEST(insn.control.stall >= 0);
        BOOST_TEST(insn.control.stall <= 15);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(scoreboards_are_0_to_5_or_none) {
  for (const char* name : kListings) {
    for (const auto& fn : load(name).functions) {
      for (const auto& insn : fn.instructions) {
        BOOST_TEST_INFO(name << " " << insn.address << " " << insn.opcode);
        BOOST_TEST(insn.control.write_scoreboard < 6);
        BOOST_TEST(insn.control.read_scoreboard < 6);
        BOOST_TEST(insn.control.wait_mask < 64u);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reuse_flags_match_the_reuse_operands) {
  int reused = 0;
  for (const char* name : kListings) {
    for (const auto& fn : load(name).functions) {
      for (const auto& insn : fn.instructions) {
        bool printed = insn.operands.find(".reuse") != std::string::npos;
        BOOST_TEST_INFO(name << " " << insn.address << " " << insn.opcode << " " << insn.operands);
        BOOST_TEST(printed == (insn.control.reuse != 0));
        reused += printed;
      }
    }
  }
  BOOST_TEST(reused > 500);
}

BOOST_AUTO_TEST_CASE(fixed_latency_instructions_set_no_scoreboard) {
  int fixed = 0;
  for (const char* name : kListings) {
    for (const auto& fn : load(name).functions) {
      for (const auto& insn : fn.instructions) {
        if (!kFixedLatency.count(std::string(base_opcode(insn.opcode)))) continue;
        ++fixed;
        BOOST_TEST_INFO(name << " " << insn.address << " " << insn.opcode);
        BOOST_TEST(insn.control.write_scoreboard == -1);
      }
    }
  }
  BOOST_TEST(fixed > 3000);
}

BOOST_AUTO_TEST_CASE(reads_of_variable_latency_results_wait_on_their_scoreboard) {
  std::map<std::string, int> per_arch;
  for (const char* name : kListings) {
    auto listing = load(name);
    auto [checked, unwaited] = unwaited_reads(listing);
    BOOST_TEST_INFO(name);
    BOOST_TEST(unwaited == 0);
    per_arch[listing.arch] += checked;
  }
  for (const char* arch : {"sm_90a", "sm_100a", "sm_120a"}) {
    BOOST_TEST_INFO(arch);
    BOOST_TEST(per_arch[arch] >= 40);
  }
}

BOOST_AUTO_TEST_CASE(fixed_latency_results_are_read_at_least_4_stall_cycles_later) {
  for (const char* name : kListings) {
    auto [pairs, minimum] = min_fixed_latency_distance(load(name));
    BOOST_TEST_INFO(name << ": " << pairs << " pairs");
    if (pairs > 0) BOOST_TEST(minimum >= 4);
  }
}

BOOST_AUTO_TEST_CASE(a_layout_shifted_by_one_bit_breaks_the_invariants) {
  for (int shift : {-1, 1}) {
    auto wrong = [shift](std::uint64_t w) { return decode_control(shift > 0 ? w << 1 : w >> 1); };
    int broken = 0;
    for (const char* name : kListings) {
      auto listing = redecoded(load(name), wrong);
      broken += unwaited_reads(listing).second;
      auto [pairs, minimum] = min_fixed_latency_distance(listing);
      broken += pairs > 0 && minimum < 4;
      for (const auto& fn : listing.functions) {
        for (const auto& insn : fn.instructions) {
          broken += (insn.operands.find(".reuse") != std::string::npos) != (insn.control.reuse != 0);
        }
      }
    }
    BOOST_TEST_INFO("shift " << shift);
    BOOST_TEST(broken > 100);
  }
}
