#include "readers/tileir_literals.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace tileperf {

namespace {

__extension__ typedef unsigned __int128 Wide;

// The text between "<type: " and ">".
std::string_view value_text(std::string_view literal) {
  auto colon = literal.find(": ");
  if (colon == std::string_view::npos || literal.empty() || literal.back() != '>') return {};
  return literal.substr(colon + 2, literal.size() - colon - 3);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Digits of base 10 or 16, at most `max`; false for anything else.
bool read_digits(std::string_view s, int base, Wide max, Wide& out) {
  if (s.empty()) return false;
  out = 0;
  for (char c : s) {
    int d = base == 16 ? hex_digit(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
    if (d < 0 || out > (max - static_cast<Wide>(d)) / static_cast<Wide>(base)) return false;
    out = out * static_cast<Wide>(base) + static_cast<Wide>(d);
  }
  return true;
}

double half_value(std::uint32_t h) {
  int exponent = static_cast<int>((h >> 10) & 0x1f);
  double mantissa = static_cast<double>(h & 0x3ff);
  double magnitude = exponent == 0    ? std::ldexp(mantissa, -24)
                     : exponent == 31 ? (mantissa == 0 ? INFINITY : NAN)
                                      : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

}  // namespace

ScalarLiteral read_integer_literal(std::string_view literal, int bits) {
  ScalarLiteral out;
  std::string_view text = value_text(literal);
  Wide max = bits >= 64 ? ~static_cast<std::uint64_t>(0) : (static_cast<Wide>(1) << bits) - 1;
  if (text == "true" || text == "false") {
    out.integer = text == "true";
    return out;
  }
  bool negative = !text.empty() && text[0] == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  bool hex = !negative && digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  Wide limit = negative ? static_cast<Wide>(1) << (bits - 1) : max;
  Wide v = 0;
  if (!read_digits(hex ? digits.substr(2) : digits, hex ? 16 : 10, limit, v)) {
    out.error = text.empty() || !read_digits(hex ? digits.substr(2) : digits, hex ? 16 : 10, ~static_cast<Wide>(0), v)
                    ? fmt::format("constant {} is not an integer", std::string(literal))
                    : fmt::format("constant {} does not fit {} bits", std::string(literal), bits);
    return out;
  }
  std::uint64_t u = static_cast<std::uint64_t>(v);
  out.integer = static_cast<std::int64_t>(negative ? 0 - u : u);
  return out;
}

ScalarLiteral read_float_literal(std::string_view literal, int float_bits) {
  ScalarLiteral out;
  std::string_view text = value_text(literal);
  int width = float_bits < 0 ? -float_bits : float_bits;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    Wide bits = 0;
    if (!read_digits(text.substr(2), 16, (static_cast<Wide>(1) << width) - 1, bits)) {
      out.error = fmt::format("constant {} is not the bits of a {}-bit float", std::string(literal), width);
      return out;
    }
    auto b = static_cast<std::uint64_t>(bits);
    if (float_bits == 16) {
      out.real = half_value(static_cast<std::uint32_t>(b));
    } else if (float_bits == -16 || float_bits == 32) {
      std::uint32_t w = float_bits == -16 ? static_cast<std::uint32_t>(b) << 16 : static_cast<std::uint32_t>(b);
      float f;
      std::memcpy(&f, &w, sizeof f);
      out.real = f;
    } else {
      std::memcpy(&out.real, &b, sizeof out.real);
    }
    return out;
  }
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  out.real = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || std::isspace(static_cast<unsigned char>(copy[0]))) {
    out.error = fmt::format("constant {} is not a number", std::string(literal));
  }
  return out;
}

}  // namespace tileperf
