#include "elf.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "error.h"

namespace tileperf {

namespace {

class Reader {
 public:
  Reader(const std::string& data, const std::string& filename)
      : data_(data), filename_(filename) {}

  template <typename T>
  T read(std::uint64_t offset, const char* what) const {
    if (offset + sizeof(T) > data_.size()) {
      throw InputError(filename_, 0,
                       fmt::format("truncated ELF: {} at byte {} lies past the end ({} bytes)",
                                   what, offset, data_.size()));
    }
    T value;
    std::memcpy(&value, data_.data() + offset, sizeof(T));
    return value;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(filename_, 0, message);
  }

  const std::string& data() const { return data_; }

 private:
  const std::string& data_;
  const std::string& filename_;
};

std::string section_name(const Reader& r, const ElfSection& strtab, std::uint32_t index) {
  if (index >= strtab.size) r.fail(fmt::format("section name offset {} outside .shstrtab", index));
  const char* begin = r.data().data() + strtab.offset + index;
  std::size_t max = strtab.size - index;
  return std::string(begin, strnlen(begin, max));
}

}  // namespace

ElfFile parse_elf(const std::string& data, const std::string& filename) {
  Reader r(data, filename);
  if (data.size() < 64 || std::memcmp(data.data(), "\x7f" "ELF", 4) != 0) {
    r.fail("not an ELF file (bad magic or shorter than an ELF header)");
  }
  if (data[4] != 2 || data[5] != 1) r.fail("not a 64-bit little-endian ELF file");

  ElfFile elf;
  elf.file_size = data.size();
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
    if (s.has_file_data() && s.offset + s.size > data.size()) {
      r.fail(fmt::format("truncated ELF: section {} ends at byte {} past the end ({} bytes)", i,
                         s.offset + s.size, data.size()));
    }
    elf.sections.push_back(s);
  }
  const ElfSection strtab = elf.sections[shstrndx];
  for (std::size_t i = 0; i < elf.sections.size(); ++i) {
    elf.sections[i].name = section_name(r, strtab, name_index[i]);
  }
  return elf;
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

}  // namespace tileperf
