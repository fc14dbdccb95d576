// The builtin functions of the Python subset (print, len, min, sorted, round, ...), installed into
// the interpreter's builtins table after the type constructors. Iterator-making builtins (zip,
// map, enumerate, ...) live in builtins_iter.cpp. Messages follow CPython 3.11.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "eval/builtin_support.h"
#include "eval/bytes.h"
#include "eval/format.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

__extension__ typedef __int128 Int128;

using lang::BinOpKind;
using lang::CmpOpKind;

Value Print(Interpreter& interp, CallArgs& args) {
  auto separator = [&](std::string_view name, std::string fallback) {
    for (const auto& [key, value] : args.keywords) {
      if (key != name || value.is_none()) continue;
      return ToStr(interp, value, fmt::format("{} must be None or a string, not %s", name));
    }
    return fallback;
  };
  for (const auto& [key, value] : args.keywords) {
    if (key != "sep" && key != "end" && key != "flush") {
      interp.Raise(interp.types().type_error,
                   fmt::format("'{}' is an invalid keyword argument for print()", key));
    }
  }
  std::string sep = separator("sep", " ");
  std::string text;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (i > 0) text += sep;
    text += interp.Str(args.positional[i]);
  }
  text += separator("end", "\n");
  interp.Print(text);
  return Value();
}

Value Abs(Interpreter& interp, CallArgs& args) {
  const Value& x = OneArg(interp, "abs", args);
  if (x.is_integral()) {
    int64_t v = x.integral();
    if (v == INT64_MIN) RaiseIntOverflow(interp);
    return Value::Int(v < 0 ? -v : v);
  }
  if (x.is_float()) return Value::Float(std::fabs(x.as_float()));
  if (x.is(ObjectKind::kExtension)) {
    if (auto method = interp.TryGetAttr(x, "__abs__")) {
      return interp.Call(*method, std::vector<Value>{});
    }
  }
  interp.Raise(interp.types().type_error,
               fmt::format("bad operand type for abs(): '{}'", interp.TypeName(x)));
}

// Rounds a finite |x| to a multiple of 10**k (k >= 1), half to even on the exact binary value.
double RoundToTens(double x, int k) {
  double a = std::fabs(x);
  double whole = std::floor(a);
  bool fraction = a != whole;
  char buffer[400];
  std::snprintf(buffer, sizeof buffer, "%.0f", whole);  // exact: `whole` is an integer
  std::string digits = buffer;
  if (digits.size() < static_cast<size_t>(k) + 1) {
    digits.insert(0, static_cast<size_t>(k) + 1 - digits.size(), '0');
  }
  std::string head = digits.substr(0, digits.size() - k);
  std::string tail = digits.substr(digits.size() - k);
  int cmp = tail.compare("5" + std::string(k - 1, '0'));
  bool up = cmp > 0 || (cmp == 0 && (fraction || (head.back() - '0') % 2 == 1));
  if (up) {
    size_t i = head.size();
    while (i > 0 && head[i - 1] == '9') head[--i] = '0';
    if (i == 0) {
      head.insert(0, 1, '1');
    } else {
      ++head[i - 1];
    }
  }
  double result = std::strtod((head + "e" + std::to_string(k)).c_str(), nullptr);
  return std::copysign(result, x);
}

// round(float, n): correctly rounded like CPython's double_round.
Value RoundFloat(Interpreter& interp, double x, int64_t ndigits) {
  if (!std::isfinite(x) || ndigits > 323) return Value::Float(x);
  if (ndigits < -308) return Value::Float(0.0 * x);
  double result;
  if (ndigits >= 0) {
    std::string text(700, '\0');
    int n = std::snprintf(text.data(), text.size(), "%.*f", static_cast<int>(ndigits), x);
    text.resize(static_cast<size_t>(n));
    result = std::strtod(text.c_str(), nullptr);
  } else {
    result = RoundToTens(x, static_cast<int>(-ndigits));
  }
  if (std::isinf(result)) {
    interp.Raise(interp.types().overflow_error, "rounded value too large to represent");
  }
  return Value::Float(result);
}

// round(int, n) for n < 0: half to even at 10**-n.
Value RoundInt(Interpreter& interp, int64_t x, int64_t ndigits) {
  if (ndigits >= 0) return Value::Int(x);
  if (ndigits < -19) return Value::Int(0);
  Int128 m = 1;
  for (int64_t i = 0; i < -ndigits; ++i) m *= 10;
  Int128 q = x / m, r = x % m;
  if (r < 0) {
    r += m;
    q -= 1;
  }
  if (2 * r > m || (2 * r == m && (q & 1) != 0)) q += 1;
  Int128 result = q * m;
  if (result > INT64_MAX || result < INT64_MIN) RaiseIntOverflow(interp);
  return Value::Int(static_cast<int64_t>(result));
}

