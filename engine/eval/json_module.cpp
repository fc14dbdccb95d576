// The `json` module: dumps() with CPython's formatting (indent, separators, sort_keys,
// ensure_ascii, allow_nan, skipkeys, default) and loads() with its decoder's errors
// (json.decoder.JSONDecodeError with msg/pos/lineno/colno), object_hook, object_pairs_hook,
// parse_float and parse_int. Positions count code points, as Python does.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "eval/builtin_support.h"
#include "eval/classes_internal.h"
#include "eval/format.h"

namespace pz::eval {
namespace {

// The module's exception type, which the parser raises.
struct JsonState {
  Value decode_error;
};

// Containers nested deeper than this are a RecursionError, as CPython's recursion limit makes
// them, instead of a C++ stack overflow.
constexpr int kMaxDepth = 1000;

// ---- dumps ------------------------------------------------------------------------------------

struct Encoder {
  Interpreter& interp;
  std::optional<std::string> indent;  // nullopt: everything on one line
  std::string item_separator = ", ";
  std::string key_separator = ": ";
  bool sort_keys = false, skip_keys = false, ensure_ascii = true, allow_nan = true;
  bool check_circular = true;
  Value default_fn;
  std::unordered_set<const Object*> active;  // containers being encoded (cycle check)

  void String(std::string& out, const std::string& text) const {
    out += '"';
    for (char32_t c : DecodeUtf8(text)) {
      switch (c) {
        case '"':
          out += "\\\"";
          continue;
        case '\\':
          out += "\\\\";
          continue;
        case '\n':
          out += "\\n";
          continue;
        case '\r':
          out += "\\r";
          continue;
        case '\t':
          out += "\\t";
          continue;
        case '\b':
          out += "\\b";
          continue;
        case '\f':
          out += "\\f";
          continue;
        default:
          break;
      }
      if (c < 0x20 || (ensure_ascii && c >= 0x7f)) {
        if (c > 0xFFFF) {
          char32_t v = c - 0x10000;
          out += fmt::format("\\u{:04x}\\u{:04x}", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
        } else {
          out += fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
        }
      } else {
        AppendUtf8(out, c);
      }
    }
    out += '"';
  }

  std::string Float(double d) const {
    if (std::isfinite(d)) return FloatRepr(d);
    if (!allow_nan) {
      interp.Raise(interp.types().value_error, "Out of range float values are not JSON compliant");
    }
    return std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity");
  }

  void NewLine(std::string& out, int depth) const {
    out += '\n';
    for (int i = 0; i < depth; ++i) out += *indent;
  }

  // A dict key as JSON text, or nullopt to skip it (skipkeys).
  std::optional<std::string> Key(const Value& key) const {
    if (auto* s = key.as<StrObject>()) return s->value;
    if (key.is_float()) return Float(key.as_float());
    if (key.is_bool()) return key.as_bool() ? "true" : "false";
    if (key.is_int()) return std::to_string(key.as_int());
    if (key.is_none()) return "null";
    if (skip_keys) return std::nullopt;
    interp.Raise(
        interp.types().type_error,
        fmt::format("keys must be str, int, float, bool or None, not {}", interp.TypeName(key)));
  }

  void Encode(std::string& out, const Value& v, int depth) {
    if (v.is_none()) {
      out += "null";
    } else if (v.is_bool()) {
      out += v.as_bool() ? "true" : "false";
    } else if (v.is_int()) {
      out += std::to_string(v.as_int());
    } else if (v.is_float()) {
      out += Float(v.as_float());
    } else if (auto* member = v.as<InstanceObject>();
               member != nullptr && IsIntEnumMember(*member)) {
      // An IntEnum member is an int: encoded as its value, as CPython does.
      Encode(out, *member->Find("_value_"), depth);
    } else if (auto* s = v.as<StrObject>()) {
      String(out, s->value);
    } else if (v.is(ObjectKind::kList) || v.is(ObjectKind::kTuple) || v.is(ObjectKind::kDict)) {
      Container(out, v, depth);
    } else if (!default_fn.is_none()) {
      Enter(v, depth);
      Encode(out, interp.Call(default_fn, std::vector<Value>{v}), depth + 1);
      active.erase(v.object().get());
    } else {
      interp.Raise(interp.types().type_error,
                   fmt::format("Object of type {} is not JSON serializable", interp.TypeName(v)));
    }
  }

  void Enter(const Value& v, int depth) {
    if (depth > kMaxDepth) {
      interp.Raise(interp.types().recursion_error,
                   "maximum recursion depth exceeded while encoding a JSON object");
    }
    if (check_circular && !active.insert(v.object().get()).second) {
      interp.Raise(interp.types().value_error, "Circular reference detected");
    }
  }

  void Container(std::string& out, const Value& v, int depth) {
    auto* dict = v.as<DictObject>();
    std::vector<std::pair<Value, Value>> items;
    if (dict != nullptr) {
      items = dict->Items();
    } else {
      for (const Value& item : interp.ToVector(v)) items.emplace_back(Value(), item);
    }
    if (items.empty()) {
      out += dict ? "{}" : "[]";
      return;
    }
    Enter(v, depth);
    if (dict && sort_keys) {
      // Dict keys are distinct, so an unstable sort orders them the same way.
      std::sort(items.begin(), items.end(),
                [&](const auto& a, const auto& b) { return interp.Less(a.first, b.first); });
    }
    out += dict ? '{' : '[';
    bool first = true;
    for (const auto& [key, item] : items) {
      std::optional<std::string> name;
      if (dict && !(name = Key(key))) continue;
      if (!first) out += indent ? TrimRight(item_separator) : item_separator;
      first = false;
      if (indent) NewLine(out, depth + 1);
      if (name) {
        String(out, *name);
        out += key_separator;
      }
      Encode(out, item, depth + 1);
    }
    if (indent) NewLine(out, depth);
    out += dict ? '}' : ']';
    active.erase(v.object().get());
  }

  // With an indent, the item separator's trailing spaces would end each line.
  static std::string TrimRight(const std::string& s) {
    size_t end = s.find_last_not_of(' ');
    return end == std::string::npos ? "" : s.substr(0, end + 1);
  }
};

Value Dumps(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "dumps", args,
                        {"obj", "*", "skipkeys=", "ensure_ascii=", "check_circular=", "allow_nan=",
                         "cls=", "indent=", "separators=", "default=", "sort_keys="});
  Encoder encoder{interp};
  auto flag = [&](size_t i, bool fallback) {
    return bound[i] ? interp.Truthy(*bound[i]) : fallback;
  };
  encoder.skip_keys = flag(1, false);
  encoder.ensure_ascii = flag(2, true);
  encoder.check_circular = flag(3, true);
  encoder.allow_nan = flag(4, true);
  if (bound[5] && !bound[5]->is_none()) {
    interp.Raise(interp.types().not_implemented_error,
                 "json.dumps(cls=...) is not supported here; pass default= instead");
  }
  if (bound[6] && !bound[6]->is_none()) {
    if (auto* text = bound[6]->as<StrObject>()) {
      encoder.indent = text->value;
    } else {
      encoder.indent = std::string(std::max<int64_t>(ToIndex(interp, *bound[6]), 0), ' ');
    }
    encoder.item_separator = ",";
  }
  if (bound[7] && !bound[7]->is_none()) {
    std::vector<Value> pair = interp.ToVector(*bound[7]);
    if (pair.size() != 2) {
      interp.Raise(interp.types().value_error,
                   fmt::format("too many values to unpack (expected 2)"));
    }
    encoder.item_separator = ToStr(interp, pair[0], "separators must be strings, not %s");
    encoder.key_separator = ToStr(interp, pair[1], "separators must be strings, not %s");
  }
  encoder.default_fn = bound[8].value_or(Value());
  encoder.sort_keys = flag(9, false);
  std::string out;
  encoder.Encode(out, *bound[0], 0);
  return MakeStr(std::move(out));
}

// ---- loads ------------------------------------------------------------------------------------

// CPython's json scanner over the code points of the document.
class Decoder {
 public:
  Decoder(Interpreter& interp, const Value& doc, Value object_hook, Value pairs_hook,
          Value parse_float, Value parse_int)
      : interp_(interp),
        doc_(doc),
        text_(DecodeUtf8(doc.as<StrObject>()->value)),
        object_hook_(std::move(object_hook)),
        pairs_hook_(std::move(pairs_hook)),
        parse_float_(std::move(parse_float)),
        parse_int_(std::move(parse_int)) {}

