// Float digit generation and layout (PyOS_double_to_string), repr of floats and strings, the
// printf-style `%` conversions and the UTF-8 helpers. The format-spec mini-language is in
// format_spec.cpp. Digits come from std::to_chars, which rounds the exact binary value
// half-to-even, as CPython's dtoa does.
#include "eval/format.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "support/check.h"

namespace pz::eval {
namespace {

// Decimal digits of a finite magnitude as dtoa returns them: the value is 0.<digits> * 10^decpt,
// `digits` has no leading or trailing zeros, and zero is digits "0" with decpt 1.
struct Digits {
  std::string digits;
  int64_t decpt = 1;
};

// Strips zeros from both ends of `all`, whose point sits after `int_len` digits.
Digits TrimDigits(std::string all, int64_t int_len) {
  size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return Digits{"0", 1};
  all.erase(all.find_last_not_of('0') + 1);
  return Digits{all.substr(first), int_len - static_cast<int64_t>(first)};
}

// Parses to_chars scientific output "d[.ddd]e±XX".
Digits FromScientific(std::string_view text) {
  size_t e = text.find('e');
  std::string all;
  for (char c : text.substr(0, e)) {
    if (c != '.') all += c;
  }
  std::string_view exp_text = text.substr(e + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  int exp = 0;
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp);
  return TrimDigits(std::move(all), exp + 1);
}

// dtoa mode 0: the shortest digits that round-trip.
Digits ShortestDigits(double magnitude) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, magnitude, std::chars_format::scientific);
  PZ_CHECK(result.ec == std::errc());
  return FromScientific(std::string_view(buf, result.ptr - buf));
}

// dtoa mode 2: `count` (>= 1) significant digits.
Digits SignificantDigits(double magnitude, int64_t count) {
  std::string buf(static_cast<size_t>(count) + 16, '\0');
  auto result = std::to_chars(buf.data(), buf.data() + buf.size(), magnitude,
                              std::chars_format::scientific, static_cast<int>(count - 1));
  PZ_CHECK(result.ec == std::errc());
  return FromScientific(std::string_view(buf.data(), result.ptr - buf.data()));
}

// dtoa mode 3: digits through `places` after the point.
Digits FixedDigits(double magnitude, int places) {
  std::string buf(static_cast<size_t>(places) + 330, '\0');
  auto result = std::to_chars(buf.data(), buf.data() + buf.size(), magnitude,
                              std::chars_format::fixed, places);
  PZ_CHECK(result.ec == std::errc());
  std::string_view text(buf.data(), result.ptr - buf.data());
  size_t point = text.find('.');
  if (point == std::string_view::npos) point = text.size();
  std::string all(text.substr(0, point));
  if (point < text.size()) all += text.substr(point + 1);
  return TrimDigits(std::move(all), static_cast<int64_t>(point));
}

// The exact decimal digits of an integral magnitude (int() of a float has no size limit).
std::string IntegralDigits(double magnitude) {
  char buf[400];
  auto result = std::to_chars(buf, buf + sizeof buf, magnitude, std::chars_format::fixed, 0);
  PZ_CHECK(result.ec == std::errc());
  return std::string(buf, result.ptr);
}

// Decodes one code point at text[pos]; `size` is 0 for an invalid byte.
struct Decoded {
  char32_t code_point;
  size_t size;
};

Decoded DecodeAt(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(pos);
  if (lead < 0x80) return {lead, 1};
  size_t size = 0;
  char32_t code_point = 0;
  char32_t min = 0;
  if ((lead & 0xE0) == 0xC0) {
    size = 2, code_point = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    size = 3, code_point = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    size = 4, code_point = lead & 0x07, min = 0x10000;
  } else {
    return {lead, 0};
  }
  if (pos + size > text.size()) return {lead, 0};
  for (size_t i = 1; i < size; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80) return {lead, 0};
    code_point = (code_point << 6) | (byte(pos + i) & 0x3F);
  }
  bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
  if (code_point < min || code_point > 0x10FFFF || surrogate) return {lead, 0};
  return {code_point, size};
}

