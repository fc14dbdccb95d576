// The `collections` module: the dict subclasses defaultdict (a default_factory called for
// missing keys), Counter (counts with most_common, elements, update/subtract, total and the
// multiset operators) and OrderedDict (move_to_end, popitem(last=)), which are dicts to every
// builtin (value.h's DictObject hooks); deque (collections_deque.cpp); and the submodule
// `collections.abc` (collections_abc.cpp). namedtuple comes from class_modules.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "eval/builtin_support.h"
#include "eval/collections_module.h"

namespace pz::eval {
namespace {

using lang::BinOpKind;

// `{k: v, ...}` of a dict's items, as a plain dict prints.
std::string ItemsRepr(Interpreter& interp, const std::vector<std::pair<Value, Value>>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i > 0 ? ", " : "") + interp.Repr(items[i].first) + ": " + interp.Repr(items[i].second);
  }
  return out + "}";
}

DictObject& AsDict(const Value& v) { return *v.as<DictObject>(); }

// The dict(...) arguments after those a subclass takes itself: at most one mapping or iterable
// of pairs, then keywords.
void UpdateFrom(Interpreter& interp, DictObject& dict, const CallArgs& args, size_t first) {
  if (args.positional.size() > first + 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} expected at most 1 argument, got {}", dict.type->name,
                             args.positional.size() - first));
  }
  std::optional<Value> source;
  if (args.positional.size() > first) source = args.positional[first];
  DictUpdate(interp, dict, source, args.keywords);
}

template <typename T, typename... Extra>
std::shared_ptr<T> NewSubclassDict(Interpreter& interp, TypeObject* type, Extra&&... extra) {
  auto dict = std::make_shared<T>(type, std::forward<Extra>(extra)...);
  interp.Track(dict);
  return dict;
}

// ---- defaultdict ------------------------------------------------------------------------------

class DefaultDictObject final : public DictObject {
 public:
  DefaultDictObject(TypeObject* type, Value factory)
      : DictObject(type), default_factory(std::move(factory)) {}
  std::string_view type_name() const override { return "collections.defaultdict"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("defaultdict({}, {})", interp.Repr(default_factory),
                       ItemsRepr(interp, Items()));
  }
  std::optional<Value> Missing(Interpreter& interp, const Value& key) override {
    if (default_factory.is_none()) return std::nullopt;
    Value value = interp.Call(default_factory, std::vector<Value>{});
    Set(interp, key, value);
    return value;
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  bool SetAttr(Interpreter&, std::string_view name, const Value& value) override {
    if (name != "default_factory") return false;
    default_factory = value;
    return true;
  }
  std::optional<Value> Binary(Interpreter& interp, BinOpKind op, const Value& other,
                              bool reflected) override {
    if (op != BinOpKind::kBitOr || !other.is(ObjectKind::kDict)) return std::nullopt;
    auto out = NewSubclassDict<DefaultDictObject>(interp, type, default_factory);
    for (const DictObject* from :
         {reflected ? other.as<DictObject>() : this, reflected ? this : other.as<DictObject>()}) {
      for (const auto& [k, v] : from->Items()) out->Set(interp, k, v);
    }
    return Value(out);
  }
  void ClearReferences() override {
    DictObject::ClearReferences();
    default_factory = Value();
  }
  Value default_factory;
};

const MethodEntry kDefaultDictMethods[] = {
    {"copy",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "copy", args);
       auto& dict = *self.as<DefaultDictObject>();
       auto out = NewSubclassDict<DefaultDictObject>(in, dict.type, dict.default_factory);
       for (const auto& [k, v] : dict.Items()) out->Set(in, k, v);
       return Value(out);
     }},
    {"__missing__",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       const Value& key = OneArg(in, "__missing__", args);
       if (auto value = self.as<DefaultDictObject>()->Missing(in, key)) return *value;
       in.Throw(in.NewException(in.types().key_error, {key}));
     }},
};

std::optional<Value> DefaultDictObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "default_factory") return default_factory;
  return FindMethod(interp, Value(shared_from_this()), name, kDefaultDictMethods);
}

