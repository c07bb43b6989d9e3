// What the scalar evaluator (skeleton.h) computes of one TileIR operation:
// its values (an integer, a float, a view, or unknown with the reason and
// the operation it comes from) and the semantics of each scalar operation
// as cuTile states them: integers wrap to their type, signed or unsigned
// as the operation says (i1 is 0 or -1 signed), division rounds toward zero
// unless `rounding<negative_inf>` or `<positive_inf>` says otherwise, the
// remainder takes the dividend's sign, floats round to their type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "readers/tileir_program.h"

namespace tileperf {

// 128-bit integers for exact 64-bit products and quotients (a GCC and Clang
// extension; __extension__ keeps -Wpedantic quiet about it).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// Why a value is not known.
enum class Why : std::uint8_t {
  kNone,
  kMemory,
  kTile,
  kArgument,
  kUnsupported,
  kInvariant,
  kUndefined,
  kDivision,
  kDeclared,
};

// A value, or while a group of blocks is evaluated at once (skeleton.h):
// kRange, an integer that differs between them but lies in [i, hi] for
// each, or kVaries, a value that differs between them in ways not followed
// (scalar_ranges.h); `dims`, the grid dimensions it is computed from.
struct Val {
  enum Kind : std::uint8_t { kUnknown, kInt, kFloat, kView, kRange, kVaries } kind = kUnknown;
  Why why = Why::kUndefined;
  std::uint8_t dims = 0;  // bit d: grid dimension d (kRange, kVaries)
  int origin = -1;        // the operation (or for kArgument, the argument's position) the unknown comes from
  std::int64_t i = 0;     // an integer; a view's index; a range's lowest value
  std::int64_t hi = 0;    // a range's highest value
  double f = 0;
  bool differs() const { return kind == kRange || kind == kVaries; }
};

Val unknown(Why why, int origin);
Val integer(std::int64_t i);
Val real(double f);

// `v` wrapped to `bits` bits and sign-extended (i1 is 0 or 1); as unsigned;
// as signed (i1: 0 or -1).
std::int64_t wrap(std::int64_t v, int bits);
std::uint64_t as_unsigned(std::int64_t v, int bits);
std::int64_t as_signed(std::int64_t v, int bits);
// `x` rounded to the precision of float type `t` (f16, bf16, f32).
double round_to(double x, IrType t);

// Whether `w` is a word of an operation's attributes ("unsigned"); the
// first word (a comparison's predicate: "less_than").
bool has_word(const std::string& words, std::string_view w);
std::string first_word(const std::string& words);

// A scalar operation with its operands' values (all known, at most three).
struct ScalarOperation {
  const IrOp& op;
  IrType type;     // of its result
  IrType in_type;  // of its first operand
  const Val* args[3] = {nullptr, nullptr, nullptr};
  const Val& arg(std::size_t k) const { return *args[k]; }
};

// The result of an integer or float operation; nothing for an operation it
// does not compute, with `divided_by_zero` set when that is why.
std::optional<Val> scalar_result(const ScalarOperation& x, bool& divided_by_zero);

}  // namespace tileperf
