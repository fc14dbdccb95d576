// Methods of the built-in kinds, reached through `obj.name`: GetBuiltinMethod dispatches on the
// kind of `self` to a method table; this file holds the list, tuple, int and float methods
// (str in methods_str.cpp, dict and set in methods_dict.cpp), plus the data attributes of numbers
// (`x.real`, `x.imag`).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "eval/builtin_support.h"
#include "eval/bytes.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

ListObject& List(const Value& self) { return *self.as<ListObject>(); }

Value Append(Interpreter& interp, const Value& self, CallArgs& args) {
  List(self).items.push_back(OneArg(interp, "list.append", args));
  return Value();
}

Value Extend(Interpreter& interp, const Value& self, CallArgs& args) {
  std::vector<Value> items = interp.ToVector(OneArg(interp, "list.extend", args));
  auto& list = List(self).items;
  list.insert(list.end(), std::make_move_iterator(items.begin()),
              std::make_move_iterator(items.end()));
  return Value();
}

Value Insert(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckArgCount(interp, "list.insert", args, 2, 2);
  auto& items = List(self).items;
  int64_t size = static_cast<int64_t>(items.size());
  int64_t index = ToIndex(interp, args.positional[0]);
  if (index < 0) index = std::max<int64_t>(index + size, 0);
  index = std::min(index, size);
  items.insert(items.begin() + index, args.positional[1]);
  return Value();
}

Value Pop(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckArgCount(interp, "list.pop", args, 0, 1);
  int64_t index = args.positional.empty() ? -1 : ToIndex(interp, args.positional[0]);
  auto& items = List(self).items;
  if (items.empty()) interp.Raise(interp.types().index_error, "pop from empty list");
  int64_t size = static_cast<int64_t>(items.size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) {
    interp.Raise(interp.types().index_error, "pop index out of range");
  }
  Value item = std::move(items[static_cast<size_t>(index)]);
  items.erase(items.begin() + index);
  return item;
}

// Position of the first item equal to `x` in [start, end) of a list or tuple, re-reading the size
// each step because __eq__ of extension objects may run arbitrary code.
std::optional<size_t> Find(Interpreter& interp, const std::vector<Value>& items, const Value& x,
                           int64_t start, int64_t end) {
  for (int64_t i = start; i < end && i < static_cast<int64_t>(items.size()); ++i) {
    if (items[static_cast<size_t>(i)].Identical(x) ||
        interp.Equals(items[static_cast<size_t>(i)], x)) {
      return static_cast<size_t>(i);
    }
  }
  return std::nullopt;
}

Value Remove(Interpreter& interp, const Value& self, CallArgs& args) {
  const Value& x = OneArg(interp, "list.remove", args);
  auto& items = List(self).items;
  std::optional<size_t> at = Find(interp, items, x, 0, static_cast<int64_t>(items.size()));
  if (!at) interp.Raise(interp.types().value_error, "list.remove(x): x not in list");
  items.erase(items.begin() + static_cast<int64_t>(*at));
  return Value();
}

Value Index(Interpreter& interp, const std::vector<Value>& items, CallArgs& args, bool is_list) {
  CheckArgCount(interp, is_list ? "list.index" : "tuple.index", args, 1, 3);
  const auto& p = args.positional;
  auto [start, end] = ClampRange(interp, p.size() > 1 ? std::optional<Value>(p[1]) : std::nullopt,
                                 p.size() > 2 ? std::optional<Value>(p[2]) : std::nullopt,
                                 static_cast<int64_t>(items.size()));
  if (auto at = Find(interp, items, p[0], start, end)) {
    return Value::Int(static_cast<int64_t>(*at));
  }
  interp.Raise(interp.types().value_error, is_list
                                               ? fmt::format("{} is not in list", interp.Repr(p[0]))
                                               : std::string("tuple.index(x): x not in tuple"));
}

Value Count(Interpreter& interp, const std::vector<Value>& items, const Value& x) {
  int64_t count = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].Identical(x) || interp.Equals(items[i], x)) ++count;
  }
  return Value::Int(count);
}