Value DefaultDictConstructor(Interpreter& interp, TypeObject& type, CallArgs& args) {
  Value factory;
  if (!args.positional.empty()) {
    factory = args.positional[0];
    if (!factory.is_none() && !IsCallable(interp, factory)) {
      interp.Raise(interp.types().type_error, "first argument must be callable or None");
    }
  }
  auto dict = NewSubclassDict<DefaultDictObject>(interp, &type, factory);
  UpdateFrom(interp, *dict, args, 1);
  return Value(dict);
}

// ---- Counter ----------------------------------------------------------------------------------

class CounterObject final : public DictObject {
 public:
  explicit CounterObject(TypeObject* type) : DictObject(type) {}
  std::string_view type_name() const override { return "Counter"; }
  std::string Repr(Interpreter& interp) const override {
    if (size() == 0) return "Counter()";
    return "Counter(" + ItemsRepr(interp, MostCommon(interp)) + ")";
  }
  std::optional<Value> Missing(Interpreter&, const Value&) override { return Value::Int(0); }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> Binary(Interpreter& interp, BinOpKind op, const Value& other,
                              bool reflected) override;
  std::optional<Value> Unary(Interpreter& interp, lang::UnaryOpKind op) override;

  // Items by descending count, ties in insertion order (sorted(..., reverse=True)).
  std::vector<std::pair<Value, Value>> MostCommon(Interpreter& interp) const {
    std::vector<std::pair<Value, Value>> items = Items();
    std::stable_sort(items.begin(), items.end(),
                     [&](const auto& a, const auto& b) { return interp.Less(b.second, a.second); });
    return items;
  }
  // Counter.update / subtract: a mapping's counts or an iterable's elements, then keywords.
  void Add(Interpreter& interp, const CallArgs& args, BinOpKind op);
};

bool Positive(Interpreter& interp, const Value& count) {
  return interp.Truthy(interp.Compare(lang::CmpOpKind::kGt, count, Value::Int(0)));
}

void CounterObject::Add(Interpreter& interp, const CallArgs& args, BinOpKind op) {
  if (args.positional.size() > 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("expected at most 1 argument, got {}", args.positional.size()));
  }
  auto bump = [&](const Value& key, const Value& count) {
    Value current = Get(interp, key).value_or(Value::Int(0));
    Set(interp, key, interp.BinaryOp(op, current, count));
  };
  if (!args.positional.empty() && !args.positional[0].is_none()) {
    const Value& source = args.positional[0];
    if (auto* mapping = source.as<DictObject>()) {
      if (size() == 0 && op == BinOpKind::kAdd) {
        for (const auto& [k, v] : mapping->Items()) Set(interp, k, v);
      } else {
        for (const auto& [k, v] : mapping->Items()) bump(k, v);
      }
    } else {
      if (!interp.TryGetIter(source)) {
        interp.Raise(interp.types().type_error,
                     fmt::format("'{}' object is not iterable", interp.TypeName(source)));
      }
      interp.ForEach(source, [&](const Value& item) {
        bump(item, Value::Int(1));
        return true;
      });
    }
  }
  for (const auto& [key, count] : args.keywords) bump(MakeStr(key), count);
}

std::optional<Value> CounterObject::Binary(Interpreter& interp, BinOpKind op, const Value& other,
                                           bool reflected) {
  auto* that = other.as<CounterObject>();
  if (that == nullptr || (op != BinOpKind::kAdd && op != BinOpKind::kSub &&
                          op != BinOpKind::kBitOr && op != BinOpKind::kBitAnd)) {
    return std::nullopt;
  }
  const CounterObject& a = reflected ? *that : *this;
  const CounterObject& b = reflected ? *this : *that;
  auto out = NewSubclassDict<CounterObject>(interp, type);
  Value zero = Value::Int(0);
  for (const auto& [key, count] : a.Items()) {
    Value theirs = b.Get(interp, key).value_or(zero);
    Value result;
    if (op == BinOpKind::kAdd || op == BinOpKind::kSub) {
      result = interp.BinaryOp(op, count, theirs);
    } else {
      bool less = interp.Less(count, theirs);
      result = (op == BinOpKind::kBitOr) == less ? theirs : count;
    }
    if (Positive(interp, result)) out->Set(interp, key, result);
  }
  if (op != BinOpKind::kBitAnd) {
    for (const auto& [key, count] : b.Items()) {
      if (a.Contains(interp, key)) continue;
      Value result = op == BinOpKind::kSub ? interp.BinaryOp(BinOpKind::kSub, zero, count) : count;
      if (Positive(interp, result)) out->Set(interp, key, result);
    }
  }
  return Value(out);
}

