// Constructors of the built-in types (int, float, str, bool, tuple, list, dict, set, range,
// slice, type): installed on the interpreter's type objects, which are then exposed as builtins.
// Parsing of int() and float() strings follows CPython, underscores and whitespace included.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "eval/builtin_support.h"
#include "eval/bytes.h"
#include "eval/format.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }

std::string_view StripSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// Parses an int literal as int(text, base) does; nullopt when invalid.
std::optional<int64_t> ParseInt(Interpreter& interp, std::string_view text, int base) {
  std::string_view s = StripSpace(text);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  bool prefixed = false;
  if (s.size() >= 2 && s[0] == '0') {
    char p = static_cast<char>(s[1] | 0x20);
    int prefix_base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
    if (prefix_base != 0 && (base == 0 || base == prefix_base)) {
      base = prefix_base;
      prefixed = true;
      s.remove_prefix(2);
    }
  }
  bool base_zero_decimal = base == 0;
  if (base == 0) base = 10;
  // After a prefix one underscore may come first ("0x_ff"); otherwise only between digits.
  if (prefixed && !s.empty() && s[0] == '_') s.remove_prefix(1);
  if (s.empty() || s.back() == '_' || s.front() == '_') return std::nullopt;
  uint64_t magnitude = 0;
  bool nonzero = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      if (s[i - 1] == '_') return std::nullopt;
      continue;
    }
    int digit = DigitValue(s[i]);
    if (digit >= base) return std::nullopt;
    nonzero = nonzero || digit != 0;
    if (__builtin_mul_overflow(magnitude, static_cast<uint64_t>(base), &magnitude) ||
        __builtin_add_overflow(magnitude, static_cast<uint64_t>(digit), &magnitude) ||
        magnitude > (uint64_t{1} << 63)) {
      RaiseIntOverflow(interp);
    }
  }
  // Base 0 rejects leading zeros of a non-zero decimal ("010"), as Python 3 literals do.
  if (base_zero_decimal && !prefixed && s[0] == '0' && nonzero) return std::nullopt;
  if (!negative && magnitude == (uint64_t{1} << 63)) RaiseIntOverflow(interp);
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

Value IntConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "int", args, {"x=", "/", "base="});
  if (!bound[0]) {
    if (bound[1]) interp.Raise(interp.types().type_error, "int() missing string argument");
    return Value::Int(0);
  }
  const Value& x = *bound[0];
  if (bound[1]) {
    int64_t base = ToIndex(interp, *bound[1]);
    if (base != 0 && (base < 2 || base > 36)) {
      interp.Raise(interp.types().value_error, "int() base must be >= 2 and <= 36, or 0");
    }
    if (!x.is(ObjectKind::kStr)) {
      interp.Raise(interp.types().type_error, "int() can't convert non-string with explicit base");
    }
    const std::string& text = x.as<StrObject>()->value;
    if (auto value = ParseInt(interp, text, static_cast<int>(base))) return Value::Int(*value);
    interp.Raise(interp.types().value_error,
                 fmt::format("invalid literal for int() with base {}: {}", base, StrRepr(text)));
  }
  if (x.is_integral()) return Value::Int(x.integral());
  if (x.is_float()) return FloatToInt(interp, std::trunc(x.as_float()));
  if (auto* str = x.as<StrObject>()) {
    if (auto value = ParseInt(interp, str->value, 10)) return Value::Int(*value);
    interp.Raise(interp.types().value_error,
                 fmt::format("invalid literal for int() with base 10: {}", StrRepr(str->value)));
  }
  if (x.is(ObjectKind::kExtension)) {
    for (const char* hook : {"__int__", "__index__"}) {
      if (auto method = interp.TryGetAttr(x, hook)) {
        return interp.Call(*method, std::vector<Value>{});
      }
    }
  }
  interp.Raise(interp.types().type_error,
               fmt::format("int() argument must be a string, a bytes-like object or a real "
                           "number, not '{}'",
                           interp.TypeName(x)));
}

// Python's float() string syntax: [sign] (digits [. [digits]] | . digits) [e [sign] digits],
// underscores between digits, or inf / infinity / nan in any case. nullopt when invalid.
std::optional<double> ParseFloat(std::string_view text) {
  std::string_view s = StripSpace(text);
  std::string clean;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean += s[i++];
  std::string word;
  for (size_t j = i; j < s.size(); ++j) word += static_cast<char>(std::tolower(s[j]));
  if (word == "inf" || word == "infinity" || word == "nan") {
    double value = word == "nan" ? NAN : INFINITY;
    return clean == "-" ? -value : value;
  }
  // Copies a run of digits (with single underscores between them); false if none.
  auto digits = [&]() {
    size_t begin = i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
      if (s[i] == '_') {
        bool between = i > begin && s[i - 1] != '_' && i + 1 < s.size() &&
                       std::isdigit(static_cast<unsigned char>(s[i + 1]));
        if (!between) return false;
      } else {
        clean += s[i];
      }
      ++i;
    }
    return i > begin;
  };
  bool whole = digits();
  bool fraction = false;
  if (i < s.size() && s[i] == '.') {
    clean += s[i++];
    fraction = digits();
  }
  if (!whole && !fraction) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    clean += s[i++];
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean += s[i++];
    if (!digits()) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return std::strtod(clean.c_str(), nullptr);
}

