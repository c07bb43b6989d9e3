#include "analysis/thread_values.h"

#include <algorithm>
#include <charconv>

#include "analysis/isa.h"
#include "support/text.h"

namespace tileperf {

namespace {

using Values = ThreadValues;

enum class Kind { kNone, kPlain, kUniform, kPredicate, kUniformPredicate };

// "R12", "UR4", "P0", "UP1"; the zero registers and the true predicates
// (RZ, URZ, PT, UPT) are constants, not registers.
Kind register_kind(std::string_view s) {
  auto numbered = [&](std::size_t prefix) {
    return s.size() > prefix && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(prefix), s.end(), is_digit);
  };
  if (s.rfind("UR", 0) == 0) return numbered(2) ? Kind::kUniform : Kind::kNone;
  if (s.rfind("UP", 0) == 0) return numbered(2) ? Kind::kUniformPredicate : Kind::kNone;
  if (s.rfind('R', 0) == 0) return numbered(1) ? Kind::kPlain : Kind::kNone;
  if (s.rfind('P', 0) == 0) return numbered(1) ? Kind::kPredicate : Kind::kNone;
  return Kind::kNone;
}

bool is_predicate(std::string_view s) {
  if (!s.empty() && s[0] == '!') s.remove_prefix(1);
  Kind k = register_kind(s);
  return k == Kind::kPredicate || k == Kind::kUniformPredicate || s == "PT" || s == "UPT";
}

bool is_value_register(std::string_view s) {
  Kind k = register_kind(s);
  return k == Kind::kPlain || k == Kind::kUniform || s == "RZ" || s == "URZ";
}

std::vector<std::string> operand_list(const std::string& operands) {
  std::vector<std::string> out;
  for (auto& part : split(operands, ',')) {
    std::string op = trim(part);
    if (auto dot = op.find(".reuse"); dot != std::string::npos) op.erase(dot);
    out.push_back(op);
  }
  return out;
}

// "0x1f", "31": a 32-bit constant.
std::optional<std::uint32_t> integer_literal(std::string_view s) {
  int base = 10;
  if (s.rfind("0x", 0) == 0) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || v > 0xffffffffu) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

// An operand's value for every thread, when known: a register's, a
// constant's, negated (-R2), inverted (~R2) or a predicate's negation (!P0).
std::optional<Values> operand_values(const ThreadFacts& f, std::string_view text, int threads) {
  char prefix = !text.empty() && (text[0] == '-' || text[0] == '~' || text[0] == '!') ? text[0] : 0;
  if (prefix) text.remove_prefix(1);
  Values v;
  if (text == "RZ" || text == "URZ") {
    v.assign(static_cast<std::size_t>(threads), 0);
  } else if (text == "PT" || text == "UPT") {
    v.assign(static_cast<std::size_t>(threads), 1);
  } else if (register_kind(text) != Kind::kNone) {
    auto it = f.known.find(std::string(text));
    if (it == f.known.end()) return std::nullopt;
    v = it->second;
  } else if (auto c = integer_literal(text)) {
    v.assign(static_cast<std::size_t>(threads), *c);
  } else {
    return std::nullopt;  // a constant bank, memory, a special register, a float
  }
  for (auto& x : v) x = prefix == '-' ? 0u - x : prefix == '~' ? ~x : prefix == '!' ? (x ? 0u : 1u) : x;
  return v;
}

// What one instruction writes that it is evaluated for: register, values.
using Written = std::vector<std::pair<std::string, Values>>;

struct Instruction {
  const ThreadFacts& facts;
  std::string_view opcode;
  std::vector<std::string> ops;
  std::size_t first_source = 0;  // the operands before it are destinations
  int threads = 0;

