// The DWARF line table (.debug_line) of any ELF file, with its relocations.
#include "readers/elf.h"
#include "fuzz_input.h"
#include "readers/line_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& bytes) {
    LineTable table = read_line_table(bytes, parse_elf(bytes, fuzz::kInputName), fuzz::kInputName);
    for (const auto& [function, rows] : table.rows) {
      for (const auto& row : rows) table.find(function, row.address);
    }
  });
}