Value FloatConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "float", args, 0, 1);
  if (args.positional.empty()) return Value::Float(0.0);
  const Value& x = args.positional[0];
  if (x.is_number()) return Value::Float(x.number());
  if (auto* str = x.as<StrObject>()) {
    if (auto value = ParseFloat(str->value)) return Value::Float(*value);
    interp.Raise(interp.types().value_error,
                 fmt::format("could not convert string to float: {}", StrRepr(str->value)));
  }
  if (x.is(ObjectKind::kExtension)) {
    if (auto method = interp.TryGetAttr(x, "__float__")) {
      return interp.Call(*method, std::vector<Value>{});
    }
  }
  interp.Raise(interp.types().type_error,
               fmt::format("float() argument must be a string or a real number, not '{}'",
                           interp.TypeName(x)));
}

Value StrConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "str", args, {"object=", "encoding=", "errors="});
  if (bound[1] || bound[2]) {
    // str(b, encoding, errors) decodes bytes.
    std::string encoding = "utf-8";
    std::string errors = "strict";
    if (bound[1])
      encoding = ToStr(interp, *bound[1], "str() argument 'encoding' must be str, not %s");
    if (bound[2]) errors = ToStr(interp, *bound[2], "str() argument 'errors' must be str, not %s");
    if (!bound[0]) return MakeStr("");
    if (auto* bytes = bound[0]->as<BytesObject>()) {
      return MakeStr(DecodeBytes(interp, bytes->value, encoding, errors));
    }
    if (bound[0]->is(ObjectKind::kStr)) {
      interp.Raise(interp.types().type_error, "decoding str is not supported");
    }
    interp.Raise(interp.types().type_error,
                 fmt::format("decoding to str: need a bytes-like object, {} found",
                             interp.TypeName(*bound[0])));
  }
  if (!bound[0]) return MakeStr("");
  if (bound[0]->is(ObjectKind::kStr)) return *bound[0];
  return MakeStr(interp.Str(*bound[0]));
}

Value BoolConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "bool", args, 0, 1);
  return Value::Bool(!args.positional.empty() && interp.Truthy(args.positional[0]));
}

Value TupleConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "tuple", args, 0, 1);
  if (args.positional.empty()) return MakeTuple({});
  if (auto* tuple = args.positional[0].as<TupleObject>(); tuple && tuple->type == nullptr) {
    return args.positional[0];
  }
  return MakeTuple(interp.ToVector(args.positional[0]));
}

Value ListConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "list", args, 0, 1);
  if (args.positional.empty()) return NewList(interp, {});
  return NewList(interp, interp.ToVector(args.positional[0]));
}

Value DictConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  if (args.positional.size() > 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("dict expected at most 1 argument, got {}", args.positional.size()));
  }
  auto dict = NewDict(interp);
  std::optional<Value> source;
  if (!args.positional.empty()) source = args.positional[0];
  DictUpdate(interp, *dict, source, args.keywords);
  return dict;
}

Value SetConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "set", args, 0, 1);
  auto set = NewSet(interp);
  if (!args.positional.empty()) {
    interp.ForEach(args.positional[0], [&](const Value& item) {
      set->table.Set(interp, item, Value());
      return true;
    });
  }
  return set;
}

Value RangeConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "range", args, 1, 3);
  const auto& p = args.positional;
  int64_t start = 0, stop = 0, step = 1;
  if (p.size() == 1) {
    stop = ToIndex(interp, p[0]);
  } else {
    start = ToIndex(interp, p[0]);
    stop = ToIndex(interp, p[1]);
    if (p.size() == 3) step = ToIndex(interp, p[2]);
  }
  if (step == 0) interp.Raise(interp.types().value_error, "range() arg 3 must not be zero");
  return Value(std::make_shared<RangeObject>(start, stop, step));
}

Value SliceConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  CheckArgCount(interp, "slice", args, 1, 3);
  const auto& p = args.positional;
  if (p.size() == 1) return Value(std::make_shared<SliceObject>(Value(), p[0], Value()));
  return Value(std::make_shared<SliceObject>(p[0], p[1], p.size() == 3 ? p[2] : Value()));
}

Value TypeConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  if (args.positional.size() == 1 && args.keywords.empty()) {
    return TypeValue(interp.TypeOf(args.positional[0]));
  }
  if (args.positional.size() == 3) {
    interp.Raise(interp.types().type_error,
                 "type() with 3 arguments (creating a class) is not supported here");
  }
  interp.Raise(interp.types().type_error, "type() takes 1 or 3 arguments");
}

}  // namespace

void InstallTypeConstructors(Interpreter& interp) {
  const BuiltinTypes& t = interp.types();
  const std::pair<TypeObject*, TypeObject::Constructor> constructors[] = {
      {t.int_type, IntConstructor},     {t.float_type, FloatConstructor},
      {t.str_type, StrConstructor},     {t.bool_type, BoolConstructor},
      {t.tuple_type, TupleConstructor}, {t.list_type, ListConstructor},
      {t.dict_type, DictConstructor},   {t.set_type, SetConstructor},
      {t.range_type, RangeConstructor}, {t.slice_type, SliceConstructor},
      {t.type_type, TypeConstructor},
  };
  for (const auto& [type, constructor] : constructors) {
    type->constructor = constructor;
    interp.builtins()[type->name] = TypeValue(type);
  }
}

}  // namespace pz::eval
