// Python's text formatting of numbers and strings: repr(float), repr(str), format(x, spec) with
// the format-spec mini-language, and the printf-style `%` conversions. Pure functions on values,
// used by the evaluator's str(), repr(), format(), f-strings, str.format and the `%` operator.
// Output matches CPython 3.11 byte for byte in the C locale; strings are UTF-8 and widths,
// precisions and fill characters count code points, as Python does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pz::eval {

// Widths and precisions above this are rejected (ValueError) instead of building a string that
// would exhaust memory; CPython would attempt the allocation.
inline constexpr int64_t kMaxFormatWidth = int64_t{1} << 24;

// The Python exception a failed formatting call raises.
enum class FormatErrorKind { kValueError, kTypeError, kOverflowError };

// Result of a formatting call: the text, or a Python error message (no exception type prefix;
// the caller raises `error_kind`, a ValueError for every spec error) when `error` is non-empty.
struct FormatResult {
  std::string text = {};
  std::string error = {};
  FormatErrorKind error_kind = FormatErrorKind::kValueError;
  bool ok() const { return error.empty(); }
};

// A failed FormatResult.
inline FormatResult FormatError(std::string message,
                                FormatErrorKind kind = FormatErrorKind::kValueError) {
  return FormatResult{.text = "", .error = std::move(message), .error_kind = kind};
}

// How DoubleToString lays out a double; mirrors CPython's PyOS_double_to_string.
struct DoubleFormat {
  // 'e', 'E', 'f', 'F', 'g', 'G', or 'r' (shortest round-trip digits, switching to an exponent
  // below 1e-4 and from 1e16 on). Upper-case types also print INF and NAN.
  char type = 'r';
  // Digits after the point for e and f, significant digits for g (0 means 1); unused for r.
  int precision = 0;
  // Python's '#': keep a trailing point, and for g keep trailing zeros.
  bool alternate = false;
  // Give integral results without exponent a ".0" (repr, and format types with no letter).
  bool add_dot_0 = false;
  // Python's 'z': a result whose digits are all zero gets no minus sign.
  bool no_neg_0 = false;
  // Print '+' before non-negative values (nan included).
  bool always_sign = false;
};

// Correctly rounded (round-half-even on the exact binary value) text of `value`.
std::string DoubleToString(double value, const DoubleFormat& how);

std::string FloatRepr(double value);          // repr(float) == str(float) in Python 3
std::string StrRepr(std::string_view value);  // repr(str): quote choice and escapes as CPython

FormatResult FormatInt(int64_t value, std::string_view spec);           // format(int, spec)
FormatResult FormatFloat(double value, std::string_view spec);          // format(float, spec)
FormatResult FormatStr(std::string_view value, std::string_view spec);  // format(str, spec)

// printf-style conversion for the `%` operator on one value. `spec` is the conversion text
// without the leading '%', ending at the conversion letter: "5.2f", "-8d", "#x", "s". The caller
// handles "%%" and "(key)" and substitutes each '*' by its number ("-5d" for a width of -5).
// An unsupported letter's message gives its index in "%" + spec; the caller adds the offset of
// the '%' in the whole format string. Int and float also take s, r and a, printing str().
FormatResult PercentFormatInt(int64_t value, std::string_view spec);
FormatResult PercentFormatFloat(double value, std::string_view spec);
// %s, %r and %a on an already str()'d, repr()'d or ascii()'d value; %c on a one-character str;
// the numeric conversions give CPython's TypeError for a str operand.
FormatResult PercentFormatStr(std::string_view value, std::string_view spec);

// UTF-8 helpers shared by the formatters. An invalid byte B decodes to the lone surrogate
// U+DC00+B and encodes back to B (Python's surrogateescape), so any byte string round-trips.
std::u32string DecodeUtf8(std::string_view text);
void AppendUtf8(std::string& out, char32_t code_point);
std::string EncodeUtf8(std::u32string_view text);

}  // namespace pz::eval
