// Array printing: a port of numpy 2.x arrayprint (_formatArray, FloatingFormat, IntegerFormat,
// BoolFormat) with its default options, plus the repr wrappers of numpy and JAX. Floats use the
// shortest round-trip digits at their own precision (Dragon4 "unique" mode) cut off at 8
// fractional digits; bfloat16 is not a numpy float, so it prints through ml_dtypes' "%g".
#include "array/print.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>

#include "support/check.h"

namespace pz::array {
namespace {

// numpy's default print options.
constexpr int kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kPrecision = 8;

// A finite nonzero magnitude as decimal digits: value = d[0].d[1..] × 10^exponent.
struct Decimal {
  std::string digits;
  int exponent = 0;
};

// Parses "%.Ne" / to_chars scientific output ("1.2345e+08") of a non-negative value.
Decimal ParseScientific(const std::string& text) {
  Decimal d;
  size_t e = text.find('e');
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') d.digits += text[i];
  }
  d.exponent = std::atoi(text.c_str() + e + 1);
  return d;
}

std::string Printf(const char* format, int precision, double value) {
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), format, precision, value);
  return buffer;
}

// Shortest digits that round back to the half-precision value `magnitude` (> 0), choosing the
// closest such string as Dragon4 does.
Decimal ShortestHalf(double magnitude) {
  uint16_t bits = FloatToHalfBits(static_cast<float>(magnitude));
  double up = bits == 0x7bff ? 65536.0 : HalfBitsToFloat(static_cast<uint16_t>(bits + 1));
  double down = HalfBitsToFloat(static_cast<uint16_t>(bits - 1));
  double lo = (down + magnitude) / 2;
  double hi = (magnitude + up) / 2;
  bool even = (bits & 1) == 0;
  auto accepted = [&](double d) { return (lo < d && d < hi) || (even && (d == lo || d == hi)); };
  for (int p = 1; p <= 17; ++p) {
    Decimal rounded = ParseScientific(Printf("%.*e", p - 1, magnitude));
    int64_t mantissa = std::stoll(rounded.digits);
    std::optional<int64_t> best;
    double best_error = 0;
    for (int64_t candidate : {mantissa, mantissa - 1, mantissa + 1}) {
      double value =
          std::strtod(fmt::format("{}e{}", candidate, rounded.exponent - p + 1).c_str(), nullptr);
      if (!accepted(value)) continue;
      double error = std::fabs(value - magnitude);
      if (!best || error < best_error) {
        best = candidate;
        best_error = error;
      }
    }
    if (best) {
      return ParseScientific(Printf(
          "%.*e", p - 1,
          std::strtod(fmt::format("{}e{}", *best, rounded.exponent - p + 1).c_str(), nullptr)));
    }
  }
  return ParseScientific(Printf("%.*e", 16, magnitude));
}

// Shortest round-trip digits of a finite nonzero magnitude at the precision of `dtype`.
Decimal Shortest(DType dtype, double magnitude) {
  if (dtype == DType::kFloat16) return ShortestHalf(magnitude);
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), static_cast<float>(magnitude),
                              std::chars_format::scientific);
  return ParseScientific(std::string(buffer, result.ptr));
}

std::string TrimZeros(std::string s) {
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s;
}

// dragon4_positional(x, precision=8, unique=True, trim='.') split into the integer part (with
// sign) and the fraction digits.
std::pair<std::string, std::string> Positional(DType dtype, double value, int precision) {
  std::string sign = std::signbit(value) ? "-" : "";
  double magnitude = std::fabs(value);
  if (magnitude == 0) return {sign + "0", ""};
  Decimal d = Shortest(dtype, magnitude);
  int fraction_digits = static_cast<int>(d.digits.size()) - 1 - d.exponent;
  if (fraction_digits > precision) {
    std::string text = Printf("%.*f", precision, magnitude);
    size_t dot = text.find('.');
    return {sign + text.substr(0, dot), TrimZeros(text.substr(dot + 1))};
  }
  if (d.exponent < 0) return {sign + "0", std::string(-d.exponent - 1, '0') + d.digits};
  size_t int_digits = static_cast<size_t>(d.exponent) + 1;
  if (d.digits.size() <= int_digits) {
    return {sign + d.digits + std::string(int_digits - d.digits.size(), '0'), ""};
  }
  return {sign + d.digits.substr(0, int_digits), d.digits.substr(int_digits)};
}