  std::string_view base() const { return base_opcode(opcode); }
  bool has(std::string_view modifier) const { return has_modifier(opcode, modifier); }
  std::size_t sources() const { return ops.size() - first_source; }
  std::optional<Values> source(std::size_t k) const {
    if (first_source + k >= ops.size()) return std::nullopt;
    return operand_values(facts, ops[first_source + k], threads);
  }
  // The values of f(a, b, c) over the first `n` sources, when all are known.
  template <typename F>
  std::optional<Values> map(std::size_t n, F f) const {
    std::vector<Values> in;
    for (std::size_t k = 0; k < n; ++k) {
      auto v = source(k);
      if (!v) return std::nullopt;
      in.push_back(std::move(*v));
    }
    in.resize(3, Values(static_cast<std::size_t>(threads), 0));
    Values out(static_cast<std::size_t>(threads));
    for (std::size_t t = 0; t < out.size(); ++t) out[t] = f(in[0][t], in[1][t], in[2][t]);
    return out;
  }
};

// The operands an instruction may write: its leading predicates, then
// (unless it writes predicates only) its first register and the predicates
// right after it (IADD3 R0, P0, PT, ...: the carries).
std::size_t destination_count(std::string_view opcode, const std::vector<std::string>& ops) {
  std::string_view base = base_opcode(opcode);
  bool predicates_only = base.find("SETP") != std::string_view::npos || base == "PLOP3" || base == "UPLOP3";
  if (predicates_only) return std::min<std::size_t>(ops.size(), 2);
  if (base == "VOTE" || base == "VOTEU") return std::min<std::size_t>(ops.size(), 2);  // d, p, then the source
  std::size_t i = 0;
  while (i < ops.size() && is_predicate(ops[i])) ++i;
  if (i < ops.size() && is_value_register(ops[i])) {
    ++i;
    while (i < ops.size() && is_predicate(ops[i])) ++i;
  }
  return i;
}

// The registers of a tensor-core instruction's accumulators, from its
// shape: a warpgroup's (HGMMA.64x128x16.F32: 64 x 128 over 128 threads) or
// a warp's (HMMA.16816.F32, QMMA.SF.16832.F32: 16 x 8 over 32 threads),
// half as many of 16-bit values; 0 when the opcode gives no shape.
int accumulator_registers(std::string_view opcode) {
  auto parts = split(opcode, '.');
  std::size_t at = parts.size() > 1 && parts[1] == "SF" ? 2 : 1;
  if (parts.size() <= at + 1) return 0;
  const std::string& shape = parts[at];
  bool half = parts[at + 1] == "F16";
  int values = 0;
  if (auto x = shape.find('x'); x != std::string::npos) {
    auto y = shape.find('x', x + 1);
    auto m = parse_count(shape.substr(0, x), 256), n = parse_count(shape.substr(x + 1, y - x - 1), 256);
    if (m && n) values = static_cast<int>(*m * *n / 128);
  } else if (!shape.empty() && is_digit(shape[0])) {
    values = (shape.rfind("16", 0) == 0 ? 16 : 8) * 8 / 32;
  }
  return half ? values / 2 : values;
}

// How many consecutive registers a register destination covers (R4 of a
// 128-bit load: R4 to R7); 0: every register from it on (a tensor-core
// instruction whose accumulators its opcode does not size).
int written_width(std::string_view opcode) {
  OpClass c = op_class(opcode);
  if (c == OpClass::kTensor) return accumulator_registers(opcode);
  if (has_modifier(opcode, "256")) return 8;
  if (has_modifier(opcode, "128")) return 4;
  if (has_modifier(opcode, "64") || has_modifier(opcode, "WIDE")) return 2;
  std::string_view base = base_opcode(opcode);
  if ((base == "LDSM" || base == "LDTM") && has_modifier(opcode, "4")) return 4;
  if ((base == "LDSM" || base == "LDTM") && has_modifier(opcode, "2")) return 2;
  if (base == "CS2R" && !has_modifier(opcode, "32")) return 2;
  if (c == OpClass::kFp64 || c == OpClass::kConvert64) return 2;
  return 1;
}

std::uint32_t lut3(std::uint32_t lut, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t out = 0;
  for (int bit = 0; bit < 32; ++bit) {
    std::uint32_t index = ((a >> bit & 1u) << 2) | ((b >> bit & 1u) << 1) | (c >> bit & 1u);
    out |= (lut >> index & 1u) << bit;
  }
  return out;
}

// SHF.{L,R}.{U32,S32,U64,S64}[.HI] d, lo, shift, hi: the 64-bit funnel
// hi:lo shifted, its low word (or its high word with .HI).
std::optional<Values> funnel_shift(const Instruction& in) {
  bool left = in.has("L"), high = in.has("HI"), sign = in.has("S32") || in.has("S64");
  return in.map(3, [=](std::uint32_t lo, std::uint32_t by, std::uint32_t hi) {
    std::uint64_t x = (std::uint64_t(hi) << 32) | lo;
    unsigned s = std::min<std::uint32_t>(by, 63);
    std::uint64_t r = left ? x << s : sign ? static_cast<std::uint64_t>(static_cast<std::int64_t>(x) >> s) : x >> s;
    return static_cast<std::uint32_t>(high ? r >> 32 : r);
  });
}

bool compare(std::string_view opcode, std::uint32_t a, std::uint32_t b) {
  bool u = has_modifier(opcode, "U32");
  auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
  if (has_modifier(opcode, "LT")) return u ? a < b : sa < sb;
  if (has_modifier(opcode, "LE")) return u ? a <= b : sa <= sb;
  if (has_modifier(opcode, "GT")) return u ? a > b : sa > sb;
  if (has_modifier(opcode, "GE")) return u ? a >= b : sa >= sb;
  if (has_modifier(opcode, "EQ")) return a == b;
  if (has_modifier(opcode, "NE")) return a != b;
  return false;
}

std::uint32_t boolean_op(std::string_view opcode, std::uint32_t x, std::uint32_t p) {
  if (has_modifier(opcode, "OR")) return x | p;
  if (has_modifier(opcode, "XOR")) return x ^ p;
  return x & p;
}

// ISETP.cmp[.U32].bop P, Q, a, b, c: P = (a cmp b) bop c, Q = !(a cmp b) bop c.
Written integer_compare(const Instruction& in) {
  if (in.has("EX") || in.ops.size() != 5 || in.first_source != 2) return {};
  auto a = in.source(0), b = in.source(1), c = in.source(2);
  if (!a || !b || !c) return {};
  Values p(a->size()), q(a->size());
  for (std::size_t t = 0; t < p.size(); ++t) {
    std::uint32_t x = compare(in.opcode, (*a)[t], (*b)[t]) ? 1u : 0u;
    p[t] = boolean_op(in.opcode, x, (*c)[t]);
    q[t] = boolean_op(in.opcode, 1u - x, (*c)[t]);
  }
  return {{in.ops[0], p}, {in.ops[1], q}};
}

// PLOP3.LUT P, Q, a, b, c, lut, lut2: P = lut(a, b, c) (Q is not evaluated).
Written predicate_logic(const Instruction& in) {
  if (in.ops.size() != 7 || in.first_source != 2) return {};
  auto lut = integer_literal(in.ops[5]);
  if (!lut) return {};
  auto p = in.map(3, [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) { return lut3(*lut, a, b, c) & 1u; });
  if (!p) return {};
  return {{in.ops[0], *p}};
}

// LOP3.LUT [P,] d, a, b, c, lut, !PT: d = lut(a, b, c) bit by bit; P: d != 0.
Written bitwise_logic(const Instruction& in) {
  if (in.sources() != 5 || (in.ops.back() != "!PT" && in.ops.back() != "!UPT")) return {};
  auto lut = integer_literal(in.ops[in.first_source + 3]);
  if (!lut) return {};
  auto d = in.map(3, [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) { return lut3(*lut, a, b, c); });
  if (!d) return {};
  Written out;
  for (std::size_t k = 0; k < in.first_source; ++k) {
    if (is_value_register(in.ops[k])) {
      out.push_back({in.ops[k], *d});
    } else if (k == 0) {
      Values p(d->size());
      for (std::size_t t = 0; t < p.size(); ++t) p[t] = (*d)[t] != 0;
      out.push_back({in.ops[k], p});
    }
  }
  return out;
}

// R2UR: a plain register's value is the warp's when every lane holds the
// same (the compiler moves only such values); not known otherwise.
std::optional<Values> to_uniform(const Instruction& in) {
  auto v = in.source(0);
  if (!v) return std::nullopt;
  for (std::size_t t = 0; t < v->size(); ++t) {
    if ((*v)[t] != (*v)[t - t % 32]) return std::nullopt;
  }
  return v;
}

// The value an arithmetic or move instruction writes to its register
// destination, when evaluated: integer adds and multiply-adds, shifts,
// selects, moves between plain and uniform registers, the thread index.
std::optional<Values> register_result(const Instruction& in) {
  std::string_view b = in.base();
  auto add = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) { return x + y + z; };
  if (b == "S2R" && in.sources() == 1 && in.ops.back() == "SR_TID.X") {
    Values v(static_cast<std::size_t>(in.threads));
    for (std::size_t t = 0; t < v.size(); ++t) v[t] = static_cast<std::uint32_t>(t);
    return v;
  }
  if (b == "R2UR") return in.sources() == 1 ? to_uniform(in) : std::nullopt;
  if (b == "MOV" || b == "UMOV" || b == "MOV32I") return in.sources() >= 1 ? in.source(0) : std::nullopt;
  if ((b == "IMAD" || b == "UIMAD") && !in.has("HI") && !in.has("WIDE") && !in.has("X") && in.sources() == 3)
    return in.map(3, [](std::uint32_t x, std::uint32_t y, std::uint32_t z) { return x * y + z; });
  if ((b == "IADD3" || b == "UIADD3") && !in.has("X") && in.sources() == 3) return in.map(3, add);
  if ((b == "VIADD" || (b == "IADD" && !in.has("64"))) && in.sources() == 2) return in.map(2, add);
  if ((b == "SHF" || b == "USHF") && in.sources() == 3) return funnel_shift(in);
  if ((b == "LEA" || b == "ULEA") && !in.has("HI") && in.sources() == 3)
    return in.map(3, [](std::uint32_t x, std::uint32_t y, std::uint32_t s) { return (x << (s & 31)) + y; });
  if ((b == "SEL" || b == "USEL") && in.sources() == 3)
    return in.map(3, [](std::uint32_t x, std::uint32_t y, std::uint32_t p) { return p ? x : y; });
  return std::nullopt;
}

