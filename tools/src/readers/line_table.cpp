#include "readers/line_table.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "support/error.h"

namespace tileperf {

namespace {

constexpr std::uint32_t kSectionRela = 4;  // SHT_RELA

// Bounds-checked little-endian reads from one section's bytes.
class ByteReader {
 public:
  ByteReader(std::string_view bytes, const std::string& filename) : bytes_(bytes), filename_(filename) {}

  std::size_t pos() const { return pos_; }
  std::size_t left() const { return bytes_.size() - std::min(pos_, bytes_.size()); }
  bool at_end() const { return pos_ >= bytes_.size(); }
  void seek(std::size_t pos) {
    if (pos > bytes_.size()) fail("offset past the end of the section");
    pos_ = pos;
  }

  std::uint64_t fixed(int size) {
    need(static_cast<std::size_t>(size));
    std::uint64_t v = 0;
    for (int i = size - 1; i >= 0; --i)
      v = v << 8 | static_cast<unsigned char>(bytes_[pos_ + static_cast<std::size_t>(i)]);
    pos_ += static_cast<std::size_t>(size);
    return v;
  }
  std::uint8_t u8() { return static_cast<std::uint8_t>(fixed(1)); }
  std::uint64_t uleb() {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 63) fail("LEB128 number too long");
      std::uint8_t b = u8();
      v |= std::uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  std::int64_t sleb() {
    std::uint64_t v = 0;
    int shift = 0;
    std::uint8_t b = 0;
    do {
      if (shift > 63) fail("LEB128 number too long");
      b = u8();
      v |= std::uint64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~std::uint64_t(0) << shift;
    return static_cast<std::int64_t>(v);
  }
  // `length` more bytes must lie in the section: the offset after them.
  std::size_t span(std::uint64_t length, const char* what) {
    if (length > left()) fail(std::string(what) + " runs past the end of the section");
    return pos_ + static_cast<std::size_t>(length);
  }
  std::string cstring() {
    auto end = bytes_.find('\0', pos_);
    if (end == std::string_view::npos) fail("string runs past the end of the section");
    std::string s(bytes_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(filename_, 0, fmt::format(".debug_line: {} (at byte {})", what, pos_));
  }

 private:
  void need(std::size_t n) {
    if (pos_ > bytes_.size() || n > bytes_.size() - pos_) fail("truncated");
  }
  std::string_view bytes_;
  const std::string& filename_;
  std::size_t pos_ = 0;
};

// Where each address operand of .debug_line points: offset in the section ->
// (function, address), from the relocations against .text.<function>.
std::map<std::uint64_t, std::pair<std::string, std::uint64_t>> relocated_addresses(const std::string& cubin,
                                                                                   const ElfFile& elf, int debug_line,
                                                                                   const std::string& filename) {
  std::map<std::uint64_t, std::pair<std::string, std::uint64_t>> out;
  std::map<std::uint32_t, std::vector<ElfSymbol>> tables;  // read once per symbol table
  for (const auto& rela : elf.sections) {
    if (rela.type != kSectionRela || rela.info != static_cast<std::uint32_t>(debug_line)) continue;
    if (!tables.count(rela.link)) tables[rela.link] = elf_symbols(cubin, elf, rela.link, filename);
    const auto& symbols = tables[rela.link];
    ByteReader r(section_data(cubin, rela), filename);
    while (!r.at_end()) {
      std::uint64_t offset = r.fixed(8), info = r.fixed(8);
      auto addend = static_cast<std::int64_t>(r.fixed(8));
      std::uint64_t sym = info >> 32;
      if (sym >= symbols.size()) continue;
      std::uint16_t shndx = symbols[sym].section;
      if (shndx >= elf.sections.size()) continue;
      const std::string& section = elf.sections[shndx].name;
      if (section.rfind(".text.", 0) != 0) continue;
      out[offset] = {section.substr(6), symbols[sym].value + static_cast<std::uint64_t>(addend)};
    }
  }
  return out;
}

struct Header {
  std::uint64_t end = 0;  // offset of the next unit
  int address_size = 8;
  std::uint8_t min_instruction_length = 1, line_range = 1, opcode_base = 1;
  std::int8_t line_base = 0;
  std::vector<std::uint8_t> opcode_lengths;
  std::vector<int> file_ids;  // file number (1-based) -> index into LineTable::files
};

Header read_header(ByteReader& r, LineTable& table) {
  Header h;
  std::uint64_t length = r.fixed(4);
  int offset_size = 4;
  if (length == 0xffffffff) {
    length = r.fixed(8);
    offset_size = 8;
  }
  h.end = r.span(length, "unit");
  auto version = r.fixed(2);
  if (version < 2 || version > 4) r.fail(fmt::format("unsupported DWARF line table version {}", version));
  std::uint64_t header_length = r.fixed(offset_size);
  std::size_t program = r.span(header_length, "header");
  h.min_instruction_length = r.u8();
  if (version >= 4) r.u8();  // maximum operations per instruction
  r.u8();                    // default is_stmt
  h.line_base = static_cast<std::int8_t>(r.u8());
  h.line_range = r.u8();
  h.opcode_base = r.u8();
  if (h.line_range == 0) r.fail("line_range is 0");
  for (int i = 1; i < h.opcode_base; ++i) h.opcode_lengths.push_back(r.u8());
  std::vector<std::string> dirs{""};
  for (std::string d = r.cstring(); !d.empty(); d = r.cstring()) dirs.push_back(d);
  h.file_ids.push_back(-1);  // file numbers start at 1
  for (std::string name = r.cstring(); !name.empty(); name = r.cstring()) {
    std::uint64_t dir = r.uleb();
    r.uleb();  // modification time
    r.uleb();  // length
    std::string path = name;
    if (!name.empty() && name[0] != '/' && dir < dirs.size() && !dirs[dir].empty()) {
      path = dirs[dir] + "/" + name;
    }
    h.file_ids.push_back(static_cast<int>(table.files.size()));
    table.files.push_back(path);
  }
  r.seek(program);
  return h;
}

struct Registers {  // the line-number program's state machine
  std::string function;
  std::uint64_t address = 0;
  std::uint64_t file = 1;
  std::int64_t line = 1;
  std::uint64_t inlined_at = 0;  // 1-based row of the call site; 0: not inlined
};

// tileiras's extended opcode that sets the row a line is inlined at.
constexpr std::uint8_t kInlinedAt = 0x90;

// The rows of one line-number program in the order it emits them (the call
// sites' numbering), each with its call.
struct Emitted {
  std::vector<LineTable::Row> rows;
  std::map<std::uint64_t, int> call_of_row;  // 1-based row -> index into LineTable::calls
};

// The call that row `at` (1-based) of the program stands for: its file and
// line, inlined itself where that row is.
int call_of(LineTable& table, Emitted& emitted, std::uint64_t at) {
  if (at == 0 || at > emitted.rows.size()) return -1;
  auto [it, added] = emitted.call_of_row.try_emplace(at, static_cast<int>(table.calls.size()));
  if (added) {
    const auto& row = emitted.rows[at - 1];
    table.calls.push_back(LineTable::Call{row.file, row.line, row.call});
  }
  return it->second;
}

// Line arithmetic of a malformed table wraps rather than overflows.
std::int64_t add_line(std::int64_t line, std::int64_t delta) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(line) + static_cast<std::uint64_t>(delta));
}

void emit(LineTable& table, Emitted& emitted, const Header& h, const Registers& s, bool end_of_sequence) {
  int file = end_of_sequence ? -1 : (s.file < h.file_ids.size() ? h.file_ids[s.file] : -1);
  LineTable::Row row{s.address, file, static_cast<int>(s.line), call_of(table, emitted, s.inlined_at)};
  emitted.rows.push_back(row);
  if (!s.function.empty()) table.rows[s.function].push_back(row);
}

void run_program(ByteReader& r, const Header& h, LineTable& table,
                 const std::map<std::uint64_t, std::pair<std::string, std::uint64_t>>& relocated,
                 const std::string& only_function) {
  Registers s{only_function};
  Emitted emitted;
  while (r.pos() < h.end) {
    std::uint8_t op = r.u8();
    if (op >= h.opcode_base) {
      int adjusted = op - h.opcode_base;
      s.address += std::uint64_t(adjusted / h.line_range) * h.min_instruction_length;
      s.line = add_line(s.line, h.line_base + adjusted % h.line_range);
      emit(table, emitted, h, s, false);
      continue;
    }
    switch (op) {
      case 0: {  // extended opcode
        std::uint64_t length = r.uleb();
        std::size_t next = r.span(length, "extended opcode");
        std::uint8_t sub = length ? r.u8() : 0;
        if (sub == 1) {  // end_sequence
          emit(table, emitted, h, s, true);
          s = Registers{only_function};
        } else if (sub == 2) {  // set_address
          std::size_t at = r.pos();
          s.address = r.fixed(static_cast<int>(std::min<std::uint64_t>(length - 1, 8)));
          auto it = relocated.find(at);
          if (it != relocated.end()) std::tie(s.function, s.address) = it->second;
        } else if (sub == kInlinedAt && r.pos() < next) {
          s.inlined_at = r.uleb();
        }
        r.seek(next);
        break;
      }
      case 1:
        emit(table, emitted, h, s, false);
        break;  // copy
      case 2:
        s.address += r.uleb() * h.min_instruction_length;
        break;
      case 3:
        s.line = add_line(s.line, r.sleb());
        break;
      case 4:
        s.file = r.uleb();
        break;
      case 5:
        r.uleb();
        break;  // column
      case 6:
      case 7:
        break;  // negate_stmt, basic_block
      case 8:
        s.address += std::uint64_t((255 - h.opcode_base) / h.line_range) * h.min_instruction_length;
        break;
      case 9:
        s.address += r.fixed(2);
        break;
      default:
        for (int i = 0; i < h.opcode_lengths[static_cast<std::size_t>(op - 1)]; ++i) r.uleb();
    }
  }
}

}  // namespace

std::optional<SourceLine> LineTable::find(const std::string& function, std::uint64_t address) const {
  auto it = rows.find(function);
  if (it == rows.end()) return std::nullopt;
  const auto& v = it->second;
  auto after =
      std::upper_bound(v.begin(), v.end(), address, [](std::uint64_t a, const Row& r) { return a < r.address; });
  if (after == v.begin()) return std::nullopt;
  const Row& row = *std::prev(after);
  if (row.file < 0 || static_cast<std::size_t>(row.file) >= files.size()) return std::nullopt;
  SourceLine out{files[static_cast<std::size_t>(row.file)], row.line, {}};
  // A malformed table could make a cycle of calls: at most one step per call.
  for (int c = row.call, steps = 0;
       c >= 0 && static_cast<std::size_t>(c) < calls.size() && steps < static_cast<int>(calls.size());
       c = calls[static_cast<std::size_t>(c)].parent, ++steps) {
    const Call& call = calls[static_cast<std::size_t>(c)];
    if (call.file >= 0 && static_cast<std::size_t>(call.file) < files.size()) {
      out.calls.emplace_back(files[static_cast<std::size_t>(call.file)], call.line);
    }
  }
  return out;
}

LineTable read_line_table(const std::string& cubin, const ElfFile& elf, const std::string& filename) {
  LineTable table;
  int index = find_section(elf, ".debug_line");
  if (index < 0) return table;
  auto relocated = relocated_addresses(cubin, elf, index, filename);
  // Without relocations, a cubin of one function still says which one.
  std::string only_function;
  int texts = 0;
  for (const auto& s : elf.sections) {
    if (s.name.rfind(".text.", 0) == 0) {
      ++texts;
      only_function = s.name.substr(6);
    }
  }
  if (texts != 1) only_function.clear();
  ByteReader r(section_data(cubin, elf.sections[static_cast<std::size_t>(index)]), filename);
  while (!r.at_end()) {
    Header h = read_header(r, table);
    run_program(r, h, table, relocated, only_function);
    r.seek(h.end);
  }
  for (auto& [fn, rows] : table.rows) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const LineTable::Row& a, const LineTable::Row& b) { return a.address < b.address; });
  }
  return table;
}

}  // namespace tileperf