// dragon4_scientific(x, precision, unique=True, trim='.'): integer digit with sign, fraction
// digits and the decimal exponent.
struct Scientific {
  std::string integer;
  std::string fraction;
  int exponent = 0;
};
Scientific ScientificParts(DType dtype, double value, int precision) {
  std::string sign = std::signbit(value) ? "-" : "";
  double magnitude = std::fabs(value);
  if (magnitude == 0) return {sign + "0", "", 0};
  Decimal d = Shortest(dtype, magnitude);
  if (static_cast<int>(d.digits.size()) - 1 > precision) {
    d = ParseScientific(Printf("%.*e", precision, magnitude));
  }
  return {sign + d.digits.substr(0, 1), TrimZeros(d.digits.substr(1)), d.exponent};
}

std::string ExponentText(int exponent, int digits) {
  return fmt::format("e{}{:0{}d}", exponent < 0 ? '-' : '+', std::abs(exponent), digits);
}

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

using ElementFormat = std::function<std::string(double)>;

// numpy's FloatingFormat in "maxprec" mode, fitted to the (summarised) elements `data`.
ElementFormat FloatingFormat(DType dtype, const std::vector<double>& data) {
  std::vector<double> finite;
  bool has_negative_inf = false;
  for (double v : data) {
    if (std::isfinite(v)) finite.push_back(v);
    if (std::isinf(v) && v < 0) has_negative_inf = true;
  }
  bool exp_format = false;
  double max_val = 0, min_val = INFINITY;
  for (double v : finite) {
    if (v == 0) continue;
    max_val = std::max(max_val, std::fabs(v));
    min_val = std::min(min_val, std::fabs(v));
  }
  if (max_val > 0) {
    // The cutoff is 10^min(8, finfo.precision); the ratio is computed in the array's dtype.
    double cutoff = dtype == DType::kFloat16 ? 1e3 : 1e6;
    double ratio = RoundToDType(static_cast<float>(max_val) / static_cast<float>(min_val), dtype);
    exp_format = max_val >= cutoff || min_val < 0.0001 || ratio > 1000.;
  }
  size_t pad_left = 0, pad_right = 0;
  int precision = kPrecision, exp_size = -1;
  if (finite.empty()) {
    // Only nan/inf: the widths come from the adjustment below.
  } else if (exp_format) {
    size_t max_fraction = 0;
    int max_exp_digits = 2;
    for (double v : finite) {
      Scientific s = ScientificParts(dtype, v, kPrecision);
      pad_left = std::max(pad_left, s.integer.size());
      max_fraction = std::max(max_fraction, s.fraction.size());
      max_exp_digits =
          std::max(max_exp_digits, static_cast<int>(std::to_string(std::abs(s.exponent)).size()));
    }
    exp_size = max_exp_digits;
    precision = static_cast<int>(max_fraction);
    pad_right = static_cast<size_t>(exp_size + 2 + precision);
  } else {
    for (double v : finite) {
      auto [integer, fraction] = Positional(dtype, v, kPrecision);
      pad_left = std::max(pad_left, integer.size());
      pad_right = std::max(pad_right, fraction.size());
    }
  }
  if (finite.size() != data.size()) {
    int offset = static_cast<int>(pad_right) + 1;
    int needed = std::max(3 - offset, 3 + (has_negative_inf ? 1 : 0) - offset);
    pad_left = std::max<size_t>(pad_left, static_cast<size_t>(std::max(needed, 0)));
  }
  return [=](double v) -> std::string {
    if (!std::isfinite(v)) {
      std::string text = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      return PadLeft(text, pad_left + pad_right + 1);
    }
    if (exp_size >= 0) {
      // Digits past the shortest ones continue the exact value (Dragon4's min_digits).
      Decimal d{std::string(precision + 1, '0'), 0};
      if (v != 0) {
        d = Shortest(dtype, std::fabs(v));
        if (static_cast<int>(d.digits.size()) != precision + 1) {
          d = ParseScientific(Printf("%.*e", precision, std::fabs(v)));
        }
      }
      std::string integer = (std::signbit(v) ? "-" : "") + d.digits.substr(0, 1);
      return PadLeft(integer, pad_left) + "." + d.digits.substr(1) +
             ExponentText(d.exponent, exp_size);
    }
    auto [integer, fraction] = Positional(dtype, v, precision);
    return PadLeft(integer, pad_left) + "." + fraction +
           std::string(pad_right - fraction.size(), ' ');
  };
}

