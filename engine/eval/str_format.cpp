// str.format() and the `%` operator on strings. Both parse their template here and hand each
// value to the formatters of eval/format.h (through Interpreter::Format for str.format), raising
// the exceptions CPython 3.11 raises for malformed templates and mismatched arguments.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "eval/builtin_support.h"
#include "eval/format.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

[[noreturn]] void RaiseFormatError(Interpreter& interp, const FormatResult& result) {
  const BuiltinTypes& t = interp.types();
  TypeObject* type = result.error_kind == FormatErrorKind::kTypeError       ? t.type_error
                     : result.error_kind == FormatErrorKind::kOverflowError ? t.overflow_error
                                                                            : t.value_error;
  interp.Raise(type, result.error);
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A field index of digits; saturates instead of overflowing (it is then out of range anyway).
int64_t ParseIndex(std::string_view digits) {
  int64_t value = 0;
  for (char c : digits) value = std::min<int64_t>(value * 10 + (c - '0'), INT64_MAX / 10);
  return value;
}

// ascii(): repr with non-ASCII characters escaped.
std::string Ascii(Interpreter& interp, const Value& value) {
  std::string out;
  for (char32_t c : DecodeUtf8(interp.Repr(value))) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      auto code = static_cast<uint32_t>(c);
      out += code < 0x100     ? fmt::format("\\x{:02x}", code)
             : code < 0x10000 ? fmt::format("\\u{:04x}", code)
                              : fmt::format("\\U{:08x}", code);
    }
  }
  return out;
}

// ---- str.format -----------------------------------------------------------------------------

class Formatter {
 public:
  Formatter(Interpreter& interp, const CallArgs& args) : interp_(interp), args_(args) {}

  std::string Render(std::string_view format, int depth) {
    if (depth > 2) interp_.Raise(interp_.types().value_error, "Max string recursion exceeded");
    std::string out;
    size_t i = 0, n = format.size();
    while (i < n) {
      char c = format[i];
      if (c == '}') {
        if (i + 1 < n && format[i + 1] == '}') {
          out += '}';
          i += 2;
          continue;
        }
        interp_.Raise(interp_.types().value_error, "Single '}' encountered in format string");
      }
      if (c != '{') {
        out += c;
        ++i;
        continue;
      }
      if (i + 1 < n && format[i + 1] == '{') {
        out += '{';
        i += 2;
        continue;
      }
      if (i + 1 == n) {
        interp_.Raise(interp_.types().value_error, "Single '{' encountered in format string");
      }
      size_t j = i + 1;
      for (int nesting = 1; j < n; ++j) {
        if (format[j] == '{') ++nesting;
        if (format[j] == '}' && --nesting == 0) break;
      }
      if (j == n) {
        interp_.Raise(interp_.types().value_error, "expected '}' before end of string");
      }
      out += Field(format.substr(i + 1, j - i - 1), depth);
      i = j + 1;
    }
    return out;
  }

 private:
  // One replacement field: name [!conversion] [:spec].
  std::string Field(std::string_view field, int depth) {
    size_t end = 0;
    for (int brackets = 0; end < field.size(); ++end) {
      char c = field[end];
      if (c == '[') ++brackets;
      if (c == ']') --brackets;
      if (brackets == 0 && (c == '!' || c == ':')) break;
    }
    Value value = Lookup(field.substr(0, end));
    char conversion = 0;
    if (end < field.size() && field[end] == '!') {
      if (end + 1 >= field.size()) {
        interp_.Raise(interp_.types().value_error,
                      "end of string while looking for conversion specifier");
      }
      conversion = field[end + 1];
      end += 2;
      if (end < field.size() && field[end] != ':') {
        interp_.Raise(interp_.types().value_error, "expected ':' after conversion specifier");
      }
    }
    std::string spec;
    if (end < field.size()) spec = Render(field.substr(end + 1), depth + 1);
    switch (conversion) {
      case 0:
        break;
      case 'r':
        value = MakeStr(interp_.Repr(value));
        break;
      case 'a':
        value = MakeStr(Ascii(interp_, value));
        break;
      case 's':
        value = MakeStr(interp_.Str(value));
        break;
      default:
        interp_.Raise(interp_.types().value_error,
                      fmt::format("Unknown conversion specifier {}", conversion));
    }
    return interp_.Format(value, spec);
  }