// Assigned code points above 0x7f that str.isprintable() rejects in Python 3.11 (Unicode 14:
// categories Cc, Cf, Cs, Co, Zl, Zp and Zs), as inclusive ranges; repr() escapes them.
constexpr std::pair<char32_t, char32_t> kNonPrintable[] = {
    {0x80, 0xA0},       {0xAD, 0xAD},       {0x600, 0x605},       {0x61C, 0x61C},
    {0x6DD, 0x6DD},     {0x70F, 0x70F},     {0x890, 0x891},       {0x8E2, 0x8E2},
    {0x1680, 0x1680},   {0x180E, 0x180E},   {0x2000, 0x200F},     {0x2028, 0x202F},
    {0x205F, 0x2064},   {0x2066, 0x206F},   {0x3000, 0x3000},     {0xD800, 0xF8FF},
    {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD},   {0x110CD, 0x110CD},
    {0x13430, 0x13438}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},   {0xE0001, 0xE0001},
    {0xE0020, 0xE007F}, {0xF0000, 0xFFFFD}, {0x100000, 0x10FFFD},
};

bool IsPrintable(char32_t code_point) {
  if (code_point < 0x80) return code_point >= 0x20 && code_point < 0x7F;
  return std::none_of(std::begin(kNonPrintable), std::end(kNonPrintable), [&](const auto& range) {
    return code_point >= range.first && code_point <= range.second;
  });
}

// ---- printf-style `%` conversions (CPython's unicode_format_arg_*) ----

// One parsed conversion spec: flags, width, precision and the conversion letter.
struct PercentSpec {
  bool left_adjust = false;  // '-'
  bool plus_sign = false;    // '+'
  bool blank_sign = false;   // ' '
  bool alternate = false;    // '#'
  bool zero_pad = false;     // '0'
  int64_t width = -1;        // -1: none
  int64_t precision = -1;    // -1: none
  char32_t conversion = 0;
  size_t conversion_index = 0;  // in code points, counting the '%' before the spec
};

std::optional<FormatResult> ParsePercentSpec(std::string_view spec, PercentSpec& out) {
  std::u32string chars = DecodeUtf8(spec);
  size_t pos = 0;
  auto at_end = [&] { return pos >= chars.size(); };
  for (; !at_end(); ++pos) {
    char32_t c = chars[pos];
    if (c == '-') {
      out.left_adjust = true;
    } else if (c == '+') {
      out.plus_sign = true;
    } else if (c == ' ') {
      out.blank_sign = true;
    } else if (c == '#') {
      out.alternate = true;
    } else if (c == '0') {
      out.zero_pad = true;
    } else {
      break;
    }
  }
  // Reads decimal digits at pos into `value`; an error past `limit`.
  auto read_number = [&](int64_t& value, int64_t limit,
                         const char* too_big) -> std::optional<FormatResult> {
    value = 0;
    for (; !at_end() && chars[pos] >= '0' && chars[pos] <= '9'; ++pos) {
      int digit = static_cast<int>(chars[pos] - '0');
      if (value > (limit - digit) / 10) return FormatError(too_big);
      value = value * 10 + digit;
    }
    return std::nullopt;
  };
  if (!at_end() && chars[pos] >= '0' && chars[pos] <= '9') {
    if (auto error = read_number(out.width, kMaxFormatWidth, "width too big")) return error;
  }
  if (!at_end() && chars[pos] == '.') {
    ++pos;
    if (auto error = read_number(out.precision, kMaxFormatWidth, "precision too big")) {
      return error;
    }
  }
  if (!at_end() && (chars[pos] == 'h' || chars[pos] == 'l' || chars[pos] == 'L')) ++pos;
  if (at_end()) return FormatError("incomplete format");
  out.conversion = chars[pos];
  out.conversion_index = pos + 1;
  // The spec ends at a valid conversion letter; an invalid one is reported by the caller.
  bool known =
      std::u32string_view(U"diuoxXeEfFgGcsra").find(out.conversion) != std::u32string_view::npos;
  PZ_CHECK(!known || pos + 1 == chars.size());
  return std::nullopt;
}

FormatResult UnsupportedConversion(const PercentSpec& spec) {
  char32_t c = spec.conversion;
  char shown = c >= 31 && c <= 126 ? static_cast<char>(c) : '?';
  return FormatError(fmt::format("unsupported format character '{}' (0x{:x}) at index {}", shown,
                                 static_cast<uint32_t>(c), spec.conversion_index));
}

