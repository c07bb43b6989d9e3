#include "readers/sass.h"

#include <cctype>
#include <optional>
#include <string_view>

#include "support/error.h"
#include "support/text.h"

namespace tileperf {

namespace {

// A left-to-right reader of one listing line. Every method either consumes
// what it looks for and returns true (or a value), or leaves the position.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ == s_.size();
  }
  bool literal(std::string_view text) {
    if (s_.substr(pos_, text.size()) != text) return false;
    pos_ += text.size();
    return true;
  }
  // Hexadecimal digits (at least one, at most `max`), as a number.
  std::optional<std::uint64_t> hex(std::size_t max = 16) {
    std::size_t begin = pos_;
    std::uint64_t value = 0;
    while (pos_ < s_.size() && pos_ - begin < max && std::isxdigit(static_cast<unsigned char>(s_[pos_]))) {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos_++])));
      value = value * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    if (pos_ == begin) return std::nullopt;
    return value;
  }
  // A run of characters for which `pred` holds.
  template <typename Pred>
  std::string_view take_while(Pred pred) {
    std::size_t begin = pos_;
    while (pos_ < s_.size() && pred(s_[pos_])) ++pos_;
    return s_.substr(begin, pos_ - begin);
  }
  std::string_view rest() const { return s_.substr(pos_); }
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
};

bool is_opcode_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// "/* 0x<16 hex digits> */" at the scanner's position, as a number.
std::optional<std::uint64_t> encoding_word(Scanner& s) {
  s.skip_space();
  if (!s.literal("/*")) return std::nullopt;
  s.skip_space();
  if (!s.literal("0x")) return std::nullopt;
  std::size_t begin = s.pos();
  auto word = s.hex(16);
  if (!word || s.pos() - begin != 16) return std::nullopt;
  s.skip_space();
  if (!s.literal("*/")) return std::nullopt;
  return word;
}

// A line that is nothing but an encoding word: the control word of the
// instruction on the line before.
std::optional<std::uint64_t> control_word_line(std::string_view line) {
  Scanner s(line);
  auto word = encoding_word(s);
  if (!word || !s.at_end()) return std::nullopt;
  return word;
}