  // field_name: (index | name | empty) followed by .attr and [key] parts.
  Value Lookup(std::string_view name) {
    size_t end = 0;
    while (end < name.size() && name[end] != '.' && name[end] != '[') ++end;
    std::string_view first = name.substr(0, end);
    Value value;
    if (first.empty() || AllDigits(first)) {
      size_t index;
      if (first.empty()) {
        if (manual_) Switching(true);
        automatic_ = true;
        index = next_index_++;
      } else {
        if (automatic_) Switching(false);
        manual_ = true;
        index = static_cast<size_t>(ParseIndex(first));
      }
      if (index >= args_.positional.size()) {
        interp_.Raise(
            interp_.types().index_error,
            fmt::format("Replacement index {} out of range for positional args tuple", index));
      }
      value = args_.positional[index];
    } else {
      bool found = false;
      for (const auto& [key, v] : args_.keywords) {
        if (key == first) {
          value = v;
          found = true;
        }
      }
      if (!found) RaiseWithArg(interp_, interp_.types().key_error, MakeStr(std::string(first)));
    }
    while (end < name.size()) {
      if (name[end] == '.') {
        size_t next = end + 1;
        while (next < name.size() && name[next] != '.' && name[next] != '[') ++next;
        value = interp_.GetAttr(value, name.substr(end + 1, next - end - 1));
        end = next;
        continue;
      }
      size_t close = name.find(']', end);
      if (close == std::string_view::npos) {
        interp_.Raise(interp_.types().value_error, "Missing ']' in format string");
      }
      std::string_view key = name.substr(end + 1, close - end - 1);
      value = interp_.GetItem(
          value, AllDigits(key) ? Value::Int(ParseIndex(key)) : MakeStr(std::string(key)));
      end = close + 1;
      if (end < name.size() && name[end] != '.' && name[end] != '[') {
        interp_.Raise(interp_.types().value_error,
                      "Only '.' or '[' may follow ']' in format field specifier");
      }
    }
    return value;
  }

  [[noreturn]] void Switching(bool to_automatic) {
    interp_.Raise(interp_.types().value_error,
                  to_automatic ? "cannot switch from manual field specification to automatic "
                                 "field numbering"
                               : "cannot switch from automatic field numbering to manual field "
                                 "specification");
  }

  Interpreter& interp_;
  const CallArgs& args_;
  size_t next_index_ = 0;
  bool automatic_ = false;
  bool manual_ = false;
};

// ---- % ----------------------------------------------------------------------------------------

// One `%` conversion applied to `value`.
std::string Convert(Interpreter& interp, const Value& value, const std::string& spec) {
  char conversion = spec.back();
  FormatResult result;
  if (conversion == 's' || conversion == 'r' || conversion == 'a') {
    std::string text = conversion == 's'   ? interp.Str(value)
                       : conversion == 'r' ? interp.Repr(value)
                                           : Ascii(interp, value);
    result = PercentFormatStr(text, spec);
  } else if (value.is_integral()) {
    result = PercentFormatInt(value.integral(), spec);
  } else if (value.is_float()) {
    result = PercentFormatFloat(value.as_float(), spec);
  } else if (auto* str = value.as<StrObject>()) {
    result = PercentFormatStr(str->value, spec);
  } else if (value.is(ObjectKind::kExtension) && conversion != 'c') {
    result = PercentFormatFloat(ToDouble(interp, value), spec);
  } else if (conversion == 'c') {
    interp.Raise(interp.types().type_error, "%c requires int or char");
  } else if (std::string_view("eEfFgG").find(conversion) != std::string_view::npos) {
    interp.Raise(interp.types().type_error,
                 fmt::format("must be real number, not {}", interp.TypeName(value)));
  } else {
    interp.Raise(
        interp.types().type_error,
        fmt::format("%{} format: {} is required, not {}", conversion,
                    conversion == 'd' || conversion == 'i' || conversion == 'u' ? "a real number"
                                                                                : "an integer",
                    interp.TypeName(value)));
  }
  if (!result.ok()) RaiseFormatError(interp, result);
  return result.text;
}

}  // namespace

