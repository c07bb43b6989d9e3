#include "sass.h"

#include <regex>

#include "error.h"
#include "text.h"

namespace tileperf {

namespace {

const std::regex kCodeFor(R"(^\s*code for (sm_[0-9]+[a-z]?)\s*$)");
const std::regex kFunction(R"(^\s*Function : (\S+)\s*$)");
const std::regex kInstruction(
    R"(^\s*/\*([0-9a-f]+)\*/\s+(@!?[A-Z]*P[T0-9]+\s+)?([A-Z][A-Za-z0-9_.]*)\s*([^;]*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/\s*$)");
const std::regex kControlWord(R"(^\s*/\* 0x[0-9a-f]{16} \*/\s*$)");
const std::regex kEndOfFunction(R"(^\s*\.{10}\s*$)");
// Header lines that carry nothing we measure. Fatbin headers appear when
// cuobjdump reads a fatbinary rather than a plain cubin.
const std::regex kIgnorable(
    R"(^\s*(\.target\s+\S+|\.headerflags\s+.*|Fatbin (elf|ptx) code:|=+|arch = \S+|code version = \S+|host = \S+|compile_size = \S+)\s*$)");

bool is_self_branch(const SassInstruction& insn) {
  if (!insn.predicate.empty() || insn.opcode != "BRA") return false;
  return insn.operands.rfind("0x", 0) == 0 &&
         std::stoull(insn.operands.substr(2), nullptr, 16) == insn.address;
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
      if (!std::regex_match(line, kControlWord)) {
        fail("expected the control word of the instruction above", line);
      }
      awaiting_control_ = false;
      return;
    }
    std::smatch m;
    if (is_blank(line) || std::regex_match(line, kIgnorable)) return;
    if (std::regex_match(line, m, kCodeFor)) return set_arch(m[1], line);
    if (std::regex_match(line, m, kFunction)) return open_function(m[1], line);
    if (std::regex_match(line, kEndOfFunction)) return close_function(line);
    if (std::regex_match(line, m, kInstruction)) return add_instruction(m, line);
    fail("unrecognized line in SASS listing", line);
  }

  SassListing finish() {
    if (awaiting_control_ || in_function_) {
      throw InputError(filename_, lineno_,
                       "listing is truncated: function '" + current_name() +
                           "' has no end marker");
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

  std::string current_name() const {
    return listing_.functions.empty() ? "" : listing_.functions.back().name;
  }

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

  void add_instruction(const std::smatch& m, const std::string& line) {
    if (!in_function_) fail("instruction outside a function", line);
    SassInstruction insn;
    insn.address = std::stoull(m[1], nullptr, 16);
    insn.predicate = trim(m[2].str());
    insn.opcode = m[3];
    insn.operands = m[4];
    insn.line = lineno_;
    listing_.functions.back().instructions.push_back(std::move(insn));
    awaiting_control_ = true;
  }

  std::string filename_;
  int lineno_ = 0;
  bool in_function_ = false;
  bool awaiting_control_ = false;
  SassListing listing_;
};

}  // namespace

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
