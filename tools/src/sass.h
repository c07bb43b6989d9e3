// Parser for `cuobjdump --dump-sass` listings of a cubin.
//
// Each instruction is printed on two lines: address, optional predicate,
// opcode with modifiers, operands and the first encoding word, then a line
// holding only the control word. Each function ends with a `..........` line.
// Column widths vary by architecture, so lines are matched by pattern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace tileperf {

struct SassInstruction {
  std::uint64_t address = 0;
  std::string predicate;  // "@P0", "@!PT", or empty
  std::string opcode;     // with modifiers: "MUFU.EX2", "HGMMA.64x128x16.F32"
  std::string operands;   // text between opcode and ';'
  int line = 0;           // 1-based line in the listing
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