// Pads the converted text `str` to the spec's width; `numeric` is CPython's arg->sign, set for
// the numeric conversions, whose sign and 0x/0o prefix stay left of zero padding.
std::string PercentOutput(const PercentSpec& spec, std::string_view str, bool numeric) {
  std::u32string text = DecodeUtf8(str);
  int64_t len = static_cast<int64_t>(text.size());
  int64_t width = spec.width;
  char32_t conv = spec.conversion;
  bool is_string = conv == 's' || conv == 'r' || conv == 'a';
  if ((width == -1 || width <= len) && (spec.precision == -1 || spec.precision >= len) &&
      !spec.plus_sign && !spec.blank_sign) {
    return std::string(str);
  }
  if (is_string && spec.precision >= 0 && len > spec.precision) len = spec.precision;
  char32_t fill = numeric && spec.zero_pad ? U'0' : U' ';
  size_t index = 0;
  char32_t sign = 0;
  if (numeric) {
    if (text[0] == '-' || text[0] == '+') {
      sign = text[0];
      --len;
      ++index;
    } else if (spec.plus_sign) {
      sign = '+';
    } else if (spec.blank_sign) {
      sign = ' ';
    } else {
      numeric = false;
    }
  }
  width = std::max(width, len);
  std::u32string out;
  if (numeric) {
    if (fill != ' ') out += sign;
    if (width > len) --width;
  }
  bool prefixed = spec.alternate && (conv == 'x' || conv == 'X' || conv == 'o');
  if (prefixed) {
    if (fill != ' ') {
      out += text.substr(index, 2);
      index += 2;
    }
    width = std::max<int64_t>(width - 2, 0);
    len -= 2;
  }
  if (width > len && !spec.left_adjust) {
    out.append(width - len, fill);
    width = len;
  }
  if (fill == ' ') {
    if (numeric) out += sign;
    if (prefixed) {
      out += text.substr(index, 2);
      index += 2;
    }
  }
  out += text.substr(index, len);
  if (width > len) out.append(width - len, U' ');
  return EncodeUtf8(out);
}

// CPython's _PyUnicode_FormatLong: sign, optional 0x/0o, digits zero-extended to `precision`.
std::string PercentInteger(bool negative, std::string digits, const PercentSpec& spec) {
  std::string prefix = negative ? "-" : "";
  if (spec.alternate && spec.conversion == 'o') prefix += "0o";
  if (spec.alternate && (spec.conversion == 'x' || spec.conversion == 'X')) prefix += "0x";
  if (spec.precision > static_cast<int64_t>(digits.size())) {
    digits.insert(0, spec.precision - digits.size(), '0');
  }
  std::string text = prefix + digits;
  if (spec.conversion == 'X') {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](char c) { return c >= 'a' && c <= 'x' ? static_cast<char>(c - 32) : c; });
  }
  return text;
}

std::string MagnitudeDigits(uint64_t magnitude, int base) {
  char buf[72];
  auto result = std::to_chars(buf, buf + sizeof buf, magnitude, base);
  return std::string(buf, result.ptr);
}

int PercentBase(char32_t conversion) {
  if (conversion == 'o') return 8;
  if (conversion == 'x' || conversion == 'X') return 16;
  return 10;
}

bool IsIntConversion(char32_t c) {
  return c == 'd' || c == 'i' || c == 'u' || c == 'o' || c == 'x' || c == 'X';
}
bool IsFloatConversion(char32_t c) {
  return c == 'e' || c == 'E' || c == 'f' || c == 'F' || c == 'g' || c == 'G';
}
bool IsStringConversion(char32_t c) { return c == 's' || c == 'r' || c == 'a'; }

FormatResult PercentFloatConversion(double value, const PercentSpec& spec) {
  std::string text = DoubleToString(
      value, DoubleFormat{.type = static_cast<char>(spec.conversion),
                          .precision = spec.precision < 0 ? 6 : static_cast<int>(spec.precision),
                          .alternate = spec.alternate});
  return FormatResult{.text = PercentOutput(spec, text, true)};
}

FormatResult PercentChar(char32_t code_point, const PercentSpec& spec) {
  std::string text;
  AppendUtf8(text, code_point);
  return FormatResult{.text = PercentOutput(spec, text, false)};
}

}  // namespace

// ---- Floats ----