std::optional<Value> CounterObject::Unary(Interpreter& interp, lang::UnaryOpKind op) {
  if (op != lang::UnaryOpKind::kPos && op != lang::UnaryOpKind::kNeg) return std::nullopt;
  auto out = NewSubclassDict<CounterObject>(interp, type);
  for (const auto& [key, count] : Items()) {
    Value result = op == lang::UnaryOpKind::kPos
                       ? count
                       : interp.BinaryOp(BinOpKind::kSub, Value::Int(0), count);
    if (Positive(interp, result)) out->Set(interp, key, result);
  }
  return Value(out);
}

CounterObject& Counter(const Value& self) { return *self.as<CounterObject>(); }

// `c += other` and the like: the operator's result replaces the counts in place.
template <BinOpKind op>
Value CounterInplace(Interpreter& interp, const Value& self, CallArgs& args) {
  const Value& other = OneArg(interp, "__iop__", args);
  Value result = interp.BinaryOp(op, self, other, /*inplace=*/true);
  Counter(self).Clear();
  for (const auto& [k, v] : AsDict(result).Items()) Counter(self).Set(interp, k, v);
  return self;
}

const MethodEntry kCounterMethods[] = {
    {"most_common",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "most_common", args, {"n="});
       std::vector<std::pair<Value, Value>> items = Counter(self).MostCommon(in);
       if (bound[0] && !bound[0]->is_none()) {
         int64_t n = std::max<int64_t>(ToIndex(in, *bound[0]), 0);
         if (static_cast<size_t>(n) < items.size()) items.resize(n);
       }
       std::vector<Value> out;
       for (auto& [k, v] : items) out.push_back(MakeTuple({k, v}));
       return NewList(in, std::move(out));
     }},
    {"elements",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "elements", args);
       std::vector<Value> out;
       for (const auto& [k, v] : Counter(self).Items()) {
         for (int64_t i = 0, n = ToIndex(in, v); i < n; ++i) out.push_back(k);
       }
       auto items = std::make_shared<std::vector<Value>>(std::move(out));
       auto position = std::make_shared<size_t>(0);
       return NewIterator(in, "itertools.chain",
                          [items, position](Interpreter&) -> std::optional<Value> {
                            if (*position >= items->size()) return std::nullopt;
                            return (*items)[(*position)++];
                          });
     }},
    {"update",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       Counter(self).Add(in, args, BinOpKind::kAdd);
       return Value();
     }},
    {"subtract",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       Counter(self).Add(in, args, BinOpKind::kSub);
       return Value();
     }},
    {"total",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "total", args);
       Value sum = Value::Int(0);
       for (const auto& [k, v] : Counter(self).Items()) sum = in.BinaryOp(BinOpKind::kAdd, sum, v);
       return sum;
     }},
    {"copy",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "copy", args);
       auto out = NewSubclassDict<CounterObject>(in, Counter(self).type);
       for (const auto& [k, v] : Counter(self).Items()) out->Set(in, k, v);
       return Value(out);
     }},
    {"__iadd__", CounterInplace<BinOpKind::kAdd>},
    {"__isub__", CounterInplace<BinOpKind::kSub>},
    {"__ior__", CounterInplace<BinOpKind::kBitOr>},
    {"__iand__", CounterInplace<BinOpKind::kBitAnd>},
};

std::optional<Value> CounterObject::GetAttr(Interpreter& interp, std::string_view name) {
  return FindMethod(interp, Value(shared_from_this()), name, kCounterMethods);
}

Value CounterConstructor(Interpreter& interp, TypeObject& type, CallArgs& args) {
  auto counter = NewSubclassDict<CounterObject>(interp, &type);
  counter->Add(interp, args, BinOpKind::kAdd);
  return Value(counter);
}

// ---- OrderedDict ------------------------------------------------------------------------------

