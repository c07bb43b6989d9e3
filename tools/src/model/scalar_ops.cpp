#include "model/scalar_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "support/text.h"

namespace tileperf {

bool has_word(const std::string& words, std::string_view w) {
  for (std::size_t at = words.find(w); at != std::string::npos; at = words.find(w, at + 1)) {
    bool start = at == 0 || !(std::isalnum(static_cast<unsigned char>(words[at - 1])) || words[at - 1] == '_');
    std::size_t end = at + w.size();
    bool stop = end >= words.size() || !(std::isalnum(static_cast<unsigned char>(words[end])) || words[end] == '_');
    if (start && stop) return true;
  }
  return false;
}

std::string first_word(const std::string& words) {
  std::size_t end = 0;
  while (end < words.size() && (std::isalnum(static_cast<unsigned char>(words[end])) || words[end] == '_')) ++end;
  return words.substr(0, end);
}

namespace {

// One integer operation's operands, read at the operation's input width
// (signed or unsigned), and its result wrapped to its type.
struct IntegerOperands {
  const ScalarOperation& x;
  int bits, in_bits;
  bool is_unsigned;

  explicit IntegerOperands(const ScalarOperation& op)
      : x(op),
        bits(integer_bits(op.type)),
        in_bits(integer_bits(op.in_type) == 0 ? integer_bits(op.type) : integer_bits(op.in_type)),
        is_unsigned(has_word(op.op.attributes, "unsigned")) {}