std::string DoubleToString(double value, const DoubleFormat& how) {
  char type = how.type;
  bool upper = type == 'E' || type == 'F' || type == 'G';
  if (upper) type = static_cast<char>(type + ('a' - 'A'));
  std::string out;
  if (!std::isfinite(value)) {
    bool negative = std::isinf(value) && value < 0;
    if (negative) {
      out += '-';
    } else if (how.always_sign) {
      out += '+';
    }
    out += std::isinf(value) ? (upper ? "INF" : "inf") : (upper ? "NAN" : "nan");
    return out;
  }
  PZ_CHECK(how.precision >= 0);
  int64_t precision = how.precision;
  double magnitude = std::fabs(value);
  Digits d;
  switch (type) {
    case 'e':
      ++precision;
      d = SignificantDigits(magnitude, precision);
      break;
    case 'f':
      d = FixedDigits(magnitude, static_cast<int>(precision));
      break;
    case 'g':
      precision = std::max<int64_t>(precision, 1);
      d = SignificantDigits(magnitude, precision);
      break;
    case 'r':
      d = ShortestDigits(magnitude);
      break;
    default:
      PZ_UNREACHABLE();
  }
  bool negative = std::signbit(value) && !(how.no_neg_0 && d.digits == "0");
  // The layout of CPython's format_float_short: the output is a slice [vstart, vend) of the
  // digits padded with zeros on both sides, with the point after position decpt.
  int64_t decpt = d.decpt;
  int64_t digits_len = static_cast<int64_t>(d.digits.size());
  int64_t vend = digits_len;
  bool use_exp = false;
  if (type == 'e') {
    use_exp = true;
    vend = precision;
  } else if (type == 'f') {
    vend = decpt + precision;
  } else if (type == 'g') {
    use_exp = decpt <= -4 || decpt > (how.add_dot_0 ? precision - 1 : precision);
    if (how.alternate) vend = precision;
  } else {
    use_exp = decpt <= -4 || decpt > 16;
  }
  int64_t exp = 0;
  if (use_exp) {
    exp = decpt - 1;
    decpt = 1;
  }
  int64_t vstart = decpt <= 0 ? decpt - 1 : 0;
  vend = std::max(vend, !use_exp && how.add_dot_0 ? decpt + 1 : decpt);
  if (negative) {
    out += '-';
  } else if (how.always_sign) {
    out += '+';
  }
  if (decpt <= 0) {
    out.append(decpt - vstart, '0');
    out += '.';
    out.append(-decpt, '0');
  }
  if (decpt > 0 && decpt <= digits_len) {
    out += d.digits.substr(0, decpt);
    out += '.';
    out += d.digits.substr(decpt);
  } else {
    out += d.digits;
  }
  if (digits_len < decpt) {
    out.append(decpt - digits_len, '0');
    out += '.';
    out.append(vend - decpt, '0');
  } else {
    out.append(vend - digits_len, '0');
  }
  if (out.back() == '.' && !how.alternate) out.pop_back();
  if (use_exp) out += fmt::format("{}{:+03d}", upper ? 'E' : 'e', exp);
  return out;
}

std::string FloatRepr(double value) {
  return DoubleToString(value, DoubleFormat{.type = 'r', .add_dot_0 = true});
}

// ---- Strings ----

std::string StrRepr(std::string_view value) {
  bool has_single = value.find('\'') != std::string_view::npos;
  bool has_double = value.find('"') != std::string_view::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (size_t pos = 0; pos < value.size();) {
    Decoded d = DecodeAt(value, pos);
    if (d.size == 0) {  // Not UTF-8: shown as the byte, as repr(bytes) would.
      out += fmt::format("\\x{:02x}", static_cast<uint32_t>(d.code_point));
      ++pos;
      continue;
    }
    pos += d.size;
    char32_t c = d.code_point;
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (IsPrintable(c)) {
      AppendUtf8(out, c);
    } else if (c < 0x100) {
      out += fmt::format("\\x{:02x}", static_cast<uint32_t>(c));
    } else if (c < 0x10000) {
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
    } else {
      out += fmt::format("\\U{:08x}", static_cast<uint32_t>(c));
    }
  }
  out += quote;
  return out;
}

// ---- `%` conversions ----

