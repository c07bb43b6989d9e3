// The ELF reader on any bytes: headers, sections, symbols, sizes.
#include "readers/elf.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tileperf;
  return fuzz::run_input(data, size, [](const std::string& bytes) {
    ElfFile elf = parse_elf(bytes, fuzz::kInputName);
    for (std::size_t i = 0; i < elf.sections.size(); ++i) {
      section_data(bytes, elf.sections[i]);
      if (elf.sections[i].type == 2 /* SHT_SYMTAB */) elf_symbols(bytes, elf, i, fuzz::kInputName);
    }
    cubin_bytes_without_debug(elf);
    text_bytes(elf);
  });
}
