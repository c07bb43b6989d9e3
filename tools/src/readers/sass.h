// Parser for `cuobjdump --dump-sass` listings of a cubin.
//
// Each instruction is printed on two lines: address, optional predicate,
// opcode with modifiers, operands and the first (low) 64-bit word of its
// 128-bit encoding, then a line holding only the second (high) word. Each
// function ends with a `..........` line. Column widths vary by
// architecture, so lines are matched by their shape, not by column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace tileperf {

// The scheduling information the compiler stores in bits 105..125 of every
// instruction from sm_70 on (bits 41..61 of the high word): how long the
// warp stalls before its next instruction, and the six dependency
// scoreboards through which variable-latency results are waited for.
struct ControlCode {
  int stall = 0;              // cycles before the warp may issue its next instruction (0..15)
  bool yield = false;         // the scheduler may switch to another warp after this one
  int write_scoreboard = -1;  // scoreboard released when the result is written, -1: none
  int read_scoreboard = -1;   // scoreboard released once the operands are read, -1: none
  unsigned wait_mask = 0;     // scoreboards (bit i: scoreboard i) waited on before issue
  unsigned reuse = 0;         // operand reuse-cache flags, one bit per source slot

  bool waits() const { return wait_mask != 0; }
  bool waits_on(int scoreboard) const { return scoreboard >= 0 && (wait_mask >> scoreboard & 1u) != 0; }
};

// Decodes the control bits of an instruction from its high encoding word.
ControlCode decode_control(std::uint64_t high_word);

struct SassInstruction {
  std::uint64_t address = 0;
  std::string predicate;                      // "@P0", "@!PT", "@!UP0", or empty
  std::string opcode;                         // with modifiers: "MUFU.EX2", "HGMMA.64x128x16.F32"
  std::string operands;                       // text between opcode and ';'
  std::uint64_t low_word = 0, high_word = 0;  // the 128-bit encoding
  ControlCode control;                        // decoded from high_word
  int line = 0;                               // 1-based line in the listing
};

struct SassFunction {
  std::string name;
  std::vector<SassInstruction> instructions;  // every listed slot, padding included
  // Index of the first padding slot: the trailing self-branch (`BRA` to its
  // own address) and the NOPs after it that fill .text to its alignment.
  std::size_t padding_begin = 0;
};

struct SassListing {
  std::string arch;  // as cuobjdump prints it, e.g. "sm_120a"
  std::vector<SassFunction> functions;
};

// Throws InputError naming `filename` and the line for anything unexpected,
// including a listing cut off before a function's end marker.
SassListing parse_sass(std::istream& in, const std::string& filename);

// Instruction statistics over all functions, padding excluded.
struct SassCounts {
  std::size_t instructions = 0;
  std::size_t padding = 0;
  std::map<std::string, std::size_t> opcodes;  // full opcode with modifiers
  std::map<std::string, std::size_t> mufu;     // MUFU function: EX2, RCP, TANH, ...
};

SassCounts count_sass(const SassListing& listing);

}  // namespace tileperf
