// collections.deque: a double-ended queue with an optional maxlen (appending to a full deque
// drops an item from the other end), CPython's methods and messages, indexing, iteration that
// notices mutation, comparison, `+`, `*` and the in-place `+=`/`*=`.
#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "eval/builtin_support.h"
#include "eval/collections_module.h"

namespace pz::eval {
namespace {

class DequeObject final : public Object {
 public:
  DequeObject() : Object(ObjectKind::kExtension) {}
  std::string_view type_name() const override { return "collections.deque"; }
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<int64_t> Len(Interpreter&) override { return static_cast<int64_t>(items.size()); }
  ObjectRef Iter(Interpreter& interp) override;
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override {
    return items[Index(interp, key)];
  }
  bool SetItem(Interpreter& interp, const Value& key, const Value& value) override {
    items[Index(interp, key)] = value;
    return true;
  }
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override;
  std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                              bool reflected) override;
  void ClearReferences() override { items.clear(); }

  // Appends at the right (or left), dropping from the other end beyond maxlen.
  void Push(Value value, bool left) {
    ++version;
    if (maxlen == 0) return;
    if (left) {
      items.push_front(std::move(value));
      if (maxlen > 0 && static_cast<int64_t>(items.size()) > maxlen) items.pop_back();
    } else {
      items.push_back(std::move(value));
      if (maxlen > 0 && static_cast<int64_t>(items.size()) > maxlen) items.pop_front();
    }
  }
  void Extend(Interpreter& interp, const Value& iterable, bool left) {
    for (Value& item : interp.ToVector(iterable)) Push(std::move(item), left);
  }
  size_t Index(Interpreter& interp, const Value& key) const {
    if (!key.is_integral()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("sequence index must be integer, not '{}'", interp.TypeName(key)));
    }
    int64_t i = key.integral(), n = static_cast<int64_t>(items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) interp.Raise(interp.types().index_error, "deque index out of range");
    return static_cast<size_t>(i);
  }
  Value Copy(Interpreter& interp) const;

  std::deque<Value> items;
  int64_t maxlen = -1;   // -1: unbounded
  uint64_t version = 0;  // changes with every mutation, for iterators
  mutable bool in_repr = false;
};

DequeObject& Self(const Value& self) { return *self.as<DequeObject>(); }

std::shared_ptr<DequeObject> NewDeque(Interpreter& interp, int64_t maxlen) {
  auto deque = std::make_shared<DequeObject>();
  deque->maxlen = maxlen;
  interp.Track(deque);
  return deque;
}

Value DequeObject::Copy(Interpreter& interp) const {
  auto out = NewDeque(interp, maxlen);
  out->items = items;
  return Value(out);
}

std::string DequeObject::Repr(Interpreter& interp) const {
  if (in_repr) return "[...]";
  in_repr = true;
  std::string out = "deque([";
  try {
    for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + interp.Repr(items[i]);
  } catch (...) {
    in_repr = false;
    throw;
  }
  in_repr = false;
  out += "]";
  if (maxlen >= 0) out += fmt::format(", maxlen={}", maxlen);
  return out + ")";
}

ObjectRef DequeObject::Iter(Interpreter& interp) {
  auto self = std::static_pointer_cast<DequeObject>(shared_from_this());
  size_t position = 0;
  uint64_t expected = version;
  auto iterator = std::make_shared<IteratorObject>(
      "_collections._deque_iterator",
      [self, position, expected](Interpreter& in) mutable -> std::optional<Value> {
        if (self->version != expected) {
          expected = self->version;
          position = self->items.size();
          in.Raise(in.types().runtime_error, "deque mutated during iteration");
        }
        if (position >= self->items.size()) return std::nullopt;
        return self->items[position++];
      });
  interp.Track(iterator);
  return iterator;
}

std::optional<Value> DequeObject::Compare(Interpreter& interp, lang::CmpOpKind op,
                                          const Value& other, bool reflected) {
  auto* that = other.as<DequeObject>();
  if (that == nullptr) return std::nullopt;
  Value a = MakeTuple(std::vector<Value>(items.begin(), items.end()));
  Value b = MakeTuple(std::vector<Value>(that->items.begin(), that->items.end()));
  return reflected ? interp.Compare(op, b, a) : interp.Compare(op, a, b);
}

std::optional<Value> DequeObject::Binary(Interpreter& interp, lang::BinOpKind op,
                                         const Value& other, bool reflected) {
  if (op == lang::BinOpKind::kAdd && !reflected) {
    auto* that = other.as<DequeObject>();
    if (that == nullptr) {
      interp.Raise(
          interp.types().type_error,
          fmt::format("can only concatenate deque (not \"{}\") to deque", interp.TypeName(other)));
    }
    Value out = Copy(interp);
    for (const Value& item : that->items) Self(out).Push(item, false);
    return out;
  }
  if (op == lang::BinOpKind::kMul && other.is_integral()) {
    auto out = NewDeque(interp, maxlen);
    for (int64_t i = 0; i < other.integral(); ++i) {
      for (const Value& item : items) out->Push(item, false);
    }
    return Value(out);
  }
  return std::nullopt;
}

Value Pop(Interpreter& interp, const Value& self, CallArgs& args, bool left) {
  NoArgs(interp, left ? "popleft" : "pop", args);
  DequeObject& d = Self(self);
  if (d.items.empty()) interp.Raise(interp.types().index_error, "pop from an empty deque");
  ++d.version;
  Value item = left ? d.items.front() : d.items.back();
  left ? d.items.pop_front() : d.items.pop_back();
  return item;
}