  Value Decode() {
    size_t i = SkipSpace(0);
    Value value = ParseValue(i, 0);
    i = SkipSpace(i);
    if (i != text_.size()) Fail("Extra data", i);
    return value;
  }

 private:
  [[noreturn]] void Fail(const char* message, size_t pos) {
    auto line = static_cast<int64_t>(std::count(text_.begin(), text_.begin() + pos, U'\n')) + 1;
    size_t newline = pos == 0 ? std::u32string::npos : text_.rfind(U'\n', pos - 1);
    auto column = static_cast<int64_t>(newline == std::u32string::npos ? pos + 1 : pos - newline);
    auto error = interp_.NewException(
        interp_.State<JsonState>().decode_error.as<TypeObject>(),
        {MakeStr(fmt::format("{}: line {} column {} (char {})", message, line, column, pos))});
    error->attrs["msg"] = MakeStr(message);
    error->attrs["doc"] = doc_;
    error->attrs["pos"] = Value::Int(static_cast<int64_t>(pos));
    error->attrs["lineno"] = Value::Int(line);
    error->attrs["colno"] = Value::Int(column);
    interp_.Throw(error);
  }

  bool At(size_t i, char32_t c) const { return i < text_.size() && text_[i] == c; }
  bool Word(size_t i, std::u32string_view word) const {
    return text_.compare(i, word.size(), word) == 0;
  }
  size_t SkipSpace(size_t i) const {
    while (i < text_.size() &&
           (text_[i] == ' ' || text_[i] == '\t' || text_[i] == '\n' || text_[i] == '\r')) {
      ++i;
    }
    return i;
  }
  static bool IsDigit(char32_t c) { return c >= '0' && c <= '9'; }