FormatResult PercentFormatInt(int64_t value, std::string_view spec) {
  PercentSpec parsed;
  if (auto error = ParsePercentSpec(spec, parsed)) return *error;
  char32_t conv = parsed.conversion;
  if (IsStringConversion(conv)) {
    return FormatResult{.text = PercentOutput(parsed, std::to_string(value), false)};
  }
  if (IsIntConversion(conv)) {
    uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : value;
    std::string digits = MagnitudeDigits(magnitude, PercentBase(conv));
    return FormatResult{.text =
                            PercentOutput(parsed, PercentInteger(value < 0, digits, parsed), true)};
  }
  if (IsFloatConversion(conv)) return PercentFloatConversion(static_cast<double>(value), parsed);
  if (conv == 'c') {
    if (value < 0 || value > 0x10FFFF) {
      return FormatError("%c arg not in range(0x110000)", FormatErrorKind::kOverflowError);
    }
    return PercentChar(static_cast<char32_t>(value), parsed);
  }
  return UnsupportedConversion(parsed);
}

FormatResult PercentFormatFloat(double value, std::string_view spec) {
  PercentSpec parsed;
  if (auto error = ParsePercentSpec(spec, parsed)) return *error;
  char32_t conv = parsed.conversion;
  if (IsStringConversion(conv)) {
    return FormatResult{.text = PercentOutput(parsed, FloatRepr(value), false)};
  }
  if (conv == 'o' || conv == 'x' || conv == 'X') {
    return FormatError(
        fmt::format("%{} format: an integer is required, not float", static_cast<char>(conv)),
        FormatErrorKind::kTypeError);
  }
  if (IsIntConversion(conv)) {  // int(value): truncation toward zero, of any size.
    if (std::isnan(value)) return FormatError("cannot convert float NaN to integer");
    if (std::isinf(value)) {
      return FormatError("cannot convert float infinity to integer",
                         FormatErrorKind::kOverflowError);
    }
    double truncated = std::trunc(value);
    std::string digits = IntegralDigits(std::fabs(truncated));
    return FormatResult{
        .text = PercentOutput(parsed, PercentInteger(truncated < 0, digits, parsed), true)};
  }
  if (IsFloatConversion(conv)) return PercentFloatConversion(value, parsed);
  if (conv == 'c') return FormatError("%c requires int or char", FormatErrorKind::kTypeError);
  return UnsupportedConversion(parsed);
}

FormatResult PercentFormatStr(std::string_view value, std::string_view spec) {
  PercentSpec parsed;
  if (auto error = ParsePercentSpec(spec, parsed)) return *error;
  char32_t conv = parsed.conversion;
  if (IsStringConversion(conv)) return FormatResult{.text = PercentOutput(parsed, value, false)};
  if (conv == 'o' || conv == 'x' || conv == 'X') {
    return FormatError(
        fmt::format("%{} format: an integer is required, not str", static_cast<char>(conv)),
        FormatErrorKind::kTypeError);
  }
  if (IsIntConversion(conv)) {
    return FormatError(
        fmt::format("%{} format: a real number is required, not str", static_cast<char>(conv)),
        FormatErrorKind::kTypeError);
  }
  if (IsFloatConversion(conv)) {
    return FormatError("must be real number, not str", FormatErrorKind::kTypeError);
  }
  if (conv == 'c') {
    std::u32string chars = DecodeUtf8(value);
    if (chars.size() != 1) {
      return FormatError("%c requires int or char", FormatErrorKind::kTypeError);
    }
    return PercentChar(chars[0], parsed);
  }
  return UnsupportedConversion(parsed);
}

// ---- UTF-8 ----

std::u32string DecodeUtf8(std::string_view text) {
  std::u32string out;
  for (size_t pos = 0; pos < text.size();) {
    Decoded d = DecodeAt(text, pos);
    out += d.size == 0 ? 0xDC00 + d.code_point : d.code_point;
    pos += std::max<size_t>(d.size, 1);
  }
  return out;
}

void AppendUtf8(std::string& out, char32_t c) {
  if (c >= 0xDC80 && c <= 0xDCFF) {  // An escaped invalid byte.
    out += static_cast<char>(c - 0xDC00);
  } else if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string EncodeUtf8(std::u32string_view text) {
  std::string out;
  for (char32_t c : text) AppendUtf8(out, c);
  return out;
}

}  // namespace pz::eval
