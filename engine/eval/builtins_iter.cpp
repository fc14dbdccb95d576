// The iterator builtins: enumerate, zip, map, filter, reversed, iter and next. Each returns a
// lazy IteratorObject whose callback pulls from the underlying iterators, so `zip(range(10**9),
// xs)` costs nothing up front, exactly as in Python.
#include <fmt/format.h>

#include <memory>

#include "eval/builtin_support.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

Value Enumerate(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "enumerate", args, {"iterable", "start="});
  ObjectRef iterator = interp.GetIter(*bound[0]);
  int64_t count = bound[1] ? ToIndex(interp, *bound[1]) : 0;
  return NewIterator(interp, "enumerate",
                     [iterator, count](Interpreter& in) mutable -> std::optional<Value> {
                       std::optional<Value> item = in.Next(iterator);
                       if (!item) return std::nullopt;
                       Value index = Value::Int(count);
                       if (__builtin_add_overflow(count, 1, &count)) RaiseIntOverflow(in);
                       return MakeTuple({index, std::move(*item)});
                     });
}

// zip(strict=True) error once argument `index` (0-based) ran out while others did not, or the
// reverse.
[[noreturn]] void RaiseZipLength(Interpreter& interp, size_t index, bool shorter) {
  std::string others = index == 1 ? "argument 1" : fmt::format("arguments 1-{}", index);
  interp.Raise(interp.types().value_error, fmt::format("zip() argument {} is {} than {}", index + 1,
                                                       shorter ? "shorter" : "longer", others));
}

Value Zip(Interpreter& interp, CallArgs& args) {
  bool strict = false;
  for (const auto& [name, value] : args.keywords) {
    if (name != "strict") {
      interp.Raise(interp.types().type_error,
                   fmt::format("'{}' is an invalid keyword argument for zip()", name));
    }
    strict = interp.Truthy(value);
  }
  std::vector<ObjectRef> iterators;
  for (const Value& iterable : args.positional) iterators.push_back(interp.GetIter(iterable));
  auto done = std::make_shared<bool>(iterators.empty());
  return NewIterator(interp, "zip",
                     [iterators, strict, done](Interpreter& in) -> std::optional<Value> {
                       if (*done) return std::nullopt;
                       std::vector<Value> items;
                       items.reserve(iterators.size());
                       for (size_t i = 0; i < iterators.size(); ++i) {
                         std::optional<Value> item = in.Next(iterators[i]);
                         if (item) {
                           items.push_back(std::move(*item));
                           continue;
                         }
                         *done = true;
                         if (strict) {
                           if (i > 0) RaiseZipLength(in, i, true);
                           for (size_t j = 1; j < iterators.size(); ++j) {
                             if (in.Next(iterators[j])) RaiseZipLength(in, j, false);
                           }
                         }
                         return std::nullopt;
                       }
                       return MakeTuple(std::move(items));
                     });
}

Value Map(Interpreter& interp, CallArgs& args) {
  CheckNoKeywords(interp, "map", args);
  if (args.positional.size() < 2) {
    interp.Raise(interp.types().type_error, "map() must have at least two arguments.");
  }
  Value function = args.positional[0];
  std::vector<ObjectRef> iterators;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    iterators.push_back(interp.GetIter(args.positional[i]));
  }
  return NewIterator(interp, "map", [function, iterators](Interpreter& in) -> std::optional<Value> {
    std::vector<Value> items;
    items.reserve(iterators.size());
    for (const ObjectRef& iterator : iterators) {
      std::optional<Value> item = in.Next(iterator);
      if (!item) return std::nullopt;
      items.push_back(std::move(*item));
    }
    return in.Call(function, std::move(items));
  });
}

Value Filter(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "filter", args, 2, 2);
  Value function = args.positional[0];
  ObjectRef iterator = interp.GetIter(args.positional[1]);
  return NewIterator(
      interp, "filter", [function, iterator](Interpreter& in) -> std::optional<Value> {
        while (std::optional<Value> item = in.Next(iterator)) {
          bool keep = function.is_none() ? in.Truthy(*item)
                                         : in.Truthy(in.Call(function, std::vector<Value>{*item}));
          if (keep) return item;
        }
        return std::nullopt;
      });
}

