// The source line of each SASS instruction, from the DWARF line table
// (.debug_line) that tileiras writes into a cubin compiled with --lineinfo.
// Each sequence of the table starts at an address relocated against a
// function's .text section, which names the function it describes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "readers/elf.h"

namespace tileperf {

struct SourceLine {
  std::string file;  // as the table names it: directory and file name joined
  int line = 0;
  // Where the line's function was inlined, innermost call first: (file, line)
  // of each call site, from tileiras's inlining records (extended opcode
  // 0x90, which names the row of the call site). Empty when not inlined.
  std::vector<std::pair<std::string, int>> calls;
};

struct LineTable {
  struct Row {
    std::uint64_t address = 0;
    int file = 0;  // index into files; -1 marks the end of a sequence
    int line = 0;
    int call = -1;  // index into calls: where this row's function was inlined
  };
  struct Call {
    int file = 0, line = 0;
    int parent = -1;  // the call site this call is itself inlined at
  };
  std::vector<std::string> files;
  std::vector<Call> calls;
  std::map<std::string, std::vector<Row>> rows;  // function -> rows sorted by address

  bool empty() const { return rows.empty(); }
  // The line of the instruction at `address` of `function`, if the table has one.
  std::optional<SourceLine> find(const std::string& function, std::uint64_t address) const;
};

// An empty table when the cubin has no .debug_line; InputError naming
// `filename` when the section is malformed.
LineTable read_line_table(const std::string& cubin, const ElfFile& elf, const std::string& filename);

}  // namespace tileperf