  Value ParseValue(size_t& i, int depth) {
    if (depth > kMaxDepth) {
      interp_.Raise(interp_.types().recursion_error,
                    "maximum recursion depth exceeded while decoding a JSON document");
    }
    if (i >= text_.size()) Fail("Expecting value", i);
    char32_t c = text_[i];
    if (c == '"') return ParseString(++i);
    if (c == '{') return ParseObject(++i, depth);
    if (c == '[') return ParseArray(++i, depth);
    const std::pair<std::u32string_view, Value> words[] = {
        {U"null", Value()},
        {U"true", Value::Bool(true)},
        {U"false", Value::Bool(false)},
    };
    for (const auto& [word, value] : words) {
      if (Word(i, word)) {
        i += word.size();
        return value;
      }
    }
    if (std::optional<Value> number = ParseNumber(i)) return *number;
    const std::pair<std::u32string_view, double> constants[] = {
        {U"NaN", NAN}, {U"Infinity", INFINITY}, {U"-Infinity", -INFINITY}};
    for (const auto& [word, value] : constants) {
      if (Word(i, word)) {
        i += word.size();
        return parse_float_.is_none() ? Value::Float(value)
                                      : interp_.Call(parse_float_, {MakeStr(EncodeUtf8(word))});
      }
    }
    Fail("Expecting value", i);
  }

  // -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?, or nullopt.
  std::optional<Value> ParseNumber(size_t& i) {
    size_t j = i;
    if (At(j, '-')) ++j;
    if (At(j, '0')) {
      ++j;
    } else if (j < text_.size() && text_[j] >= '1' && text_[j] <= '9') {
      while (j < text_.size() && IsDigit(text_[j])) ++j;
    } else {
      return std::nullopt;
    }
    bool is_float = false;
    if (At(j, '.') && j + 1 < text_.size() && IsDigit(text_[j + 1])) {
      is_float = true;
      for (j += 1; j < text_.size() && IsDigit(text_[j]);) ++j;
    }
    if ((At(j, 'e') || At(j, 'E'))) {
      size_t k = j + 1;
      if (At(k, '+') || At(k, '-')) ++k;
      if (k < text_.size() && IsDigit(text_[k])) {
        is_float = true;
        for (j = k; j < text_.size() && IsDigit(text_[j]);) ++j;
      }
    }
    std::string digits = EncodeUtf8(text_.substr(i, j - i));
    i = j;
    const Value& hook = is_float ? parse_float_ : parse_int_;
    if (!hook.is_none()) return interp_.Call(hook, {MakeStr(digits)});
    if (is_float) return Value::Float(std::strtod(digits.c_str(), nullptr));
    int64_t value = 0;
    for (char d : digits.substr(digits[0] == '-' ? 1 : 0)) {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, d - '0', &value)) {
        RaiseIntOverflow(interp_);
      }
    }
    return Value::Int(digits[0] == '-' ? -value : value);
  }