const MethodEntry kDequeMethods[] = {
    {"append",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       Self(self).Push(OneArg(in, "append", args), false);
       return Value();
     }},
    {"appendleft",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       Self(self).Push(OneArg(in, "appendleft", args), true);
       return Value();
     }},
    {"pop",
     [](Interpreter& in, const Value& self, CallArgs& args) { return Pop(in, self, args, false); }},
    {"popleft",
     [](Interpreter& in, const Value& self, CallArgs& args) { return Pop(in, self, args, true); }},
    {"extend",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       Self(self).Extend(in, OneArg(in, "extend", args), false);
       return Value();
     }},
    {"extendleft",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       Self(self).Extend(in, OneArg(in, "extendleft", args), true);
       return Value();
     }},
    {"clear",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "clear", args);
       Self(self).items.clear();
       ++Self(self).version;
       return Value();
     }},
    {"copy",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "copy", args);
       return Self(self).Copy(in);
     }},
    {"count",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       const Value& x = OneArg(in, "count", args);
       int64_t n = 0;
       for (const Value& item : Self(self).items) n += in.Equals(item, x) ? 1 : 0;
       return Value::Int(n);
     }},
    {"index",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       CheckArgCount(in, "index", args, 1, 3);
       DequeObject& d = Self(self);
       auto [start, stop] = ClampRange(
           in, args.positional.size() > 1 ? std::optional<Value>(args.positional[1]) : std::nullopt,
           args.positional.size() > 2 ? std::optional<Value>(args.positional[2]) : std::nullopt,
           static_cast<int64_t>(d.items.size()));
       for (int64_t i = start; i < stop && i < static_cast<int64_t>(d.items.size()); ++i) {
         if (in.Equals(d.items[i], args.positional[0])) return Value::Int(i);
       }
       in.Raise(in.types().value_error,
                fmt::format("{} is not in deque", in.Repr(args.positional[0])));
     }},
    {"insert",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       CheckArgCount(in, "insert", args, 2, 2);
       DequeObject& d = Self(self);
       auto n = static_cast<int64_t>(d.items.size());
       if (d.maxlen >= 0 && n >= d.maxlen) {
         in.Raise(in.types().index_error, "deque already at its maximum size");
       }
       int64_t i = ToIndex(in, args.positional[0]);
       i = std::clamp<int64_t>(i < 0 ? i + n : i, 0, n);
       d.items.insert(d.items.begin() + i, args.positional[1]);
       ++d.version;
       return Value();
     }},
    {"remove",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       const Value& x = OneArg(in, "remove", args);
       DequeObject& d = Self(self);
       for (size_t i = 0; i < d.items.size(); ++i) {
         if (in.Equals(d.items[i], x)) {
           d.items.erase(d.items.begin() + static_cast<int64_t>(i));
           ++d.version;
           return Value();
         }
       }
       in.Raise(in.types().value_error, "deque.remove(x): x not in deque");
     }},
    {"reverse",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "reverse", args);
       std::reverse(Self(self).items.begin(), Self(self).items.end());
       ++Self(self).version;
       return Value();
     }},
    {"rotate",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       CheckArgCount(in, "rotate", args, 0, 1);
       DequeObject& d = Self(self);
       int64_t n = args.positional.empty() ? 1 : ToIndex(in, args.positional[0]);
       auto size = static_cast<int64_t>(d.items.size());
       if (size > 0) {
         int64_t shift = ((n % size) + size) % size;  // to the right
         std::rotate(d.items.begin(), d.items.begin() + (size - shift), d.items.end());
       }
       ++d.version;
       return Value();
     }},
    {"__iadd__",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       Self(self).Extend(in, OneArg(in, "__iadd__", args), false);
       return self;
     }},
    {"__imul__",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       int64_t n = ToIndex(in, OneArg(in, "__imul__", args));
       std::vector<Value> items(Self(self).items.begin(), Self(self).items.end());
       Self(self).items.clear();
       for (int64_t i = 0; i < n; ++i) {
         for (const Value& item : items) Self(self).Push(item, false);
       }
       return self;
     }},
};

std::optional<Value> DequeObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "maxlen") return maxlen < 0 ? Value() : Value::Int(maxlen);
  return FindMethod(interp, Value(shared_from_this()), name, kDequeMethods);
}

Value DequeConstructor(Interpreter& interp, TypeObject&, CallArgs& args) {
  auto bound = BindArgs(interp, "deque", args, {"iterable=", "maxlen="});
  int64_t maxlen = -1;
  if (bound[1] && !bound[1]->is_none()) {
    if (!bound[1]->is_integral()) interp.Raise(interp.types().type_error, "an integer is required");
    maxlen = bound[1]->integral();
    if (maxlen < 0) interp.Raise(interp.types().value_error, "maxlen must be non-negative");
  }
  auto deque = NewDeque(interp, maxlen);
  if (bound[0]) deque->Extend(interp, *bound[0], false);
  return Value(deque);
}

}  // namespace

TypeObject* MakeDequeType(Interpreter& interp) {
  TypeObject* type = interp.ExtensionType("collections.deque");
  type->name = "deque";
  type->module = "collections";
  type->constructor = DequeConstructor;
  return type;
}

}  // namespace pz::eval