// "/*0040*/  @!P0 BRA 0x300 ;  /* 0x... */": address, predicate, opcode,
// operands and the first encoding word.
std::optional<SassInstruction> instruction_line(std::string_view line) {
  Scanner s(line);
  s.skip_space();
  SassInstruction insn;
  if (!s.literal("/*")) return std::nullopt;
  auto address = s.hex();
  if (!address || !s.literal("*/")) return std::nullopt;
  insn.address = *address;
  s.skip_space();
  if (s.rest().substr(0, 1) == "@") {
    insn.predicate = std::string(s.take_while([](char c) { return c != ' ' && c != '\t'; }));
    s.skip_space();
  }
  if (s.rest().empty() || !std::isupper(static_cast<unsigned char>(s.rest()[0]))) return std::nullopt;
  insn.opcode = std::string(s.take_while(is_opcode_char));
  std::string_view tail = s.rest();
  auto semicolon = tail.rfind(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  insn.operands = trim(tail.substr(0, semicolon));
  if (insn.operands.find(';') != std::string::npos) return std::nullopt;
  Scanner after(tail.substr(semicolon + 1));
  auto word = encoding_word(after);
  if (!word || !after.at_end()) return std::nullopt;
  insn.low_word = *word;
  return insn;
}

bool is_predicate(std::string_view p) {
  // @P0, @!P0, @PT, @!PT, @UP0, @!UPT
  Scanner s(p);
  if (!s.literal("@")) return false;
  s.literal("!");
  s.literal("U");
  if (!s.literal("P")) return false;
  if (s.literal("T")) return s.at_end();
  return s.hex(1) && s.at_end();
}

// "code for sm_90a": the architecture, or nothing.
std::optional<std::string> code_for_line(std::string_view line) {
  std::string t = trim(line);
  constexpr std::string_view kPrefix = "code for ";
  if (t.rfind(kPrefix, 0) != 0) return std::nullopt;
  std::string arch = t.substr(kPrefix.size());
  Scanner s(arch);
  if (!s.literal("sm_")) return std::nullopt;
  if (s.take_while([](char c) { return std::isdigit(static_cast<unsigned char>(c)); }).empty()) {
    return std::nullopt;
  }
  s.take_while([](char c) { return std::islower(static_cast<unsigned char>(c)); });
  if (!s.rest().empty()) return std::nullopt;
  return arch;
}

std::optional<std::string> function_line(std::string_view line) {
  std::string t = trim(line);
  constexpr std::string_view kPrefix = "Function : ";
  if (t.rfind(kPrefix, 0) != 0) return std::nullopt;
  std::string name = t.substr(kPrefix.size());
  if (name.empty() || name.find_first_of(" \t") != std::string::npos) return std::nullopt;
  return name;
}

bool end_of_function_line(std::string_view line) { return trim(line) == ".........."; }

// Header lines that carry nothing we measure. Fatbin headers appear when
// cuobjdump reads a fatbinary rather than a plain cubin.
bool ignorable_line(std::string_view line) {
  std::string t = trim(line);
  if (t.empty()) return true;
  for (std::string_view prefix :
       {".target", ".headerflags", "arch = ", "code version = ", "host = ", "compile_size = "}) {
    if (t.rfind(prefix, 0) == 0) return true;
  }
  if (t == "Fatbin elf code:" || t == "Fatbin ptx code:") return true;
  return t.find_first_not_of('=') == std::string::npos;
}

bool is_self_branch(const SassInstruction& insn) {
  if (!insn.predicate.empty() || insn.opcode != "BRA") return false;
  Scanner s(insn.operands);
  if (!s.literal("0x")) return false;
  auto target = s.hex();
  return target && s.at_end() && *target == insn.address;
}

std::size_t find_padding(const std::vector<SassInstruction>& insns) {
  std::size_t end = insns.size();
  while (end > 0 && insns[end - 1].opcode == "NOP") --end;
  if (end > 0 && is_self_branch(insns[end - 1])) return end - 1;
  return insns.size();  // no recognizable padding: count every slot
}

class SassParser {
 public:
  explicit SassParser(const std::string& filename) : filename_(filename) {}

  void feed(const std::string& line) {
    ++lineno_;
    if (awaiting_control_) {
      auto word = control_word_line(line);
      if (!word) fail("expected the control word of the instruction above", line);
      auto& insn = listing_.functions.back().instructions.back();
      insn.high_word = *word;
      insn.control = decode_control(*word);
      awaiting_control_ = false;
      return;
    }
    if (ignorable_line(line)) return;
    if (auto arch = code_for_line(line)) return set_arch(*arch, line);
    if (auto name = function_line(line)) return open_function(*name, line);
    if (end_of_function_line(line)) return close_function(line);
    if (auto insn = instruction_line(line)) return add_instruction(std::move(*insn), line);
    fail("unrecognized line in SASS listing", line);
  }

  SassListing finish() {
    if (awaiting_control_ || in_function_) {
      throw InputError(filename_, lineno_, "listing is truncated: function '" + current_name() + "' has no end marker");
    }
    if (listing_.functions.empty()) {
      throw InputError(filename_, lineno_, "no functions in SASS listing");
    }
    return std::move(listing_);
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& line) {
    throw InputError(filename_, lineno_, what, line);
  }

  std::string current_name() const { return listing_.functions.empty() ? "" : listing_.functions.back().name; }

  void set_arch(const std::string& arch, const std::string& line) {
    if (!listing_.arch.empty() && listing_.arch != arch) {
      fail("listing mixes architectures " + listing_.arch + " and " + arch, line);
    }
    listing_.arch = arch;
  }

  void open_function(const std::string& name, const std::string& line) {
    if (in_function_) fail("function '" + current_name() + "' has no end marker", line);
    if (listing_.arch.empty()) fail("function listed before 'code for sm_XX'", line);
    listing_.functions.push_back(SassFunction{name, {}, 0});
    in_function_ = true;
  }

  void close_function(const std::string& line) {
    if (!in_function_) fail("end marker outside a function", line);
    auto& fn = listing_.functions.back();
    fn.padding_begin = find_padding(fn.instructions);
    in_function_ = false;
  }

  void add_instruction(SassInstruction insn, const std::string& line) {
    if (!in_function_) fail("instruction outside a function", line);
    if (!insn.predicate.empty() && !is_predicate(insn.predicate)) {
      fail("unrecognized predicate '" + insn.predicate + "'", line);
    }
    auto& insns = listing_.functions.back().instructions;
    if (!insns.empty() && insn.address <= insns.back().address) {
      fail("instruction address does not follow the one before", line);
    }
    insn.line = lineno_;
    insns.push_back(std::move(insn));
    awaiting_control_ = true;
  }

  std::string filename_;
  int lineno_ = 0;
  bool in_function_ = false;
  bool awaiting_control_ = false;
  SassListing listing_;
};

}  // namespace

ControlCode decode_control(std::uint64_t high_word) {
  // Bits 105..125 of the instruction: stall (4 bits), yield (1), write
  // scoreboard (3), read scoreboard (3), wait mask (6), reuse (4). The yield
  // bit is stored inverted, and scoreboard 7 means "none".
  std::uint64_t c = high_word >> 41;
  ControlCode code;
  code.stall = static_cast<int>(c & 0xf);
  code.yield = ((c >> 4) & 1) == 0;
  int write = static_cast<int>((c >> 5) & 7);
  int read = static_cast<int>((c >> 8) & 7);
  code.write_scoreboard = write == 7 ? -1 : write;
  code.read_scoreboard = read == 7 ? -1 : read;
  code.wait_mask = static_cast<unsigned>((c >> 11) & 0x3f);
  code.reuse = static_cast<unsigned>((c >> 17) & 0xf);
  return code;
}

SassListing parse_sass(std::istream& in, const std::string& filename) {
  SassParser parser(filename);
  std::string line;
  while (std::getline(in, line)) parser.feed(line);
  return parser.finish();
}

SassCounts count_sass(const SassListing& listing) {
  SassCounts counts;
  for (const auto& fn : listing.functions) {
    counts.padding += fn.instructions.size() - fn.padding_begin;
    for (std::size_t i = 0; i < fn.padding_begin; ++i) {
      const std::string& op = fn.instructions[i].opcode;
      ++counts.instructions;
      ++counts.opcodes[op];
      if (op.rfind("MUFU.", 0) == 0) {
        ++counts.mufu[op.substr(5, op.find('.', 5) - 5)];
      }
    }
  }
  return counts;
}

}  // namespace tileperf
