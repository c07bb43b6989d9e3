#include "readers/elf.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "support/error.h"

namespace tileperf {

namespace {

class Reader {
 public:
  Reader(const std::string& data, const std::string& filename) : data_(data), filename_(filename) {}

  template <typename T>
  T read(std::uint64_t offset, const char* what) const {
    if (offset > data_.size() || sizeof(T) > data_.size() - offset) {
      throw InputError(
          filename_, 0,
          fmt::format("truncated ELF: {} at byte {} lies past the end ({} bytes)", what, offset, data_.size()));
    }
    T value;
    std::memcpy(&value, data_.data() + offset, sizeof(T));
    return value;
  }

  [[noreturn]] void fail(const std::string& message) const { throw InputError(filename_, 0, message); }

  const std::string& data() const { return data_; }

 private:
  const std::string& data_;
  const std::string& filename_;
};

std::string section_name(const Reader& r, const ElfSection& strtab, std::uint32_t index) {
  if (!strtab.has_file_data()) r.fail("string table has no data in the file");
  if (index >= strtab.size) r.fail(fmt::format("name offset {} outside its string table", index));
  const char* begin = r.data().data() + strtab.offset + index;
  std::size_t max = strtab.size - index;
  return std::string(begin, strnlen(begin, max));
}

}  // namespace

bool is_elf(std::string_view data) {
  return data.starts_with(
      "\x7f"
      "ELF");
}

ElfFile parse_elf(const std::string& data, const std::string& filename) {
  Reader r(data, filename);
  if (data.size() < 64 || !is_elf(data)) {
    r.fail("not an ELF file (bad magic or shorter than an ELF header)");
  }
  if (data[4] != 2 || data[5] != 1) r.fail("not a 64-bit little-endian ELF file");

  ElfFile elf;
  elf.file_size = data.size();
  elf.flags = r.read<std::uint32_t>(0x30, "e_flags");
  elf.abi = static_cast<std::uint16_t>(static_cast<unsigned char>(data[7]) << 8 | static_cast<unsigned char>(data[8]));
  auto phoff = r.read<std::uint64_t>(0x20, "e_phoff");
  auto shoff = r.read<std::uint64_t>(0x28, "e_shoff");
  auto ehsize = r.read<std::uint16_t>(0x34, "e_ehsize");
  auto phentsize = r.read<std::uint16_t>(0x36, "e_phentsize");
  auto phnum = r.read<std::uint16_t>(0x38, "e_phnum");
  auto shentsize = r.read<std::uint16_t>(0x3a, "e_shentsize");
  auto shnum = r.read<std::uint16_t>(0x3c, "e_shnum");
  auto shstrndx = r.read<std::uint16_t>(0x3e, "e_shstrndx");
  if (shentsize < 64) r.fail(fmt::format("section header entry size {} is too small", shentsize));
  if (shstrndx >= shnum) r.fail("section name table index out of range");
  if (shoff > data.size() || std::uint64_t(shnum) * shentsize > data.size() - shoff) {
    r.fail(fmt::format("truncated ELF: {} section headers at byte {} lie past the end ({} bytes)", shnum, shoff,
                       data.size()));
  }
  elf.header_bytes = ehsize + (phoff ? std::uint64_t(phentsize) * phnum : 0);
  elf.section_header_size = shentsize;

  std::vector<std::uint32_t> name_index;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::uint64_t at = shoff + std::uint64_t(i) * shentsize;
    r.read<std::uint8_t>(at + shentsize - 1, "section header");
    ElfSection s;
    name_index.push_back(r.read<std::uint32_t>(at, "sh_name"));
    s.type = r.read<std::uint32_t>(at + 4, "sh_type");
    s.offset = r.read<std::uint64_t>(at + 0x18, "sh_offset");
    s.size = r.read<std::uint64_t>(at + 0x20, "sh_size");
    s.link = r.read<std::uint32_t>(at + 0x28, "sh_link");
    s.info = r.read<std::uint32_t>(at + 0x2c, "sh_info");
    s.entsize = r.read<std::uint64_t>(at + 0x38, "sh_entsize");
    if (s.has_file_data() && (s.offset > data.size() || s.size > data.size() - s.offset)) {
      r.fail(fmt::format("truncated ELF: section {} ends at byte {} past the end ({} bytes)", i, s.offset + s.size,
                         data.size()));
    }
    elf.sections.push_back(s);
  }
  const ElfSection strtab = elf.sections[shstrndx];
  for (std::size_t i = 0; i < elf.sections.size(); ++i) {
    elf.sections[i].name = section_name(r, strtab, name_index[i]);
  }
  return elf;
}

std::string_view section_data(const std::string& data, const ElfSection& section) {
  if (!section.has_file_data()) return {};
  return std::string_view(data).substr(section.offset, section.size);
}