Value Round(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "round", args, {"number", "ndigits="});
  const Value& x = *bound[0];
  bool has_digits = bound[1] && !bound[1]->is_none();
  if (x.is(ObjectKind::kExtension)) {
    if (auto method = interp.TryGetAttr(x, "__round__")) {
      std::vector<Value> rest;
      if (has_digits) rest.push_back(*bound[1]);
      return interp.Call(*method, std::move(rest));
    }
  }
  if (!x.is_number()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("type {} doesn't define __round__ method", interp.TypeName(x)));
  }
  int64_t ndigits = has_digits ? ToIndex(interp, *bound[1]) : 0;
  if (x.is_integral())
    return has_digits ? RoundInt(interp, x.integral(), ndigits) : Value::Int(x.integral());
  if (has_digits) return RoundFloat(interp, x.as_float(), ndigits);
  return FloatToInt(interp, std::nearbyint(x.as_float()));
}

Value Divmod(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "divmod", args, 2, 2);
  const Value& a = args.positional[0];
  const Value& b = args.positional[1];
  if (a.is_integral() && b.is_integral()) {
    int64_t x = a.integral(), y = b.integral();
    if (y == 0) {
      interp.Raise(interp.types().zero_division_error, "integer division or modulo by zero");
    }
    if (x == INT64_MIN && y == -1) RaiseIntOverflow(interp);
    int64_t q = x / y, r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) {
      r += y;
      q -= 1;
    }
    return MakeTuple({Value::Int(q), Value::Int(r)});
  }
  if (a.is_number() && b.is_number()) {
    double x = a.number(), y = b.number();
    if (y == 0) interp.Raise(interp.types().zero_division_error, "float divmod()");
    auto [floordiv, mod] = FloatDivmod(x, y);
    return MakeTuple({Value::Float(floordiv), Value::Float(mod)});
  }
  if (!a.is(ObjectKind::kExtension) && !b.is(ObjectKind::kExtension)) {
    interp.Raise(interp.types().type_error,
                 fmt::format("unsupported operand type(s) for divmod(): '{}' and '{}'",
                             interp.TypeName(a), interp.TypeName(b)));
  }
  return MakeTuple(
      {interp.BinaryOp(BinOpKind::kFloorDiv, a, b), interp.BinaryOp(BinOpKind::kMod, a, b)});
}

// pow(base, exp, mod) on integers; the result takes the sign of mod, as in Python.
Value ModPow(Interpreter& interp, int64_t base, int64_t exp, int64_t mod) {
  if (mod == 0) interp.Raise(interp.types().value_error, "pow() 3rd argument cannot be 0");
  Int128 m = mod < 0 ? -static_cast<Int128>(mod) : mod;
  Int128 b = base % m;
  if (b < 0) b += m;
  Int128 e = exp;
  if (e < 0) {
    // Modular inverse by the extended Euclidean algorithm.
    Int128 r0 = m, r1 = b, t0 = 0, t1 = 1;
    while (r1 != 0) {
      Int128 q = r0 / r1;
      Int128 r2 = r0 - q * r1, t2 = t0 - q * t1;
      r0 = r1, r1 = r2, t0 = t1, t1 = t2;
    }
    if (r0 != 1) {
      interp.Raise(interp.types().value_error, "base is not invertible for the given modulus");
    }
    b = t0 % m;
    if (b < 0) b += m;
    e = -e;
  }
  Int128 result = 1 % m;
  while (e > 0) {
    if (e & 1) result = result * b % m;
    b = b * b % m;
    e >>= 1;
  }
  if (mod < 0 && result != 0) result -= m;
  return Value::Int(static_cast<int64_t>(result));
}

