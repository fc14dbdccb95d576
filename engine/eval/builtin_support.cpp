// Shared plumbing of the builtins: BindArgs and the other CPython-style argument checks,
// conversions, tracked container construction, the stable sort behind sorted()/list.sort(), UTF-8
// positions and method binding.
#include "eval/builtin_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "support/check.h"

namespace pz::eval {

namespace {

std::string Plural(size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

}  // namespace

std::vector<std::optional<Value>> BindArgs(Interpreter& interp, std::string_view function,
                                           const CallArgs& args,
                                           std::initializer_list<std::string_view> names) {
  struct Param {
    std::string_view name;
    bool optional = false;
    bool positional = true;
    bool positional_only = false;
  };
  std::vector<Param> params;
  bool keyword_only = false;
  for (std::string_view name : names) {
    if (name == "/") {
      for (Param& p : params) p.positional_only = true;
      continue;
    }
    if (name == "*") {
      keyword_only = true;
      continue;
    }
    Param param{.name = name, .positional = !keyword_only};
    if (name.ends_with('=')) {
      param.optional = true;
      param.name.remove_suffix(1);
    }
    params.push_back(param);
  }
  // The checks and messages of CPython 3.11's _PyArg_UnpackKeywords, in its order.
  size_t max_positional = 0, min_positional = 0, min_positional_only = 0;
  for (const Param& p : params) {
    if (!p.positional) continue;
    max_positional += 1;
    min_positional += p.optional ? 0 : 1;
    min_positional_only += (p.positional_only && !p.optional) ? 1 : 0;
  }
  size_t given = args.positional.size();
  size_t total = given + args.keywords.size();
  const auto& type_error = interp.types().type_error;
  if (total > params.size()) {
    interp.Raise(
        type_error,
        fmt::format("{}() takes at most {} ({} given)", function,
                    Plural(params.size(), given == 0 ? "keyword argument" : "argument"), total));
  }
  if (given > max_positional) {
    if (max_positional == 0) {
      interp.Raise(type_error, fmt::format("{}() takes no positional arguments", function));
    }
    interp.Raise(type_error, fmt::format("{}() takes {} {} ({} given)", function,
                                         min_positional < max_positional ? "at most" : "exactly",
                                         Plural(max_positional, "positional argument"), given));
  }
  if (given < min_positional_only) {
    interp.Raise(type_error,
                 fmt::format("{}() takes {} {} ({} given)", function,
                             min_positional_only < max_positional ? "at least" : "exactly",
                             Plural(min_positional_only, "positional argument"), given));
  }
  std::vector<std::optional<Value>> bound(params.size());
  for (size_t i = 0; i < given; ++i) bound[i] = args.positional[i];
  auto keyword = [&](std::string_view name) -> const Value* {
    for (const auto& [key, value] : args.keywords) {
      if (key == name) return &value;
    }
    return nullptr;
  };
  size_t used = 0;
  for (size_t i = given; i < params.size(); ++i) {
    const Value* value = params[i].positional_only ? nullptr : keyword(params[i].name);
    if (value != nullptr) {
      bound[i] = *value;
      ++used;
    } else if (!params[i].optional) {
      interp.Raise(type_error, params[i].positional
                                   ? fmt::format("{}() missing required argument '{}' (pos {})",
                                                 function, params[i].name, i + 1)
                                   : fmt::format("{}() missing required keyword-only argument '{}'",
                                                 function, params[i].name));
    }
  }
  if (used == args.keywords.size()) return bound;
  // A keyword left over: it names a parameter already given by position, or none at all.
  for (const auto& [name, value] : args.keywords) {
    for (size_t i = 0; i < given; ++i) {
      if (params[i].name == name && !params[i].positional_only) {
        interp.Raise(type_error,
                     fmt::format("argument for {}() given by name ('{}') and position ({})",
                                 function, name, i + 1));
      }
    }
    bool known = false;
    for (size_t i = given; i < params.size(); ++i) {
      known = known || (params[i].name == name && !params[i].positional_only);
    }
    if (!known) {
      interp.Raise(type_error,
                   fmt::format("'{}' is an invalid keyword argument for {}()", name, function));
    }
  }
  return bound;
}

void CheckStringLength(Interpreter& interp, int64_t length) {
  if (length > kMaxStringLength) {
    interp.Raise(interp.types().overflow_error, "resulting string is too large");
  }
}

void CheckNoKeywords(Interpreter& interp, std::string_view function, const CallArgs& args) {
  if (!args.keywords.empty()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{}() takes no keyword arguments", function));
  }
}

const Value& OneArg(Interpreter& interp, std::string_view function, const CallArgs& args) {
  CheckNoKeywords(interp, function, args);
  if (args.positional.size() != 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{}() takes exactly one argument ({} given)", function,
                             args.positional.size()));
  }
  return args.positional[0];
}