std::string FormatBFloat16(double v) { return Printf("%.*g", 6, v); }

std::string FormatInteger(double v) { return std::to_string(static_cast<int64_t>(v)); }

ElementFormat MakeElementFormat(const Array& a, const std::vector<double>& data) {
  DType dtype = a.dtype();
  if (IsBool(dtype)) {
    std::string true_text = a.rank() == 0 ? "True" : " True";
    return [true_text](double v) { return v != 0 ? true_text : std::string("False"); };
  }
  if (dtype == DType::kInt4 || dtype == DType::kUInt4) {
    // numpy prints ml_dtypes' 4-bit integers with str(), unpadded.
    return FormatInteger;
  }
  if (IsInteger(dtype)) {
    size_t width = 0;
    if (!data.empty()) {
      auto [lo, hi] = std::minmax_element(data.begin(), data.end());
      width = std::max(FormatInteger(*lo).size(), FormatInteger(*hi).size());
    }
    return [width](double v) { return PadLeft(FormatInteger(v), width); };
  }
  if (dtype == DType::kBFloat16) return FormatBFloat16;
  return FloatingFormat(dtype, data);
}

// The elements numpy's _leading_trailing keeps: all of them, or the first and last kEdgeItems
// along every axis longer than 2 * kEdgeItems when summarising.
void CollectElements(const Array& a, bool summarise, size_t axis, int64_t flat,
                     std::vector<double>& out) {
  if (axis == a.shape().size()) {
    out.push_back(a.GetDouble(flat));
    return;
  }
  int64_t n = a.shape()[axis];
  for (int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    CollectElements(a, summarise, axis + 1, flat * n + i, out);
  }
}

// numpy's _formatArray: nested brackets, wrapping at `line_width` and summarising.
class Formatter {
 public:
  Formatter(const Array& a, ElementFormat format, std::string separator, bool summarise)
      : a_(a),
        format_(std::move(format)),
        separator_(std::move(separator)),
        summarise_(summarise) {}

  std::string Run(const std::string& next_line_prefix, int line_width) {
    return Recurse(0, 0, next_line_prefix, line_width);
  }

 private:
  static std::string RStrip(std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }

  // _extendLine (words here never span several lines).
  static void ExtendLine(std::string& s, std::string& line, const std::string& word, int width,
                         const std::string& next_line_prefix) {
    bool needs_wrap = static_cast<int>(line.size() + word.size()) > width;
    if (line.size() <= next_line_prefix.size()) needs_wrap = false;
    if (needs_wrap) {
      s += RStrip(line) + "\n";
      line = next_line_prefix;
    }
    line += word;
  }

  std::string Recurse(size_t axis, int64_t flat, const std::string& hanging_indent,
                      int curr_width) {
    const Shape& shape = a_.shape();
    size_t axes_left = shape.size() - axis;
    if (axes_left == 0) return format_(a_.GetDouble(flat));
    std::string next_hanging_indent = hanging_indent + " ";
    int next_width = curr_width - 1;
    int64_t a_len = shape[axis];
    bool show_summary = summarise_ && 2 * kEdgeItems < a_len;
    int64_t leading = show_summary ? kEdgeItems : 0;
    int64_t trailing = show_summary ? kEdgeItems : a_len;
    auto child = [&](int64_t i) {
      return Recurse(axis + 1, flat * a_len + i, next_hanging_indent, next_width);
    };
    std::string s;
    if (axes_left == 1) {
      int separator_width = static_cast<int>(RStrip(separator_).size());
      int elem_width = curr_width - std::max(separator_width, 1);
      std::string line = hanging_indent;
      for (int64_t i = 0; i < leading; ++i) {
        ExtendLine(s, line, child(i), elem_width, hanging_indent);
        line += separator_;
      }
      if (show_summary) {
        ExtendLine(s, line, "...", elem_width, hanging_indent);
        line += separator_;
      }
      for (int64_t i = trailing; i > 1; --i) {
        ExtendLine(s, line, child(a_len - i), elem_width, hanging_indent);
        line += separator_;
      }
      ExtendLine(s, line, child(a_len - 1), elem_width, hanging_indent);
      s += line;
    } else {
      std::string line_sep = RStrip(separator_) + std::string(axes_left - 1, '\n');
      for (int64_t i = 0; i < leading; ++i) s += hanging_indent + child(i) + line_sep;
      if (show_summary) s += hanging_indent + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i) s += hanging_indent + child(a_len - i) + line_sep;
      s += hanging_indent + child(a_len - 1);
    }
    return "[" + s.substr(hanging_indent.size()) + "]";
  }

  const Array& a_;
  ElementFormat format_;
  std::string separator_;
  bool summarise_;
};