int find_section(const ElfFile& elf, const std::string& name) {
  for (std::size_t i = 0; i < elf.sections.size(); ++i) {
    if (elf.sections[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<ElfSymbol> elf_symbols(const std::string& data, const ElfFile& elf, std::size_t symtab,
                                   const std::string& filename) {
  Reader r(data, filename);
  if (symtab >= elf.sections.size()) r.fail(fmt::format("symbol table index {} out of range", symtab));
  const ElfSection& table = elf.sections[symtab];
  constexpr std::uint64_t kSymbolSize = 24;  // Elf64_Sym
  if (!table.has_file_data()) r.fail(fmt::format("{}: symbol table has no data in the file", table.name));
  if (table.link >= elf.sections.size()) r.fail(fmt::format("{}: string table index out of range", table.name));
  const ElfSection& strings = elf.sections[table.link];
  std::vector<ElfSymbol> symbols;
  for (std::uint64_t at = 0; at + kSymbolSize <= table.size; at += kSymbolSize) {
    std::uint64_t base = table.offset + at;
    ElfSymbol sym;
    auto name = r.read<std::uint32_t>(base, "st_name");
    sym.section = r.read<std::uint16_t>(base + 6, "st_shndx");
    sym.value = r.read<std::uint64_t>(base + 8, "st_value");
    if (name < strings.size) sym.name = section_name(r, strings, name);
    symbols.push_back(std::move(sym));
  }
  return symbols;
}

std::uint64_t cubin_bytes_without_debug(const ElfFile& elf) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::uint64_t kept_headers = 0;
  for (const auto& s : elf.sections) {
    if (s.is_debug()) continue;
    kept_headers += elf.section_header_size;
    if (s.has_file_data() && s.size > 0) ranges.emplace_back(s.offset, s.offset + s.size);
  }
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t covered = 0, end = 0;
  for (auto [b, e] : ranges) {
    b = std::max(b, end);
    if (e > b) covered += e - b;
    end = std::max(end, e);
  }
  return elf.header_bytes + kept_headers + covered;
}

std::uint64_t text_bytes(const ElfFile& elf) {
  std::uint64_t total = 0;
  for (const auto& s : elf.sections) {
    if (s.is_text()) total += s.size;
  }
  return total;
}

namespace {

// .nv.info records: a format byte, an attribute byte, then for EIFMT_SVAL (4)
// a 16-bit size and that many bytes of value; every other format is a
// 4-byte record (EIFMT_NVAL 1, EIFMT_BVAL 2, EIFMT_HVAL 3: value in bytes 2-3).
constexpr std::uint8_t kFormatSized = 4;
constexpr std::uint8_t kAttrRequiredThreads = 0x10;  // EIATTR_REQNTID: x, y, z
constexpr std::uint8_t kAttrClusterShape = 0x3d;     // EIATTR_CTA_PER_CLUSTER: x, y, z

void read_dims(const Reader& r, std::uint64_t at, std::uint16_t size, std::uint32_t (&dims)[3]) {
  if (size != 12) r.fail(fmt::format(".nv.info: a launch shape of {} bytes at byte {}, expected 12", size, at));
  for (int i = 0; i < 3; ++i) dims[i] = r.read<std::uint32_t>(at + 4u * static_cast<unsigned>(i), "launch shape");
}

}  // namespace

std::int64_t KernelAttributes::threads_per_block() const {
  return std::int64_t(threads[0]) * std::max(threads[1], 1u) * std::max(threads[2], 1u);
}

std::int64_t KernelAttributes::cluster_size() const {
  if (cluster[0] == 0) return 1;
  return std::int64_t(cluster[0]) * std::max(cluster[1], 1u) * std::max(cluster[2], 1u);
}

KernelAttributes kernel_attributes(const std::string& data, const ElfFile& elf, const std::string& function,
                                   const std::string& filename) {
  KernelAttributes out;
  int index = find_section(elf, ".nv.info." + function);
  if (index < 0) return out;
  const ElfSection& s = elf.sections[static_cast<std::size_t>(index)];
  Reader r(data, filename);
  for (std::uint64_t at = s.offset, end = s.offset + s.size; at < end;) {
    auto format = r.read<std::uint8_t>(at, ".nv.info record");
    auto attribute = r.read<std::uint8_t>(at + 1, ".nv.info record");
    if (format != kFormatSized) {
      at += 4;
      continue;
    }
    auto size = r.read<std::uint16_t>(at + 2, ".nv.info record size");
    if (at + 4 + size > end) r.fail(fmt::format(".nv.info.{}: record at byte {} runs past its section", function, at));
    if (attribute == kAttrRequiredThreads) read_dims(r, at + 4, size, out.threads);
    if (attribute == kAttrClusterShape) read_dims(r, at + 4, size, out.cluster);
    at += 4 + size;
  }
  return out;
}

}  // namespace tileperf
