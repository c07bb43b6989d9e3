// The literal of a scalar constant of a TileIR listing, read exactly:
// "<i32: 5>", "<i1: true>", "<i64: 0x7FF>", "<f32: 2.500000e+00>",
// "<f16: 0x3C00>" (a float's bits). An integer is decimal (a leading zero
// is a decimal digit, as MLIR reads it) or hexadecimal, and must fit its
// type signed or unsigned; a float is a decimal number read whole, or the
// bits of its type in hexadecimal. Anything else is refused with what is
// wrong: nothing is clamped, rounded to another width or read in part.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tileperf {

struct ScalarLiteral {
  std::int64_t integer = 0;  // an integer's bits (2^64 - 1 reads as -1)
  double real = 0;           // a float's value, before it is rounded to its type
  std::string error;         // why it cannot be read ("" when it was)
};

// `bits`: an integer type's width (1 to 64); `float_bits` instead for a
// float type (16 for f16, -16 for bf16, 32 for f32 and tf32, 64).
ScalarLiteral read_integer_literal(std::string_view literal, int bits);
ScalarLiteral read_float_literal(std::string_view literal, int float_bits);

}  // namespace tileperf