Value Pow(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "pow", args, {"base", "exp", "mod="});
  const Value& base = *bound[0];
  const Value& exp = *bound[1];
  bool has_mod = bound[2] && !bound[2]->is_none();
  bool numbers = base.is_number() && exp.is_number() && (!has_mod || bound[2]->is_number());
  bool extension = base.is(ObjectKind::kExtension) || exp.is(ObjectKind::kExtension);
  if (!numbers && !(extension && !has_mod)) {
    std::string operands =
        has_mod ? fmt::format("'{}', '{}', '{}'", interp.TypeName(base), interp.TypeName(exp),
                              interp.TypeName(*bound[2]))
                : fmt::format("'{}' and '{}'", interp.TypeName(base), interp.TypeName(exp));
    interp.Raise(interp.types().type_error,
                 fmt::format("unsupported operand type(s) for ** or pow(): {}", operands));
  }
  if (!has_mod) return interp.BinaryOp(BinOpKind::kPow, base, exp);
  if (!bound[0]->is_integral() || !bound[1]->is_integral() || !bound[2]->is_integral()) {
    interp.Raise(interp.types().type_error,
                 "pow() 3rd argument not allowed unless all arguments are integers");
  }
  return ModPow(interp, bound[0]->integral(), bound[1]->integral(), bound[2]->integral());
}

Value Chr(Interpreter& interp, CallArgs& args) {
  int64_t code = ToIndex(interp, OneArg(interp, "chr", args));
  if (code < 0 || code >= 0x110000) {
    interp.Raise(interp.types().value_error, "chr() arg not in range(0x110000)");
  }
  std::string out;
  AppendUtf8(out, static_cast<char32_t>(code));
  return MakeStr(std::move(out));
}

Value Ord(Interpreter& interp, CallArgs& args) {
  const Value& c = OneArg(interp, "ord", args);
  auto* str = c.as<StrObject>();
  if (str == nullptr) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("ord() expected string of length 1, but {} found", interp.TypeName(c)));
  }
  std::u32string code_points = DecodeUtf8(str->value);
  if (code_points.size() != 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("ord() expected a character, but string of length {} found",
                             code_points.size()));
  }
  return Value::Int(code_points[0]);
}

// getattr(object, name) returning nullopt where Python raises AttributeError.
std::optional<Value> LookupAttr(Interpreter& interp, const Value& object, const Value& name) {
  const std::string& attr = ToStr(interp, name, "attribute name must be string, not '%s'");
  try {
    return interp.GetAttr(object, attr);
  } catch (const PyError& error) {
    if (!error.exception->type->IsSubtypeOf(interp.types().attribute_error)) throw;
    return std::nullopt;
  }
}

Value GetAttrBuiltin(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "getattr", args, 2, 3);
  if (args.positional.size() == 2) {
    const std::string& attr =
        ToStr(interp, args.positional[1], "attribute name must be string, not '%s'");
    return interp.GetAttr(args.positional[0], attr);
  }
  auto found = LookupAttr(interp, args.positional[0], args.positional[1]);
  return found ? *found : args.positional[2];
}

bool IsInstanceOf(Interpreter& interp, const Value& x, const Value& classinfo) {
  if (auto* type = classinfo.as<TypeObject>()) return interp.IsInstance(x, type);
  if (auto* tuple = classinfo.as<TupleObject>()) {
    for (const Value& item : tuple->items) {
      if (IsInstanceOf(interp, x, item)) return true;
    }
    return false;
  }
  interp.Raise(interp.types().type_error,
               "isinstance() arg 2 must be a type, a tuple of types, or a union");
}

Value MinMax(Interpreter& interp, CallArgs& args, bool is_max) {
  std::string_view name = is_max ? "max" : "min";
  if (args.positional.empty()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} expected at least 1 argument, got 0", name));
  }
  Value key, fallback;
  bool has_default = false;
  for (const auto& [keyword, value] : args.keywords) {
    if (keyword == "key") {
      key = value;
    } else if (keyword == "default") {
      fallback = value;
      has_default = true;
    } else {
      interp.Raise(interp.types().type_error,
                   fmt::format("'{}' is an invalid keyword argument for {}()", keyword, name));
    }
  }
  if (has_default && args.positional.size() > 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("Cannot specify a default for {}() with multiple positional "
                             "arguments",
                             name));
  }
  std::optional<Value> best, best_key;
  auto visit = [&](const Value& item) {
    Value item_key = key.is_none() ? item : interp.Call(key, std::vector<Value>{item});
    if (!best || interp.Truthy(interp.Compare(is_max ? CmpOpKind::kGt : CmpOpKind::kLt, item_key,
                                              *best_key))) {
      best = item;
      best_key = std::move(item_key);
    }
    return true;
  };
  if (args.positional.size() == 1) {
    interp.ForEach(args.positional[0], visit);
  } else {
    for (const Value& item : args.positional) visit(item);
  }
  if (best) return *best;
  if (has_default) return fallback;
  interp.Raise(interp.types().value_error, fmt::format("{}() arg is an empty sequence", name));
}