Written evaluate(const Instruction& in) {
  std::string_view b = in.base();
  if (b == "ISETP" || b == "UISETP") return integer_compare(in);
  if (b == "PLOP3" || b == "UPLOP3") return predicate_logic(in);
  if (b == "LOP3" || b == "ULOP3") return bitwise_logic(in);
  if (in.first_source == 0 || !is_value_register(in.ops[0])) return {};
  if (auto v = register_result(in)) return {{in.ops[0], std::move(*v)}};
  return {};
}

// Forgets `reg` and, for a register of `width` (0: every one from it on),
// those it covers.
void forget(ThreadFacts& f, const std::string& reg, int width) {
  Kind kind = register_kind(reg);
  if (kind != Kind::kPlain && kind != Kind::kUniform) {
    f.known.erase(reg);
    return;
  }
  std::size_t prefix = kind == Kind::kUniform ? 2 : 1;
  int first = std::stoi(reg.substr(prefix));
  for (auto it = f.known.begin(); it != f.known.end();) {
    bool same_file = register_kind(it->first) == kind;
    int n = same_file ? std::stoi(it->first.substr(prefix)) : -1;
    bool covered = same_file && n >= first && (width == 0 || n < first + width);
    it = covered ? f.known.erase(it) : std::next(it);
  }
}

}  // namespace

