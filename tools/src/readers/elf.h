// Minimal reader for cubin files (ELF64, little-endian): section names,
// types, offsets, sizes and links, enough for the size metrics and for the
// line table (elf_symbols, section_data).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tileperf {

struct ElfSection {
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint32_t link = 0;     // sh_link: e.g. the symbol table of a relocation section
  std::uint32_t info = 0;     // sh_info: e.g. the section a relocation section applies to
  std::uint64_t entsize = 0;  // sh_entsize
  bool has_file_data() const { return type != 8 /* SHT_NOBITS */ && type != 0; }
  bool is_debug() const { return name.find("debug") != std::string::npos; }
  bool is_text() const { return name == ".text" || name.rfind(".text.", 0) == 0; }
};

struct ElfFile {
  std::uint64_t file_size = 0;
  std::uint32_t flags = 0;                // e_flags: the architecture and its variant
  std::uint16_t abi = 0;                  // EI_OSABI << 8 | EI_ABIVERSION
  std::uint64_t header_bytes = 0;         // ELF header + program header table
  std::uint64_t section_header_size = 0;  // bytes per section header entry
  std::vector<ElfSection> sections;
};

// Throws InputError naming `filename` (with the byte offset) when the data is
// not a complete ELF64 little-endian file.
ElfFile parse_elf(const std::string& data, const std::string& filename);

// Whether `data` begins with the ELF magic (parse_elf may still find it malformed).
bool is_elf(std::string_view data);

struct ElfSymbol {
  std::string name;
  std::uint64_t value = 0;
  std::uint16_t section = 0;  // st_shndx
};

// The section's bytes (empty for sections without file data).
std::string_view section_data(const std::string& data, const ElfSection& section);

// The index of the first section named `name`, or -1.
int find_section(const ElfFile& elf, const std::string& name);

// Entries of the symbol table at section index `symtab`; InputError when
// it is malformed.
std::vector<ElfSymbol> elf_symbols(const std::string& data, const ElfFile& elf, std::size_t symtab,
                                   const std::string& filename);

// Size of the cubin with its debug-information sections removed: headers,
// the non-debug sections' section-header entries, and every byte covered by
// a non-debug section. Stable when only line numbers or source paths change.
std::uint64_t cubin_bytes_without_debug(const ElfFile& elf);

// Total size of the executable code sections (.text.<function>).
std::uint64_t text_bytes(const ElfFile& elf);

// What the cubin's per-kernel attributes (.nv.info.<function>) say about its
// launch: the threads per block the kernel requires (EIATTR_REQNTID, which
// tileiras always sets) and the cluster shape (EIATTR_CTA_PER_CLUSTER, set
// for num_ctas > 1). Zero where the attribute is absent.
struct KernelAttributes {
  std::uint32_t threads[3] = {0, 0, 0};
  std::uint32_t cluster[3] = {0, 0, 0};
  std::int64_t threads_per_block() const;  // 0 when not required
  std::int64_t cluster_size() const;       // 1 when no cluster is set
};

// The attributes of `function` (InputError naming `filename` when its
// .nv.info section is malformed); all zero when the cubin has no section for it.
KernelAttributes kernel_attributes(const std::string& data, const ElfFile& elf, const std::string& function,
                                   const std::string& filename);

}  // namespace tileperf