Value StrFormatMethod(Interpreter& interp, const std::string& format, const CallArgs& args) {
  return MakeStr(Formatter(interp, args).Render(format, 0));
}

Value PercentFormat(Interpreter& interp, const std::string& format, const Value& args) {
  std::vector<Value> values;
  if (auto* tuple = args.as<TupleObject>()) {
    values = tuple->items;
  } else {
    values.push_back(args);
  }
  // Like CPython, a non-tuple argument with __getitem__ serves %(key)s and is not "unconverted".
  bool mapping =
      !args.is(ObjectKind::kTuple) &&
      (args.is(ObjectKind::kDict) || args.is(ObjectKind::kList) || args.is(ObjectKind::kExtension));
  size_t next = 0;
  auto next_value = [&]() -> Value {
    if (next >= values.size()) {
      interp.Raise(interp.types().type_error, "not enough arguments for format string");
    }
    return values[next++];
  };
  std::string out;
  size_t i = 0, n = format.size();
  auto incomplete = [&]() {
    if (i >= n) interp.Raise(interp.types().value_error, "incomplete format");
  };
  while (i < n) {
    if (format[i] != '%') {
      out += format[i++];
      continue;
    }
    ++i;
    incomplete();
    if (format[i] == '%') {
      out += '%';
      ++i;
      continue;
    }
    std::optional<Value> keyed;
    if (format[i] == '(') {
      if (!mapping) interp.Raise(interp.types().type_error, "format requires a mapping");
      size_t begin = ++i;
      for (int nesting = 1; i < n; ++i) {
        if (format[i] == '(') ++nesting;
        if (format[i] == ')' && --nesting == 0) break;
      }
      if (i >= n) interp.Raise(interp.types().value_error, "incomplete format key");
      keyed = interp.GetItem(args, MakeStr(format.substr(begin, i - begin)));
      ++i;
    }
    std::string spec;
    while (i < n && std::string_view("-+ #0").find(format[i]) != std::string_view::npos) {
      spec += format[i++];
    }
    auto number = [&]() {
      if (i < n && format[i] == '*') {
        ++i;
        Value star = next_value();
        if (!star.is_integral()) interp.Raise(interp.types().type_error, "* wants int");
        int64_t n = star.integral();
        CheckStringLength(interp, n >= -kMaxStringLength ? std::abs(n) : kMaxStringLength + 1);
        spec += std::to_string(star.integral());
        return;
      }
      while (i < n && std::isdigit(static_cast<unsigned char>(format[i]))) spec += format[i++];
    };
    number();
    if (i < n && format[i] == '.') {
      spec += format[i++];
      number();
    }
    while (i < n && (format[i] == 'h' || format[i] == 'l' || format[i] == 'L')) ++i;
    incomplete();
    char conversion = format[i];
    if (std::string_view("sradiouxXeEfFgGc").find(conversion) == std::string_view::npos) {
      interp.Raise(interp.types().value_error,
                   fmt::format("unsupported format character '{}' (0x{:x}) at index {}", conversion,
                               static_cast<unsigned char>(conversion), i));
    }
    spec += conversion;
    ++i;
    out += Convert(interp, keyed ? *keyed : next_value(), spec);
  }
  if (next < values.size() && !mapping) {
    interp.Raise(interp.types().type_error, "not all arguments converted during string formatting");
  }
  return MakeStr(std::move(out));
}

}  // namespace pz::eval
