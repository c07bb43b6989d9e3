#include "model/scalar_ranges.h"

#include <algorithm>
#include <optional>
#include <string>

namespace tileperf {

namespace {

struct Span {
  Int128 lo = 0, hi = 0;
};

// The signed span of a number or a range of `bits` bits (kept sign-extended).
std::optional<Span> span_of(const Val& v, int bits) {
  if (v.kind == Val::kInt) {
    Int128 s = as_signed(v.i, bits);
    return Span{s, s};
  }
  if (v.kind == Val::kRange) return Span{v.i, v.hi};
  return std::nullopt;
}

// q = a / d rounded as the operation says (toward zero by default).
Int128 divided(Int128 a, Int128 d, const std::string& attributes) {
  Int128 q = a / d, r = a % d;
  if (r != 0 && attributes.find("rounding<negative_inf>") != std::string::npos && ((r < 0) != (d < 0))) --q;
  if (r != 0 && attributes.find("rounding<positive_inf>") != std::string::npos && ((r < 0) == (d < 0))) ++q;
  return q;
}

// 1, 0, or both (a range of an i1) for a comparison decided or not.
Val decided(bool always, bool never, std::uint8_t dims) {
  if (always) return integer(1);
  if (never) return integer(0);
  return fitted(0, 1, 1, dims);
}

Val compared(const std::string& pred, Span a, Span b, std::uint8_t dims) {
  if (pred == "equal") return decided(a.lo == a.hi && b.lo == b.hi && a.lo == b.lo, a.hi < b.lo || b.hi < a.lo, dims);
  if (pred == "not_equal")
    return decided(a.hi < b.lo || b.hi < a.lo, a.lo == a.hi && b.lo == b.hi && a.lo == b.lo, dims);
  if (pred == "less_than") return decided(a.hi < b.lo, a.lo >= b.hi, dims);
  if (pred == "less_than_or_equal") return decided(a.hi <= b.lo, a.lo > b.hi, dims);
  if (pred == "greater_than") return decided(a.lo > b.hi, a.hi <= b.lo, dims);
  if (pred == "greater_than_or_equal") return decided(a.lo >= b.hi, a.hi < b.lo, dims);
  return varies(dims);
}

// Division, remainder and shifts by a number.
Val by_constant(const std::string& n, Span a, Int128 d, bool is_unsigned, const std::string& attributes, int bits,
                int in_bits, std::uint8_t dims) {
  if (n == "divi") {
    if (d == 0 || (is_unsigned && d < 0)) return varies(dims);
    Int128 x = divided(a.lo, d, attributes), y = divided(a.hi, d, attributes);
    return fitted(std::min(x, y), std::max(x, y), bits, dims);
  }
  if (n == "remi") {
    if (d == 0 || (is_unsigned && d < 0)) return varies(dims);
    Int128 m = d < 0 ? -d : d;
    if (a.lo >= 0 && a.lo / m == a.hi / m) return fitted(a.lo % m, a.hi % m, bits, dims);
    if (a.lo >= 0) return fitted(0, std::min(a.hi, m - 1), bits, dims);
    if (a.hi <= 0) return fitted(std::max(a.lo, -(m - 1)), 0, bits, dims);
    return fitted(-(m - 1), m - 1, bits, dims);
  }
  if (d < 0) return varies(dims);  // a shift by more than the width, read unsigned
  if (d >= in_bits) {
    if (n == "shli" || is_unsigned) return integer(0);
    return fitted(a.lo < 0 ? -1 : 0, a.hi < 0 ? -1 : 0, bits, dims);
  }
  int k = static_cast<int>(d);
  if (n == "shli") return fitted(a.lo * (Int128(1) << k), a.hi * (Int128(1) << k), bits, dims);
  return fitted(a.lo >> k, a.hi >> k, bits, dims);  // shri: floor, as the arithmetic shift rounds
}

Val arithmetic(const std::string& n, Span a, Span b, bool is_unsigned, int bits, std::uint8_t dims) {
  if (n == "addi") return fitted(a.lo + b.lo, a.hi + b.hi, bits, dims);
  if (n == "subi") return fitted(a.lo - b.hi, a.hi - b.lo, bits, dims);
  if (n == "muli") {
    Int128 p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
    return fitted(*std::min_element(p, p + 4), *std::max_element(p, p + 4), bits, dims);
  }
  if (n == "mini") return fitted(std::min(a.lo, b.lo), std::min(a.hi, b.hi), bits, dims);
  if (n == "maxi") return fitted(std::max(a.lo, b.lo), std::max(a.hi, b.hi), bits, dims);
  (void)is_unsigned;
  return varies(dims);
}

Val unary(const std::string& n, Span a, bool is_unsigned, int bits, std::uint8_t dims) {
  if (n == "negi") return fitted(-a.hi, -a.lo, bits, dims);
  if (n == "absi") {
    if (a.lo >= 0) return fitted(a.lo, a.hi, bits, dims);
    if (a.hi <= 0) return fitted(-a.hi, -a.lo, bits, dims);
    return fitted(0, std::max(-a.lo, a.hi), bits, dims);
  }
  if (n == "exti" || n == "trunci" || n == "bitcast") {
    if (n == "exti" && is_unsigned && a.lo < 0) return varies(dims);
    return fitted(a.lo, a.hi, bits, dims);
  }
  return varies(dims);
}

}  // namespace

Val block_range(std::int64_t lo, std::int64_t hi, int dim) {
  return fitted(lo, hi, 64, static_cast<std::uint8_t>(1u << dim));
}

Val varies(std::uint8_t dims) {
  Val v;
  v.kind = Val::kVaries;
  v.why = Why::kNone;
  v.dims = dims;
  return v;
}

Val fitted(Int128 lo, Int128 hi, int bits, std::uint8_t dims) {
  Int128 min = bits == 1 ? 0 : bits > 0 && bits < 64 ? -(Int128(1) << (bits - 1)) : Int128(INT64_MIN);
  Int128 max = bits == 1 ? 1 : bits > 0 && bits < 64 ? (Int128(1) << (bits - 1)) - 1 : Int128(INT64_MAX);
  if (lo > hi || lo < min || hi > max) return varies(dims);
  if (lo == hi) return integer(static_cast<std::int64_t>(lo));
  Val v = integer(static_cast<std::int64_t>(lo));
  v.kind = Val::kRange;
  v.hi = static_cast<std::int64_t>(hi);
  v.dims = dims;
  return v;
}

Val range_result(const ScalarOperation& x) {
  const IrOp& op = x.op;
  const std::string& n = op.name;
  std::uint8_t dims = 0;
  for (const Val* a : x.args) dims |= a ? a->dims : 0;
  int bits = integer_bits(x.type);
  int in_bits = integer_bits(x.in_type);
  // Floats, what they come from and what i1 operands combine to are not followed.
  if (in_bits <= 1 || (bits == 0 && n != "cmpi")) return varies(dims);
  bool is_unsigned = has_word(op.attributes, "unsigned");
  auto a = span_of(x.arg(0), in_bits);
  std::optional<Span> b;
  if (op.operands.size() == 2) b = span_of(x.arg(1), in_bits);
  if (!a || (op.operands.size() == 2 && !b)) return varies(dims);
  if (is_unsigned && (a->lo < 0 || (b && b->lo < 0))) return varies(dims);
  if (op.operands.size() == 1) return unary(n, *a, is_unsigned, bits, dims);
  if (op.operands.size() != 2) return varies(dims);
  if (n == "cmpi") return compared(first_word(op.attributes), *a, *b, dims);
  if (n == "divi" || n == "remi" || n == "shli" || n == "shri") {
    if (b->lo != b->hi) return varies(dims);
    return by_constant(n, *a, b->lo, is_unsigned, op.attributes, bits, in_bits, dims);
  }
  return arithmetic(n, *a, *b, is_unsigned, bits, dims);
}

}  // namespace tileperf