void NoArgs(Interpreter& interp, std::string_view function, const CallArgs& args) {
  CheckNoKeywords(interp, function, args);
  if (!args.positional.empty()) {
    interp.Raise(interp.types().type_error, fmt::format("{}() takes no arguments ({} given)",
                                                        function, args.positional.size()));
  }
}

void CheckArgCount(Interpreter& interp, std::string_view function, const CallArgs& args, size_t min,
                   size_t max) {
  CheckNoKeywords(interp, function, args);
  size_t given = args.positional.size();
  if (given >= min && given <= max) return;
  std::string_view bound = min == max ? "" : (given < min ? "at least " : "at most ");
  std::string_view name = function.substr(function.rfind('.') + 1);
  interp.Raise(interp.types().type_error,
               fmt::format("{} expected {}{}, got {}", name, bound,
                           Plural(given < min ? min : max, "argument"), given));
}

int64_t ToIndex(Interpreter& interp, const Value& value) {
  if (value.is_integral()) return value.integral();
  if (value.is(ObjectKind::kExtension)) {
    if (auto index = interp.TryGetAttr(value, "__index__")) {
      Value result = interp.Call(*index, std::vector<Value>{});
      if (result.is_integral()) return result.integral();
    }
  }
  interp.Raise(
      interp.types().type_error,
      fmt::format("'{}' object cannot be interpreted as an integer", interp.TypeName(value)));
}

double ToDouble(Interpreter& interp, const Value& value) {
  if (value.is_number()) return value.number();
  if (value.is(ObjectKind::kExtension)) {
    if (auto to_float = interp.TryGetAttr(value, "__float__")) {
      Value result = interp.Call(*to_float, std::vector<Value>{});
      if (result.is_number()) return result.number();
    }
  }
  interp.Raise(interp.types().type_error,
               fmt::format("must be real number, not {}", interp.TypeName(value)));
}

std::pair<int64_t, int64_t> ClampRange(Interpreter& interp, const std::optional<Value>& start,
                                       const std::optional<Value>& end, int64_t size) {
  auto clamp = [&](const std::optional<Value>& bound, int64_t fallback) {
    if (!bound || bound->is_none()) return fallback;
    if (!bound->is_integral() && !bound->is(ObjectKind::kExtension)) {
      interp.Raise(interp.types().type_error,
                   "slice indices must be integers or have an __index__ method");
    }
    int64_t i = ToIndex(interp, *bound);
    if (i < 0) i = std::max<int64_t>(i + size, 0);
    return std::min(i, size);
  };
  return {clamp(start, 0), clamp(end, size)};
}

const std::string& ToStr(Interpreter& interp, const Value& value, std::string_view message) {
  if (auto* str = value.as<StrObject>()) return str->value;
  std::string text(message);
  if (size_t at = text.find("%s"); at != std::string::npos) {
    text.replace(at, 2, interp.TypeName(value));
  }
  interp.Raise(interp.types().type_error, std::move(text));
}

Value FloatToInt(Interpreter& interp, double x) {
  if (std::isnan(x)) {
    interp.Raise(interp.types().value_error, "cannot convert float NaN to integer");
  }
  if (std::isinf(x)) {
    interp.Raise(interp.types().overflow_error, "cannot convert float infinity to integer");
  }
  if (x < -9223372036854775808.0 || x >= 9223372036854775808.0) RaiseIntOverflow(interp);
  return Value::Int(static_cast<int64_t>(x));
}

void RaiseIntOverflow(Interpreter& interp) {
  interp.Raise(interp.types().overflow_error,
               "integer result out of range; integers are 64-bit in this engine");
}