std::optional<ThreadValues> predicate_values(const ThreadFacts& facts, std::string_view operand, int threads) {
  if (!is_predicate(operand)) return std::nullopt;
  return operand_values(facts, operand, threads);
}

void apply_instruction(ThreadFacts& f, const SassInstruction& insn, int threads) {
  if (never_executes(insn)) return;
  Instruction in{f, insn.opcode, operand_list(insn.operands), 0, threads};
  in.first_source = destination_count(insn.opcode, in.ops);
  Written written = evaluate(in);
  std::optional<Values> guard;
  if (!always_executes(insn)) guard = predicate_values(f, std::string_view(insn.predicate).substr(1), threads);
  for (std::size_t k = 0; k < in.first_source; ++k) {
    const std::string& reg = in.ops[k];
    if (register_kind(reg) == Kind::kNone) continue;  // RZ, PT: discarded
    auto old = f.known.find(reg);
    std::optional<Values> before = old == f.known.end() ? std::nullopt : std::optional<Values>(old->second);
    forget(f, reg, is_value_register(reg) ? written_width(insn.opcode) : 1);
    auto result = std::find_if(written.begin(), written.end(), [&](const auto& w) { return w.first == reg; });
    if (result == written.end()) continue;
    if (always_executes(insn)) {
      f.known[reg] = result->second;
    } else if (guard && before) {  // a predicated write: the old value where the guard fails
      Values merged = *before;
      for (std::size_t t = 0; t < merged.size(); ++t) merged[t] = (*guard)[t] ? result->second[t] : merged[t];
      f.known[reg] = std::move(merged);
    }
  }
}

bool may_write(const SassInstruction& insn, std::string_view reg) {
  if (never_executes(insn)) return false;
  ThreadFacts f;
  f.known[std::string(reg)] = Values(32, 0);
  auto ops = operand_list(insn.operands);
  std::size_t n = destination_count(insn.opcode, ops);
  for (std::size_t k = 0; k < n; ++k) {
    if (register_kind(ops[k]) != Kind::kNone)
      forget(f, ops[k], is_value_register(ops[k]) ? written_width(insn.opcode) : 1);
  }
  return f.known.empty();
}

ThreadFacts meet(const ThreadFacts& a, const ThreadFacts& b) {
  ThreadFacts out;
  for (const auto& [reg, values] : a.known) {
    auto it = b.known.find(reg);
    if (it != b.known.end() && it->second == values) out.known[reg] = values;
  }
  return out;
}

}  // namespace tileperf