  // From just after the opening quote to just after the closing one.
  Value ParseString(size_t& i) {
    size_t begin = i - 1;
    std::u32string out;
    for (;;) {
      if (i >= text_.size()) Fail("Unterminated string starting at", begin);
      char32_t c = text_[i];
      if (c == '"') break;
      if (c < 0x20) Fail("Invalid control character at", i);
      if (c != '\\') {
        out += c;
        ++i;
        continue;
      }
      if (i + 1 >= text_.size()) Fail("Unterminated string starting at", begin);
      char32_t escape = text_[i + 1];
      if (escape == 'u') {
        char32_t unit = Hex4(i + 2, i + 1);
        i += 6;
        if (unit >= 0xD800 && unit <= 0xDBFF && Word(i, U"\\u")) {
          char32_t low = Hex4(i + 2, i + 1);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        out += unit;
        continue;
      }
      static constexpr std::u32string_view kEscapes = U"\"\"\\\\//b\bf\fn\nr\rt\t";
      size_t at = kEscapes.find(escape);
      if (at == std::u32string_view::npos || at % 2 != 0) Fail("Invalid \\escape", i);
      out += kEscapes[at + 1];
      i += 2;
    }
    ++i;
    return MakeStr(EncodeUtf8(out));
  }

  char32_t Hex4(size_t i, size_t error_pos) {
    char32_t value = 0;
    for (size_t k = i; k < i + 4; ++k) {
      char32_t c = k < text_.size() ? text_[k] : 0;
      int digit = IsDigit(c)                               ? static_cast<int>(c - '0')
                  : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? static_cast<int>((c | 0x20) - 'a' + 10)
                                                           : -1;
      if (digit < 0) Fail("Invalid \\uXXXX escape", error_pos);
      value = value * 16 + digit;
    }
    return value;
  }

  Value ParseArray(size_t& i, int depth) {
    std::vector<Value> items;
    i = SkipSpace(i);
    if (At(i, ']')) {
      ++i;
      return NewList(interp_, {});
    }
    for (;;) {
      items.push_back(ParseValue(i, depth + 1));
      i = SkipSpace(i);
      if (At(i, ']')) break;
      if (!At(i, ',')) Fail("Expecting ',' delimiter", i);
      i = SkipSpace(i + 1);
    }
    ++i;
    return NewList(interp_, std::move(items));
  }

  Value ParseObject(size_t& i, int depth) {
    std::vector<std::pair<Value, Value>> pairs;
    i = SkipSpace(i);
    if (!At(i, '}')) {
      for (;;) {
        if (!At(i, '"')) Fail("Expecting property name enclosed in double quotes", i);
        Value key = ParseString(++i);
        i = SkipSpace(i);
        if (!At(i, ':')) Fail("Expecting ':' delimiter", i);
        i = SkipSpace(i + 1);
        pairs.emplace_back(key, ParseValue(i, depth + 1));
        i = SkipSpace(i);
        if (At(i, '}')) break;
        if (!At(i, ',')) Fail("Expecting ',' delimiter", i);
        i = SkipSpace(i + 1);
      }
    }
    ++i;
    if (!pairs_hook_.is_none()) {
      std::vector<Value> list;
      for (auto& [k, v] : pairs) list.push_back(MakeTuple({k, v}));
      return interp_.Call(pairs_hook_, {NewList(interp_, std::move(list))});
    }
    auto dict = NewDict(interp_);
    for (auto& [k, v] : pairs) dict->Set(interp_, k, v);
    if (!object_hook_.is_none()) return interp_.Call(object_hook_, {Value(dict)});
    return Value(dict);
  }

  Interpreter& interp_;
  Value doc_;
  std::u32string text_;
  Value object_hook_, pairs_hook_, parse_float_, parse_int_;
};

Value JsonLoads(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "loads", args,
                        {"s", "*", "cls=", "object_hook=", "parse_float=", "parse_int=",
                         "parse_constant=", "object_pairs_hook=", "strict="});
  if (!bound[0]->is(ObjectKind::kStr)) {
    interp.Raise(interp.types().type_error,
                 fmt::format("the JSON object must be str, bytes or bytearray, not {}",
                             interp.TypeName(*bound[0])));
  }
  auto hook = [&](size_t i) { return bound[i].value_or(Value()); };
  return Decoder(interp, *bound[0], hook(2), hook(6), hook(3), hook(4)).Decode();
}

}  // namespace

std::shared_ptr<ModuleObject> MakeJsonModule(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("json");
  module->Set("dumps", interp.MakeBuiltin("dumps", Dumps));
  module->Set("loads", interp.MakeBuiltin("loads", JsonLoads));
  TypeObject* error = interp.NewExceptionType("JSONDecodeError", interp.types().value_error);
  error->module = "json.decoder";
  interp.State<JsonState>().decode_error = TypeValue(error);
  module->Set("JSONDecodeError", TypeValue(error));
  return module;
}

}  // namespace pz::eval