void RaiseWithArg(Interpreter& interp, TypeObject* type, Value arg) {
  interp.Throw(interp.NewException(type, {std::move(arg)}));
}

void RaiseMissingArguments(Interpreter& interp, std::string_view callee,
                           const std::vector<std::string>& names, std::string_view kind) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) list += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
    list += "'" + names[i] + "'";
  }
  interp.Raise(interp.types().type_error,
               fmt::format("{} missing {} required {} argument{}: {}", callee, names.size(), kind,
                           names.size() == 1 ? "" : "s", list));
}

bool IsCallable(Interpreter& interp, const Value& x) {
  if (!x.is_object()) return false;
  switch (x.object()->kind()) {
    case ObjectKind::kFunction:
    case ObjectKind::kBuiltinFunction:
    case ObjectKind::kBoundMethod:
    case ObjectKind::kPartial:
    case ObjectKind::kType:
      return true;
    case ObjectKind::kExtension:
      return interp.TryGetAttr(x, "__call__").has_value();
    default:
      return false;
  }
}

Value NewList(Interpreter& interp, std::vector<Value> items) {
  auto list = std::make_shared<ListObject>(std::move(items));
  interp.Track(list);
  return list;
}

std::shared_ptr<DictObject> NewDict(Interpreter& interp) {
  auto dict = std::make_shared<DictObject>();
  interp.Track(dict);
  return dict;
}

std::shared_ptr<SetObject> NewSet(Interpreter& interp) {
  auto set = std::make_shared<SetObject>();
  interp.Track(set);
  return set;
}

Value NewIterator(Interpreter& interp, std::string name, IteratorObject::NextFn next) {
  auto iterator = std::make_shared<IteratorObject>(std::move(name), std::move(next));
  interp.Track(iterator);
  return iterator;
}

Value TypeValue(TypeObject* type) { return Value(type->shared_from_this()); }

std::vector<Value> SortValues(Interpreter& interp, std::vector<Value> items, const Value& key,
                              bool reverse) {
  std::vector<Value> keys;
  if (key.is_none()) {
    keys = items;
  } else {
    keys.reserve(items.size());
    for (const Value& item : items) keys.push_back(interp.Call(key, std::vector<Value>{item}));
  }
  auto less = [&](size_t a, size_t b) {
    const Value& x = reverse ? keys[b] : keys[a];
    const Value& y = reverse ? keys[a] : keys[b];
    if (x.is_int() && y.is_int()) return x.as_int() < y.as_int();
    if (x.is_float() && y.is_float()) return x.as_float() < y.as_float();
    return interp.Less(x, y);
  };
  // Bottom-up merge sort of positions: stable, and safe with any comparison outcome.
  size_t n = items.size();
  std::vector<size_t> order(n), buffer(n);
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, out = lo;
      while (i < mid && j < hi) buffer[out++] = less(order[j], order[i]) ? order[j++] : order[i++];
      while (i < mid) buffer[out++] = order[i++];
      while (j < hi) buffer[out++] = order[j++];
    }
    order.swap(buffer);
  }
  std::vector<Value> sorted;
  sorted.reserve(n);
  for (size_t index : order) sorted.push_back(std::move(items[index]));
  return sorted;
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::vector<size_t> Utf8Offsets(std::string_view s) {
  std::vector<size_t> offsets;
  offsets.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) offsets.push_back(i);
  }
  offsets.push_back(s.size());
  return offsets;
}

std::optional<Value> BindMethod(Interpreter& interp, const Value& self, std::string_view name,
                                const MethodEntry* begin, const MethodEntry* end) {
  for (const MethodEntry* entry = begin; entry != end; ++entry) {
    if (entry->name != name) continue;
    MethodFn fn = entry->fn;
    Value function = interp.MakeBuiltin(std::string(name), [fn](Interpreter& in, CallArgs& args) {
      PZ_CHECK(!args.positional.empty());
      Value bound_self = std::move(args.positional.front());
      args.positional.erase(args.positional.begin());
      return fn(in, bound_self, args);
    });
    return Value(std::make_shared<BoundMethodObject>(self, std::move(function)));
  }
  return std::nullopt;
}

}  // namespace pz::eval