Value Sort(Interpreter& interp, const Value& self, CallArgs& args) {
  auto bound = BindArgs(interp, "sort", args, {"*", "key=", "reverse="});
  bool reverse = bound[1] && ToIndex(interp, *bound[1]) != 0;
  auto& items = List(self).items;
  // As in CPython the list looks empty while the key function and comparisons run.
  std::vector<Value> saved = std::move(items);
  items.clear();
  std::vector<Value> sorted;
  try {
    sorted = SortValues(interp, saved, bound[0] ? *bound[0] : Value(), reverse);
  } catch (...) {
    items = std::move(saved);
    throw;
  }
  if (!items.empty()) {
    items = std::move(saved);
    interp.Raise(interp.types().value_error, "list modified during sort");
  }
  items = std::move(sorted);
  return Value();
}

const MethodEntry kListMethods[] = {
    {"append", Append},
    {"extend", Extend},
    {"insert", Insert},
    {"pop", Pop},
    {"remove", Remove},
    {"index", [](Interpreter& interp, const Value& self,
                 CallArgs& args) { return Index(interp, List(self).items, args, true); }},
    {"count",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       return Count(interp, List(self).items, OneArg(interp, "list.count", args));
     }},
    {"sort", Sort},
    {"reverse",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       NoArgs(interp, "list.reverse", args);
       std::reverse(List(self).items.begin(), List(self).items.end());
       return Value();
     }},
    {"copy",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       NoArgs(interp, "list.copy", args);
       return NewList(interp, List(self).items);
     }},
    {"clear",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       NoArgs(interp, "list.clear", args);
       std::vector<Value> old = std::move(List(self).items);
       List(self).items.clear();
       return Value();
     }},
};

const MethodEntry kTupleMethods[] = {
    {"index",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       return Index(interp, self.as<TupleObject>()->items, args, false);
     }},
    {"count",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       return Count(interp, self.as<TupleObject>()->items, OneArg(interp, "tuple.count", args));
     }},
};

const MethodEntry kIntMethods[] = {
    {"bit_length",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       NoArgs(interp, "int.bit_length", args);
       int64_t v = self.integral();
       uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
       return Value::Int(magnitude == 0 ? 0 : 64 - __builtin_clzll(magnitude));
     }},
    {"bit_count",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       NoArgs(interp, "int.bit_count", args);
       int64_t v = self.integral();
       uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
       return Value::Int(__builtin_popcountll(magnitude));
     }},
    {"to_bytes", IntToBytesMethod},
};

const MethodEntry kFloatMethods[] = {
    {"is_integer",
     [](Interpreter& interp, const Value& self, CallArgs& args) {
       NoArgs(interp, "float.is_integer", args);
       double x = self.as_float();
       return Value::Bool(std::isfinite(x) && x == std::floor(x));
     }},
};

}  // namespace

std::optional<Value> GetBuiltinMethod(Interpreter& interp, const Value& self,
                                      std::string_view name) {
  if (self.is_integral()) {
    if (name == "real" || name == "numerator") return Value::Int(self.integral());
    if (name == "imag") return Value::Int(0);
    if (name == "denominator") return Value::Int(1);
    return FindMethod(interp, self, name, kIntMethods);
  }
  if (self.is_float()) {
    if (name == "real") return self;
    if (name == "imag") return Value::Float(0.0);
    return FindMethod(interp, self, name, kFloatMethods);
  }
  if (!self.is_object()) return std::nullopt;
  switch (self.object()->kind()) {
    case ObjectKind::kStr:
      return GetStrMethod(interp, self, name);
    case ObjectKind::kList:
      return FindMethod(interp, self, name, kListMethods);
    case ObjectKind::kTuple:
      return FindMethod(interp, self, name, kTupleMethods);
    case ObjectKind::kDict:
      return GetDictMethod(interp, self, name);
    case ObjectKind::kSet:
      return GetSetMethod(interp, self, name);
    default:
      return std::nullopt;
  }
}

}  // namespace pz::eval