// Iterates `items` back to front.
Value ReverseSnapshot(Interpreter& interp, std::string name, std::vector<Value> items) {
  auto shared = std::make_shared<std::vector<Value>>(std::move(items));
  return NewIterator(interp, std::move(name), [shared](Interpreter&) -> std::optional<Value> {
    if (shared->empty()) return std::nullopt;
    Value item = std::move(shared->back());
    shared->pop_back();
    return item;
  });
}

Value Reversed(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "reversed", args, 1, 1);
  const Value& sequence = args.positional[0];
  if (auto* list = sequence.as<ListObject>()) {
    // Live over the list like CPython's list_reverseiterator.
    auto self = std::static_pointer_cast<ListObject>(sequence.object());
    int64_t index = static_cast<int64_t>(list->items.size()) - 1;
    return NewIterator(interp, "list_reverseiterator",
                       [self, index](Interpreter&) mutable -> std::optional<Value> {
                         if (index < 0 || index >= static_cast<int64_t>(self->items.size())) {
                           index = -1;
                           return std::nullopt;
                         }
                         return self->items[static_cast<size_t>(index--)];
                       });
  }
  if (auto* range = sequence.as<RangeObject>()) {
    int64_t start = range->start, step = range->step, index = range->size();
    return NewIterator(interp, "range_iterator",
                       [start, step, index](Interpreter&) mutable -> std::optional<Value> {
                         if (index <= 0) return std::nullopt;
                         --index;
                         return Value::Int(start + index * step);
                       });
  }
  if (sequence.is(ObjectKind::kTuple) || sequence.is(ObjectKind::kStr) ||
      sequence.is(ObjectKind::kDict)) {
    std::string name = sequence.is(ObjectKind::kDict) ? "dict_reversekeyiterator" : "reversed";
    return ReverseSnapshot(interp, std::move(name), interp.ToVector(sequence));
  }
  if (sequence.is(ObjectKind::kExtension)) {
    if (std::optional<int64_t> length = sequence.object()->Len(interp)) {
      std::vector<Value> items;
      for (int64_t i = 0; i < *length; ++i) {
        items.push_back(interp.GetItem(sequence, Value::Int(i)));
      }
      return ReverseSnapshot(interp, "reversed", std::move(items));
    }
  }
  interp.Raise(interp.types().type_error,
               fmt::format("'{}' object is not reversible", interp.TypeName(sequence)));
}

Value Iter(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "iter", args, 1, 2);
  if (args.positional.size() == 1) return Value(interp.GetIter(args.positional[0]));
  Value function = args.positional[0];
  Value sentinel = args.positional[1];
  if (!IsCallable(interp, function)) {
    interp.Raise(interp.types().type_error, "iter(v, w): v must be callable");
  }
  auto done = std::make_shared<bool>(false);
  return NewIterator(interp, "callable_iterator",
                     [function, sentinel, done](Interpreter& in) -> std::optional<Value> {
                       if (*done) return std::nullopt;
                       Value item = in.Call(function, std::vector<Value>{});
                       if (in.Equals(item, sentinel)) {
                         *done = true;
                         return std::nullopt;
                       }
                       return item;
                     });
}

Value Next(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "next", args, 1, 2);
  const Value& iterator = args.positional[0];
  if (!iterator.is(ObjectKind::kIterator)) {
    interp.Raise(interp.types().type_error,
                 fmt::format("'{}' object is not an iterator", interp.TypeName(iterator)));
  }
  if (std::optional<Value> item = interp.Next(iterator.object())) return *item;
  if (args.positional.size() == 2) return args.positional[1];
  interp.Throw(interp.NewException(interp.types().stop_iteration, {}));
}

}  // namespace

void InstallIteratorBuiltins(Interpreter& interp) {
  const std::pair<const char*, BuiltinFunctionObject::Fn> entries[] = {
      {"enumerate", Enumerate}, {"zip", Zip},   {"map", Map},   {"filter", Filter},
      {"reversed", Reversed},   {"iter", Iter}, {"next", Next},
  };
  for (const auto& [name, fn] : entries) interp.builtins()[name] = interp.MakeBuiltin(name, fn);
}

}  // namespace pz::eval