Value Sum(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "sum", args, {"iterable", "/", "start="});
  Value total = bound[1] ? *bound[1] : Value::Int(0);
  if (total.is(ObjectKind::kStr)) {
    interp.Raise(interp.types().type_error, "sum() can't sum strings [use ''.join(seq) instead]");
  }
  if (total.as<BytesObject>()) {
    interp.Raise(interp.types().type_error, "sum() can't sum bytes [use b''.join(seq) instead]");
  }
  interp.ForEach(*bound[0], [&](const Value& item) {
    int64_t sum;
    if (total.is_int() && item.is_int() &&
        !__builtin_add_overflow(total.as_int(), item.as_int(), &sum)) {
      total = Value::Int(sum);
    } else if (total.is_float() && item.is_float()) {
      total = Value::Float(total.as_float() + item.as_float());
    } else {
      total = interp.BinaryOp(BinOpKind::kAdd, total, item);
    }
    return true;
  });
  return total;
}

Value AnyAll(Interpreter& interp, CallArgs& args, bool is_all) {
  const Value& iterable = OneArg(interp, is_all ? "all" : "any", args);
  bool result = is_all;
  interp.ForEach(iterable, [&](const Value& item) {
    if (interp.Truthy(item) != is_all) {
      result = !is_all;
      return false;
    }
    return true;
  });
  return Value::Bool(result);
}

Value Sorted(Interpreter& interp, CallArgs& args) {
  if (args.positional.size() != 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("sorted expected 1 argument, got {}", args.positional.size()));
  }
  CallArgs keywords{.keywords = args.keywords, .span = args.span};
  auto bound = BindArgs(interp, "sort", keywords, {"*", "key=", "reverse="});
  bool reverse = bound[1] && ToIndex(interp, *bound[1]) != 0;
  return NewList(interp, SortValues(interp, interp.ToVector(args.positional[0]),
                                    bound[0] ? *bound[0] : Value(), reverse));
}

}  // namespace

void InstallBuiltins(Interpreter& interp) {
  struct Entry {
    const char* name;
    BuiltinFunctionObject::Fn fn;
  };
  const Entry entries[] = {
      {"print", Print},
      {"len",
       [](Interpreter& in, CallArgs& args) { return Value::Int(in.Len(OneArg(in, "len", args))); }},
      {"repr",
       [](Interpreter& in, CallArgs& args) { return MakeStr(in.Repr(OneArg(in, "repr", args))); }},
      {"abs", Abs},
      {"round", Round},
      {"divmod", Divmod},
      {"pow", Pow},
      {"chr", Chr},
      {"ord", Ord},
      {"hash",
       [](Interpreter& in, CallArgs& args) {
         return Value::Int(static_cast<int64_t>(in.Hash(OneArg(in, "hash", args))));
       }},
      {"callable",
       [](Interpreter& in, CallArgs& args) {
         return Value::Bool(IsCallable(in, OneArg(in, "callable", args)));
       }},
      {"getattr", GetAttrBuiltin},
      {"hasattr",
       [](Interpreter& in, CallArgs& args) {
         CheckArgCount(in, "hasattr", args, 2, 2);
         return Value::Bool(LookupAttr(in, args.positional[0], args.positional[1]).has_value());
       }},
      {"isinstance",
       [](Interpreter& in, CallArgs& args) {
         CheckArgCount(in, "isinstance", args, 2, 2);
         return Value::Bool(IsInstanceOf(in, args.positional[0], args.positional[1]));
       }},
      {"min", [](Interpreter& in, CallArgs& args) { return MinMax(in, args, false); }},
      {"max", [](Interpreter& in, CallArgs& args) { return MinMax(in, args, true); }},
      {"sum", Sum},
      {"any", [](Interpreter& in, CallArgs& args) { return AnyAll(in, args, false); }},
      {"all", [](Interpreter& in, CallArgs& args) { return AnyAll(in, args, true); }},
      {"sorted", Sorted},
      {"format",
       [](Interpreter& in, CallArgs& args) {
         CheckArgCount(in, "format", args, 1, 2);
         std::string spec;
         if (args.positional.size() > 1) {
           spec = ToStr(in, args.positional[1], "format() argument 2 must be str, not %s");
         }
         return MakeStr(in.Format(args.positional[0], spec));
       }},
  };
  for (const Entry& entry : entries) {
    interp.builtins()[entry.name] = interp.MakeBuiltin(entry.name, entry.fn);
  }
  InstallIteratorBuiltins(interp);
  InstallBytesType(interp);
}

}  // namespace pz::eval
