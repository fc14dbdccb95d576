// The format-spec mini-language of format(), f-strings and str.format,
// [[fill]align][sign][z][#][0][width][grouping][.precision][type], parsed and applied to ints,
// floats and strings as CPython's Python/formatter_unicode.c does (C locale, so 'n' prints no
// separators). Float digits come from DoubleToString in format.cpp.
#include "eval/format.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

namespace pz::eval {
namespace {

enum class Grouping { kNone, kComma, kUnderscore, kUnderscoreFour };

// A parsed spec; `type` is the default type when the spec names none (0 for float).
struct Spec {
  char32_t fill = ' ';
  char32_t align = '>';  // '<', '>', '^' or '='
  char32_t sign = 0;     // '+', '-', ' ', or 0 when not given
  bool no_neg_0 = false;
  bool alternate = false;
  int64_t width = -1;  // -1: not given
  Grouping grouping = Grouping::kNone;
  int64_t precision = -1;  // -1: not given
  char32_t type = 0;
};

bool IsAlign(char32_t c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

// A type code as CPython's messages show it: the character, or \x.. outside printable ASCII.
std::string CodeText(char32_t c) {
  if (c > 32 && c < 128) return std::string(1, static_cast<char>(c));
  return fmt::format("\\x{:x}", static_cast<uint32_t>(c));
}

FormatResult UnknownCode(char32_t type, std::string_view type_name) {
  return FormatError(
      fmt::format("Unknown format code '{}' for object of type '{}'", CodeText(type), type_name));
}

// CPython's parse_internal_render_format_spec.
std::optional<FormatResult> ParseSpec(std::string_view text, char32_t default_type,
                                      char32_t default_align, std::string_view type_name,
                                      Spec& spec) {
  std::u32string s = DecodeUtf8(text);
  size_t pos = 0;
  size_t end = s.size();
  spec.align = default_align;
  spec.type = default_type;
  bool fill_given = false;
  bool align_given = false;
  if (end - pos >= 2 && IsAlign(s[pos + 1])) {
    spec.fill = s[pos];
    spec.align = s[pos + 1];
    fill_given = align_given = true;
    pos += 2;
  } else if (end - pos >= 1 && IsAlign(s[pos])) {
    spec.align = s[pos];
    align_given = true;
    ++pos;
  }
  if (pos < end && (s[pos] == '+' || s[pos] == '-' || s[pos] == ' ')) spec.sign = s[pos++];
  if (pos < end && s[pos] == 'z') {
    spec.no_neg_0 = true;
    ++pos;
  }
  if (pos < end && s[pos] == '#') {
    spec.alternate = true;
    ++pos;
  }
  // A '0' before the width means zero padding between sign and digits, unless a fill is given.
  if (!fill_given && pos < end && s[pos] == '0') {
    spec.fill = '0';
    if (!align_given && default_align == '>') spec.align = '=';
    ++pos;
  }
  // Reads decimal digits at pos into `value`; the count of digits read, -1 on overflow.
  auto read_integer = [&](int64_t& value) {
    int count = 0;
    value = 0;
    for (; pos < end && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++count) {
      int digit = static_cast<int>(s[pos] - '0');
      if (value > (INT64_MAX - digit) / 10) return -1;
      value = value * 10 + digit;
    }
    return count;
  };
  const char* kTooManyDigits = "Too many decimal digits in format string";
  const char* kBothSeparators = "Cannot specify both ',' and '_'.";
  int width_digits = read_integer(spec.width);
  if (width_digits < 0) return FormatError(kTooManyDigits);
  if (width_digits == 0) spec.width = -1;
  if (spec.width > kMaxFormatWidth) return FormatError("width too big");
  if (pos < end && s[pos] == ',') {
    spec.grouping = Grouping::kComma;
    ++pos;
  }
  if (pos < end && s[pos] == '_') {
    if (spec.grouping != Grouping::kNone) return FormatError(kBothSeparators);
    spec.grouping = Grouping::kUnderscore;
    ++pos;
  }
  if (pos < end && s[pos] == ',' && spec.grouping == Grouping::kUnderscore) {
    return FormatError(kBothSeparators);
  }
  if (pos < end && s[pos] == '.') {
    ++pos;
    int precision_digits = read_integer(spec.precision);
    if (precision_digits < 0) return FormatError(kTooManyDigits);
    if (precision_digits == 0) return FormatError("Format specifier missing precision");
    if (spec.precision > kMaxFormatWidth) return FormatError("precision too big");
  }
  if (end - pos > 1) {
    return FormatError(
        fmt::format("Invalid format specifier '{}' for object of type '{}'", text, type_name));
  }
  if (end - pos == 1) spec.type = s[pos];
  if (spec.grouping == Grouping::kNone) return std::nullopt;
  switch (spec.type) {
    case 'd':
    case 'e':
    case 'f':
    case 'g':
    case 'E':
    case 'G':
    case '%':
    case 'F':
    case 0:
      return std::nullopt;
    case 'b':
    case 'o':
    case 'x':
    case 'X':
      // Underscores group binary, octal and hex digits by four (PEP 515).
      if (spec.grouping == Grouping::kUnderscore) {
        spec.grouping = Grouping::kUnderscoreFour;
        return std::nullopt;
      }
      break;
    default:
      break;
  }
  return FormatError(fmt::format("Cannot specify '{}' with '{}'.",
                                 spec.grouping == Grouping::kComma ? ',' : '_',
                                 CodeText(spec.type)));
}

// Groups `digits` from the right with `sep` every `group` digits (0: never) and extends them
// with zeros to at least `min_width` characters, never starting with a separator: CPython's
// _PyUnicode_InsertThousandsGrouping.
std::string GroupDigits(std::string_view digits, int64_t min_width, int group,
                        std::string_view sep) {
  std::string reversed;
  int64_t remaining = static_cast<int64_t>(digits.size());
  bool use_sep = false;
  auto emit_chunk = [&](int64_t length) {
    int64_t zeros = std::max<int64_t>(0, length - remaining);
    int64_t chars = std::max<int64_t>(0, std::min(remaining, length));
    if (use_sep) reversed.append(sep.rbegin(), sep.rend());
    for (int64_t i = 0; i < chars; ++i) reversed += digits[--remaining];
    reversed.append(zeros, '0');
  };
  if (group == 0) {
    emit_chunk(std::max({remaining, min_width, int64_t{1}}));
  } else {
    while (true) {
      int64_t length = std::min<int64_t>(group, std::max({remaining, min_width, int64_t{1}}));
      emit_chunk(length);
      use_sep = true;
      min_width -= length;
      if (remaining <= 0 && min_width <= 0) break;
      min_width -= static_cast<int64_t>(sep.size());
    }
  }
  return std::string(reversed.rbegin(), reversed.rend());
}

// A number split for layout: [sign][prefix][digits][.][remainder], all ASCII but `remainder`
// for 'c' (one code point).
struct NumberParts {
  bool negative = false;
  std::string prefix;         // "0x", "0o", "0b" (alternate form)
  std::string digits;         // integer digits; empty for 'c', inf and nan
  bool has_decimal = false;   // a '.' follows the digits
  std::string remainder;      // after the point: fraction, exponent, '%', or the 'c' character
  int64_t remainder_len = 0;  // in code points
};

// Pads and groups a number: CPython's calc_number_widths and fill_number, whose output is
// [lpad][sign][prefix][spad][grouped digits][.][remainder][rpad].
std::string LayOutNumber(const Spec& spec, const NumberParts& parts) {
  std::string sign;
  if (parts.negative) {
    sign = "-";
  } else if (spec.sign == '+' || spec.sign == ' ') {
    sign = std::string(1, static_cast<char>(spec.sign));
  }
  int64_t non_digits = static_cast<int64_t>(sign.size() + parts.prefix.size()) +
                       (parts.has_decimal ? 1 : 0) + parts.remainder_len;
  int64_t min_width = spec.fill == '0' && spec.align == '=' ? spec.width - non_digits : 0;
  std::string grouped;
  if (!parts.digits.empty()) {
    switch (spec.grouping) {
      case Grouping::kNone:
        grouped = GroupDigits(parts.digits, min_width, 0, "");
        break;
      case Grouping::kComma:
        grouped = GroupDigits(parts.digits, min_width, 3, ",");
        break;
      case Grouping::kUnderscore:
        grouped = GroupDigits(parts.digits, min_width, 3, "_");
        break;
      case Grouping::kUnderscoreFour:
        grouped = GroupDigits(parts.digits, min_width, 4, "_");
        break;
    }
  }
  int64_t padding =
      std::max<int64_t>(0, spec.width - (non_digits + static_cast<int64_t>(grouped.size())));
  int64_t left = 0;
  int64_t middle = 0;
  int64_t right = 0;
  if (spec.align == '<') {
    right = padding;
  } else if (spec.align == '^') {
    left = padding / 2;
    right = padding - left;
  } else if (spec.align == '=') {
    middle = padding;
  } else {
    left = padding;
  }
  std::string fill;
  AppendUtf8(fill, spec.fill);
  std::string out;
  auto pad = [&](int64_t count) {
    for (int64_t i = 0; i < count; ++i) out += fill;
  };
  pad(left);
  out += sign;
  out += parts.prefix;
  pad(middle);
  out += grouped;
  if (parts.has_decimal) out += '.';
  out += parts.remainder;
  pad(right);
  return out;
}

// CPython's format_float_internal, for floats and for ints with a float type.
FormatResult FormatFloatWithSpec(double value, const Spec& spec) {
  if (spec.precision > INT_MAX) return FormatError("precision too big");
  DoubleFormat how{.alternate = spec.alternate, .no_neg_0 = spec.no_neg_0};
  char32_t type = spec.type;
  int default_precision = 6;
  if (type == 0) {  // Like repr, or with a precision like 'g' keeping a digit after the point.
    how.add_dot_0 = true;
    type = 'r';
    default_precision = 0;
  }
  if (type == 'n') type = 'g';
  bool percent = type == '%';
  if (percent) {
    type = 'f';
    value *= 100;
  }
  if (spec.precision < 0) {
    how.precision = default_precision;
  } else {
    how.precision = static_cast<int>(spec.precision);
    if (type == 'r') type = 'g';
  }
  how.type = static_cast<char>(type);
  std::string text = DoubleToString(value, how);
  if (percent) text += '%';
  NumberParts parts;
  std::string_view rest = text;
  if (rest.front() == '-') {
    parts.negative = true;
    rest.remove_prefix(1);
  }
  size_t digit_count = 0;
  while (digit_count < rest.size() && rest[digit_count] >= '0' && rest[digit_count] <= '9') {
    ++digit_count;
  }
  parts.digits = rest.substr(0, digit_count);
  rest.remove_prefix(digit_count);
  parts.has_decimal = !rest.empty() && rest.front() == '.';
  if (parts.has_decimal) rest.remove_prefix(1);
  parts.remainder = rest;
  parts.remainder_len = static_cast<int64_t>(rest.size());
  return FormatResult{.text = LayOutNumber(spec, parts)};
}

// CPython's format_long_internal, for the integer types b c d o x X n.
FormatResult FormatIntWithSpec(int64_t value, const Spec& spec) {
  if (spec.precision != -1) return FormatError("Precision not allowed in integer format specifier");
  if (spec.no_neg_0) {
    return FormatError("Negative zero coercion (z) not allowed in integer format specifier");
  }
  NumberParts parts;
  if (spec.type == 'c') {
    if (spec.sign != 0) return FormatError("Sign not allowed with integer format specifier 'c'");
    if (spec.alternate) {
      return FormatError("Alternate form (#) not allowed with integer format specifier 'c'");
    }
    if (value < 0 || value > 0x10FFFF) {
      return FormatError("%c arg not in range(0x110000)", FormatErrorKind::kOverflowError);
    }
    AppendUtf8(parts.remainder, static_cast<char32_t>(value));
    parts.remainder_len = 1;
    return FormatResult{.text = LayOutNumber(spec, parts)};
  }
  int base = 10;
  if (spec.type == 'b') base = 2;
  if (spec.type == 'o') base = 8;
  if (spec.type == 'x' || spec.type == 'X') base = 16;
  if (spec.alternate && base != 10) {
    char letter = base == 2 ? 'b' : base == 8 ? 'o' : spec.type == 'X' ? 'X' : 'x';
    parts.prefix = {'0', letter};
  }
  parts.negative = value < 0;
  uint64_t magnitude = parts.negative ? 0 - static_cast<uint64_t>(value) : value;
  do {
    int digit = static_cast<int>(magnitude % base);
    char a = spec.type == 'X' ? 'A' : 'a';
    parts.digits += static_cast<char>(digit < 10 ? '0' + digit : a + digit - 10);
    magnitude /= base;
  } while (magnitude != 0);
  std::reverse(parts.digits.begin(), parts.digits.end());
  return FormatResult{.text = LayOutNumber(spec, parts)};
}

}  // namespace

FormatResult FormatInt(int64_t value, std::string_view spec) {
  if (spec.empty()) return FormatResult{.text = std::to_string(value)};
  Spec parsed;
  if (auto error = ParseSpec(spec, 'd', '>', "int", parsed)) return *error;
  switch (parsed.type) {
    case 'b':
    case 'c':
    case 'd':
    case 'o':
    case 'x':
    case 'X':
    case 'n':
      return FormatIntWithSpec(value, parsed);
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case '%':
      return FormatFloatWithSpec(static_cast<double>(value), parsed);
    default:
      return UnknownCode(parsed.type, "int");
  }
}

FormatResult FormatFloat(double value, std::string_view spec) {
  if (spec.empty()) return FormatResult{.text = FloatRepr(value)};
  Spec parsed;
  if (auto error = ParseSpec(spec, 0, '>', "float", parsed)) return *error;
  switch (parsed.type) {
    case 0:
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case 'n':
    case '%':
      return FormatFloatWithSpec(value, parsed);
    default:
      return UnknownCode(parsed.type, "float");
  }
}

// CPython's format_string_internal.
FormatResult FormatStr(std::string_view value, std::string_view spec) {
  if (spec.empty()) return FormatResult{.text = std::string(value)};
  Spec parsed;
  if (auto error = ParseSpec(spec, 's', '<', "str", parsed)) return *error;
  if (parsed.type != 's') return UnknownCode(parsed.type, "str");
  if (parsed.sign == ' ') return FormatError("Space not allowed in string format specifier");
  if (parsed.sign != 0) return FormatError("Sign not allowed in string format specifier");
  if (parsed.no_neg_0) {
    return FormatError("Negative zero coercion (z) not allowed in string format specifier");
  }
  if (parsed.alternate) {
    return FormatError("Alternate form (#) not allowed in string format specifier");
  }
  if (parsed.align == '=') {
    return FormatError("'=' alignment not allowed in string format specifier");
  }
  std::u32string chars = DecodeUtf8(value);
  if (parsed.precision >= 0 && static_cast<int64_t>(chars.size()) > parsed.precision) {
    chars.resize(parsed.precision);
  }
  int64_t len = static_cast<int64_t>(chars.size());
  int64_t total = std::max(parsed.width, len);
  int64_t left = 0;
  if (parsed.align == '>') left = total - len;
  if (parsed.align == '^') left = (total - len) / 2;
  std::u32string out(left, parsed.fill);
  out += chars;
  out.append(total - len - left, parsed.fill);
  return FormatResult{.text = EncodeUtf8(out)};
}

}  // namespace pz::eval