  std::int64_t s(std::size_t k) const { return as_signed(x.arg(k).i, in_bits); }
  std::uint64_t u(std::size_t k) const { return as_unsigned(x.arg(k).i, in_bits); }
  Val out(std::int64_t v) const { return integer(wrap(v, bits)); }
  Val out_u(std::uint64_t v) const { return integer(wrap(static_cast<std::int64_t>(v), bits)); }
};

// shli, shri: a shift by the width or more leaves the sign (shri of a
// negative signed value) or nothing.
Val shift(const IntegerOperands& a, std::string_view n) {
  std::uint64_t amount = a.u(1);
  if (amount >= static_cast<std::uint64_t>(a.in_bits)) {
    if (n == "shli" || a.is_unsigned || a.s(0) >= 0) return integer(0);
    return a.out(-1);
  }
  if (n == "shli") return a.out_u(a.u(0) << amount);
  return a.is_unsigned ? a.out_u(a.u(0) >> amount) : a.out(a.s(0) >> amount);
}

// divi, remi, with the rounding the attributes name.
std::optional<Val> divide(const IntegerOperands& a, std::string_view n, bool& divided_by_zero) {
  if (a.u(1) == 0) {
    divided_by_zero = true;
    return std::nullopt;
  }
  const std::string& attributes = a.x.op.attributes;
  bool up = attributes.find("rounding<positive_inf>") != std::string::npos;
  if (a.is_unsigned && n == "remi") return a.out_u(a.u(0) % a.u(1));
  if (a.is_unsigned) return a.out_u(a.u(0) / a.u(1) + (up && a.u(0) % a.u(1) != 0 ? 1 : 0));  // cdiv rounds up
  Int128 p = a.s(0), q = a.s(1);
  Int128 quotient = p / q, r = p % q;
  if (n == "remi") return a.out(static_cast<std::int64_t>(r));
  // The one quotient past the type (INT_MIN / -1) has no defined result.
  if (quotient > (Int128(1) << (a.in_bits - 1)) - 1) return std::nullopt;
  if (r != 0 && attributes.find("rounding<negative_inf>") != std::string::npos && ((r < 0) != (q < 0))) --quotient;
  if (r != 0 && up && ((r < 0) == (q < 0))) ++quotient;
  return a.out(static_cast<std::int64_t>(quotient));
}

// mulhii: the high half of the double-width product.
Val high_multiply(const IntegerOperands& a) {
  if (a.is_unsigned) {
    UInt128 p = static_cast<UInt128>(a.u(0)) * a.u(1);
    return a.out_u(static_cast<std::uint64_t>(p >> a.in_bits));
  }
  Int128 p = static_cast<Int128>(a.s(0)) * a.s(1);
  return a.out(static_cast<std::int64_t>(p >> a.in_bits));
}

// cmpi by the predicate its attributes begin with; none for another.
std::optional<Val> compare(const IntegerOperands& a) {
  std::string pred = first_word(a.x.op.attributes);
  bool lt = a.is_unsigned ? a.u(0) < a.u(1) : a.s(0) < a.s(1);
  bool eq = a.is_unsigned ? a.u(0) == a.u(1) : a.s(0) == a.s(1);
  std::optional<bool> r;
  if (pred == "equal") r = eq;
  if (pred == "not_equal") r = !eq;
  if (pred == "less_than") r = lt;
  if (pred == "less_than_or_equal") r = lt || eq;
  if (pred == "greater_than") r = !lt && !eq;
  if (pred == "greater_than_or_equal") r = !lt;
  if (!r) return std::nullopt;
  return integer(*r ? 1 : 0);
}

std::optional<Val> integer_op(const ScalarOperation& x, bool& divided_by_zero) {
  std::string_view n = x.op.name;  // compared by size first: a cheap miss
  IntegerOperands a(x);
  std::size_t arity = x.op.operands.size();
  if (arity == 2) {
    if (n == "addi") return a.out_u(a.u(0) + a.u(1));
    if (n == "subi") return a.out_u(a.u(0) - a.u(1));
    if (n == "muli") return a.out_u(a.u(0) * a.u(1));
    if (n == "andi" || n == "ori" || n == "xori") {
      std::uint64_t p = a.u(0), q = a.u(1);
      return a.out_u(n == "andi" ? (p & q) : n == "ori" ? (p | q) : (p ^ q));
    }
    if (n == "mini" || n == "maxi") {
      bool first = a.is_unsigned ? (a.u(0) < a.u(1)) : (a.s(0) < a.s(1));
      if (n == "maxi") first = !first;
      return integer(wrap(x.arg(first ? 0 : 1).i, a.bits));
    }
    if (n == "shli" || n == "shri") return shift(a, n);
    if (n == "divi" || n == "remi") return divide(a, n, divided_by_zero);
    if (n == "mulhii") return high_multiply(a);
    if (n == "cmpi") return compare(a);
  }
  if (arity == 1) {
    if (n == "negi") return a.out_u(0 - a.u(0));
    // |INT_MIN| wraps to INT_MIN, as in two's complement.
    if (n == "absi") return a.s(0) < 0 ? a.out_u(0 - a.u(0)) : a.out(a.s(0));
    if (n == "exti") return a.is_unsigned ? a.out_u(a.u(0)) : a.out(a.s(0));
    if (n == "trunci") return a.out(x.arg(0).i);
    if (n == "bitcast" && is_integer(x.in_type)) return a.out(x.arg(0).i);
  }
  if (n == "select" && arity == 3) return integer(wrap((x.arg(0).i & 1) ? x.arg(1).i : x.arg(2).i, a.bits));
  return std::nullopt;
}

std::optional<Val> float_op(const ScalarOperation& x) {
  const IrOp& op = x.op;
  IrType type = x.type;
  std::string_view n = op.name;
  std::size_t arity = op.operands.size();
  auto f = [&](std::size_t k) {
    const Val& v = x.arg(k);
    return v.kind == Val::kFloat ? v.f : static_cast<double>(v.i);
  };
  auto out = [&](double x) { return real(round_to(x, type)); };
  if (n == "itof" && arity == 1) {
    int bits = integer_bits(x.in_type);
    std::int64_t i = x.arg(0).i;
    return out(has_word(op.attributes, "unsigned") ? static_cast<double>(as_unsigned(i, bits))
                                                   : static_cast<double>(as_signed(i, bits)));
  }
  if (n == "ftoi" && arity == 1) {
    // A value past the integer type has no defined result: not computed.
    double x = std::trunc(f(0));
    int bits = integer_bits(type);
    bool is_unsigned = has_word(op.attributes, "unsigned");
    double lo = bits == 0 ? 0 : is_unsigned ? 0 : -std::ldexp(1.0, bits - 1);
    double hi = bits == 0 ? -1 : std::ldexp(1.0, is_unsigned ? bits : bits - 1);
    if (!std::isfinite(x) || x < lo || x >= hi) return std::nullopt;
    return is_unsigned ? integer(wrap(static_cast<std::int64_t>(static_cast<std::uint64_t>(x)), bits))
                       : integer(wrap(static_cast<std::int64_t>(x), bits));
  }
  if (n == "cmpf" && arity == 2) {
    double a = f(0), b = f(1);
    std::string pred = first_word(op.attributes);
    bool unordered = std::isnan(a) || std::isnan(b);
    bool ordered_flag = !has_word(op.attributes, "unordered");
    std::optional<bool> r;
    if (pred == "equal") r = a == b;
    if (pred == "not_equal") r = a != b;
    if (pred == "less_than") r = a < b;
    if (pred == "less_than_or_equal") r = a <= b;
    if (pred == "greater_than") r = a > b;
    if (pred == "greater_than_or_equal") r = a >= b;
    if (!r) return std::nullopt;
    if (unordered) r = !ordered_flag;
    return integer(*r ? 1 : 0);
  }
  if (!is_float(type)) return std::nullopt;
  if (n == "ftof" && arity == 1) return out(f(0));
  if (n == "addf" && arity == 2) return out(f(0) + f(1));
  if (n == "subf" && arity == 2) return out(f(0) - f(1));
  if (n == "mulf" && arity == 2) return out(f(0) * f(1));
  if (n == "divf" && arity == 2) return out(f(0) / f(1));
  if (n == "remf" && arity == 2) return out(std::fmod(f(0), f(1)));
  if (n == "negf" && arity == 1) return out(-f(0));
  if (n == "absf" && arity == 1) return out(std::fabs(f(0)));
  if (n == "maxf" && arity == 2) return out(std::fmax(f(0), f(1)));
  if (n == "minf" && arity == 2) return out(std::fmin(f(0), f(1)));
  if (n == "fma" && arity == 3) return out(f(0) * f(1) + f(2));
  if (n == "floor" && arity == 1) return out(std::floor(f(0)));
  if (n == "ceil" && arity == 1) return out(std::ceil(f(0)));
  if (n == "sqrt" && arity == 1) return out(std::sqrt(f(0)));
  if (n == "select" && arity == 3) return out((x.arg(0).i & 1) ? f(1) : f(2));
  return std::nullopt;
}

}  // namespace

Val unknown(Why why, int origin) {
  Val v;
  v.why = why;
  v.origin = origin;
  return v;
}

Val integer(std::int64_t i) {
  Val v;
  v.kind = Val::kInt;
  v.why = Why::kNone;
  v.i = i;
  return v;
}

Val real(double f) {
  Val v;
  v.kind = Val::kFloat;
  v.why = Why::kNone;
  v.f = f;
  return v;
}

// The value `v` wrapped to `bits` bits, sign-extended (i1 is 0 or 1).
std::int64_t wrap(std::int64_t v, int bits) {
  if (bits <= 0 || bits >= 64) return v;
  if (bits == 1) return v & 1;
  std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (u >> (bits - 1)) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

std::uint64_t as_unsigned(std::int64_t v, int bits) {
  if (bits <= 0 || bits >= 64) return static_cast<std::uint64_t>(v);
  return static_cast<std::uint64_t>(v) & ((std::uint64_t(1) << bits) - 1);
}

// i1 seen as a signed number is 0 or -1.
std::int64_t as_signed(std::int64_t v, int bits) { return bits == 1 ? -(v & 1) : wrap(v, bits); }

// Round to the precision of a float type.
double round_to(double x, IrType t) {
  if (t == IrType::kF32) return static_cast<double>(static_cast<float>(x));
  if (t == IrType::kF16 || t == IrType::kBF16) {
    if (!std::isfinite(x) || x == 0) return x;
    int exponent = 0;
    std::frexp(x, &exponent);
    int mantissa = t == IrType::kF16 ? 11 : 8;
    int min_exponent = t == IrType::kF16 ? -13 : -125;  // below it, subnormal steps
    double quantum = std::ldexp(1.0, std::max(exponent, min_exponent) - mantissa);
    double r = std::nearbyint(x / quantum) * quantum;
    double max = t == IrType::kF16 ? 65504.0 : 3.3895313892515355e38;
    return std::fabs(r) > max ? std::copysign(INFINITY, r) : r;
  }
  return x;
}

std::optional<Val> scalar_result(const ScalarOperation& x, bool& divided_by_zero) {
  std::string_view n = x.op.name;
  if (is_float(x.type) || n == "cmpf" || n == "ftoi") return float_op(x);
  return integer_op(x, divided_by_zero);
}

}  // namespace tileperf