class OrderedDictObject final : public DictObject {
 public:
  explicit OrderedDictObject(TypeObject* type) : DictObject(type) {}
  std::string_view type_name() const override { return "collections.OrderedDict"; }
  std::string Repr(Interpreter& interp) const override {
    if (size() == 0) return "OrderedDict()";
    std::string out = "OrderedDict([";
    bool first = true;
    for (const auto& [k, v] : Items()) {
      out += (first ? "" : ", ") + interp.Repr(MakeTuple({k, v}));
      first = false;
    }
    return out + "])";
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> Binary(Interpreter& interp, BinOpKind op, const Value& other,
                              bool reflected) override {
    if (op != BinOpKind::kBitOr || !other.is(ObjectKind::kDict)) return std::nullopt;
    auto out = NewSubclassDict<OrderedDictObject>(interp, type);
    for (const DictObject* from :
         {reflected ? other.as<DictObject>() : this, reflected ? this : other.as<DictObject>()}) {
      for (const auto& [k, v] : from->Items()) out->Set(interp, k, v);
    }
    return Value(out);
  }
};

// Moves `key` to the end, or to the front when `last` is false.
void MoveToEnd(Interpreter& interp, DictObject& dict, const Value& key, bool last) {
  std::optional<Value> value = dict.Remove(interp, key);
  if (!value) interp.Throw(interp.NewException(interp.types().key_error, {key}));
  if (last) {
    dict.Set(interp, key, *value);
    return;
  }
  std::vector<std::pair<Value, Value>> rest = dict.Items();
  dict.Clear();
  dict.Set(interp, key, *value);
  for (const auto& [k, v] : rest) dict.Set(interp, k, v);
}

const MethodEntry kOrderedDictMethods[] = {
    {"move_to_end",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "move_to_end", args, {"key", "last="});
       MoveToEnd(in, AsDict(self), *bound[0], !bound[1] || in.Truthy(*bound[1]));
       return Value();
     }},
    {"popitem",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       auto bound = BindArgs(in, "popitem", args, {"last="});
       DictObject& dict = AsDict(self);
       if (dict.size() == 0) {
         in.Throw(in.NewException(in.types().key_error, {MakeStr("dictionary is empty")}));
       }
       std::vector<std::pair<Value, Value>> items = dict.Items();
       auto [key, value] = !bound[0] || in.Truthy(*bound[0]) ? items.back() : items.front();
       dict.Remove(in, key);
       return MakeTuple({key, value});
     }},
    {"copy",
     [](Interpreter& in, const Value& self, CallArgs& args) {
       NoArgs(in, "copy", args);
       auto out = NewSubclassDict<OrderedDictObject>(in, AsDict(self).type);
       for (const auto& [k, v] : AsDict(self).Items()) out->Set(in, k, v);
       return Value(out);
     }},
};

std::optional<Value> OrderedDictObject::GetAttr(Interpreter& interp, std::string_view name) {
  return FindMethod(interp, Value(shared_from_this()), name, kOrderedDictMethods);
}

Value OrderedDictConstructor(Interpreter& interp, TypeObject& type, CallArgs& args) {
  auto dict = NewSubclassDict<OrderedDictObject>(interp, &type);
  UpdateFrom(interp, *dict, args, 0);
  return Value(dict);
}

// A dict subclass of the collections module.
Value DictSubclass(Interpreter& interp, const char* name, TypeObject::Constructor constructor) {
  auto type = std::make_shared<TypeObject>(name, interp.types().dict_type, std::move(constructor));
  type->module = "collections";
  return TypeValue(interp.AdoptType(type));
}

}  // namespace

std::shared_ptr<ModuleObject> MakeCollectionsModule(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("collections");
  module->Set("defaultdict", DictSubclass(interp, "defaultdict", DefaultDictConstructor));
  module->Set("Counter", DictSubclass(interp, "Counter", CounterConstructor));
  module->Set("OrderedDict", DictSubclass(interp, "OrderedDict", OrderedDictConstructor));
  module->Set("deque", TypeValue(MakeDequeType(interp)));
  std::shared_ptr<ModuleObject> abc = MakeCollectionsAbcModule(interp);
  module->Set("abc", Value(abc));
  interp.RegisterModule("collections.abc", abc);
  return module;
}

}  // namespace pz::eval