// numpy.array2string(a, separator=..., prefix=..., suffix=...) with default options.
std::string ArrayToString(const Array& a, const std::string& separator, const std::string& prefix,
                          const std::string& suffix) {
  if (a.size() == 0) return "[]";
  bool summarise = a.size() > kThreshold;
  std::vector<double> data;
  CollectElements(a, summarise, 0, 0, data);
  Formatter formatter(a, MakeElementFormat(a, data), separator, summarise);
  return formatter.Run(" " + std::string(prefix.size(), ' '),
                       kLineWidth - static_cast<int>(suffix.size()));
}

size_t LastLineLength(const std::string& s) {
  size_t newline = s.rfind('\n');
  return newline == std::string::npos ? s.size() : s.size() - newline - 1;
}

std::string NumpyRepr(const Array& a) {
  const std::string prefix = "array(";
  std::string body = ArrayToString(a, ", ", prefix, ")");
  std::vector<std::string> extras;
  if ((a.size() == 0 && a.shape() != Shape{0}) || a.size() > kThreshold) {
    extras.push_back("shape=" + ShapeToString(a.shape()));
  }
  if (!IsBool(a.dtype()) || a.size() == 0) {
    extras.push_back(fmt::format("dtype={}", DTypeName(a.dtype())));
  }
  if (extras.empty()) return prefix + body + ")";
  std::string arr_str = prefix + body + ",";
  std::string extra_str = fmt::format("{})", fmt::join(extras, ", "));
  bool wrap = static_cast<int>(LastLineLength(arr_str) + extra_str.size() + 1) > kLineWidth;
  return arr_str + (wrap ? "\n" + std::string(prefix.size(), ' ') : " ") + extra_str;
}

std::string JaxRepr(const Array& a) {
  const std::string prefix = "Array(";
  std::string dtype_str = fmt::format("dtype={}", DTypeName(a.dtype()));
  if (a.weak_type()) dtype_str += ", weak_type=True";
  std::string body =
      a.size() == 0 ? "[], shape=" + ShapeToString(a.shape()) : ArrayToString(a, ", ", prefix, ",");
  // JAX's own arithmetic: len(s) - s.rfind('\n') + 1, which is len(s) + 2 without a newline.
  size_t newline = body.rfind('\n');
  int64_t last_line_len = static_cast<int64_t>(body.size()) -
                          (newline == std::string::npos ? -1 : static_cast<int64_t>(newline)) + 1;
  bool wide = last_line_len + static_cast<int64_t>(dtype_str.size()) + 2 > kLineWidth;
  std::string sep = wide ? std::string(prefix.size(), ' ') : " ";
  return prefix + body + "," + sep + dtype_str + ")";
}

}  // namespace

std::string FormatScalar(DType dtype, double value) {
  if (IsBool(dtype)) return value != 0 ? "True" : "False";
  if (IsInteger(dtype)) return FormatInteger(value);
  if (dtype == DType::kBFloat16) return FormatBFloat16(value);
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  double magnitude = std::fabs(value);
  double cutoff = dtype == DType::kFloat16 ? 1e3 : 1e6;
  if (magnitude == 0 || (magnitude >= 1e-4 && magnitude < cutoff)) {
    auto [integer, fraction] = Positional(dtype, value, 64);
    return integer + "." + (fraction.empty() ? "0" : fraction);
  }
  Scientific s = ScientificParts(dtype, value, 64);
  return s.integer + (s.fraction.empty() ? "" : "." + s.fraction) + ExponentText(s.exponent, 2);
}

std::string FormatArray(const Array& a, PrintStyle style) {
  switch (style) {
    case PrintStyle::kStr:
      if (a.rank() == 0) return FormatScalar(a.dtype(), a.GetDouble(0));
      return ArrayToString(a, " ", "", "");
    case PrintStyle::kJaxRepr:
      return JaxRepr(a);
    case PrintStyle::kNumpyRepr:
      return NumpyRepr(a);
  }
  PZ_UNREACHABLE();
}

}  // namespace pz::array
