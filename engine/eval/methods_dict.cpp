// Methods of dict and set, and the dict views returned by keys()/values()/items(): live views
// over the dict that print as `dict_keys(['a', 'b'])`, have a len() and iterate (raising
// RuntimeError when the dict changes size meanwhile, as CPython does).
#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "eval/interpreter.h"

namespace pz::eval {

namespace {

DictObject& Dict(const Value& self) { return *self.as<DictObject>(); }

enum class ViewKind { kKeys, kValues, kItems };

class DictViewObject final : public Object {
 public:
  DictViewObject(std::shared_ptr<DictObject> dict, ViewKind view)
      : Object(ObjectKind::kExtension), dict_(std::move(dict)), view_(view) {}

  std::string_view type_name() const override {
    switch (view_) {
      case ViewKind::kKeys:
        return "dict_keys";
      case ViewKind::kValues:
        return "dict_values";
      case ViewKind::kItems:
        return "dict_items";
    }
    return "dict_view";
  }

  std::string Repr(Interpreter& interp) const override {
    std::string out = std::string(type_name()) + "([";
    if (dict_) {
      bool first = true;
      for (const auto& [key, value] : dict_->Items()) {
        if (!first) out += ", ";
        first = false;
        out += interp.Repr(Element(key, value));
      }
    }
    return out + "])";
  }

  std::optional<int64_t> Len(Interpreter& interp) override {
    return dict_ ? static_cast<int64_t>(dict_->size()) : 0;
  }

  ObjectRef Iter(Interpreter& interp) override {
    if (!dict_) return std::make_shared<IteratorObject>(std::string(type_name()), nullptr);
    auto items = std::make_shared<std::vector<std::pair<Value, Value>>>(dict_->Items());
    std::shared_ptr<DictObject> dict = dict_;
    size_t size = dict->size(), position = 0;
    ViewKind view = view_;
    auto iterator = std::make_shared<IteratorObject>(
        view_ == ViewKind::kKeys     ? "dict_keyiterator"
        : view_ == ViewKind::kValues ? "dict_valueiterator"
                                     : "dict_itemiterator",
        [dict, items, size, position, view](Interpreter& in) mutable -> std::optional<Value> {
          if (dict->size() != size) {
            size = dict->size();  // raise once, then keep going like CPython's exhausted state
            position = items->size();
            in.Raise(in.types().runtime_error, "dictionary changed size during iteration");
          }
          if (position == items->size()) return std::nullopt;
          const auto& [key, value] = (*items)[position++];
          return view == ViewKind::kKeys     ? key
                 : view == ViewKind::kValues ? value
                                             : MakeTuple({key, value});
        });
    interp.Track(iterator);
    return iterator;
  }

  // == and != only: keys and items views equal a set or a view of the same kind with the same
  // elements; values views are equal only to themselves, as in CPython.
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override {
    if (op != lang::CmpOpKind::kEq && op != lang::CmpOpKind::kNotEq) return std::nullopt;
    bool equal = other.is_object() && other.object().get() == this;
    if (!equal && view_ != ViewKind::kValues && dict_) {
      std::optional<int64_t> size = OtherSize(other);
      equal = size == static_cast<int64_t>(dict_->size());
      if (equal) {
        for (const auto& [key, value] : dict_->Items()) {
          if (!OtherContains(interp, other, Element(key, value))) {
            equal = false;
            break;
          }
        }
      }
    }
    return Value::Bool(equal == (op == lang::CmpOpKind::kEq));
  }

  void ClearReferences() override { dict_.reset(); }

 private:
  // Size of a set or of a view of the same kind; nullopt for anything else.
  std::optional<int64_t> OtherSize(const Value& other) const {
    if (auto* set = other.as<SetObject>()) return static_cast<int64_t>(set->table.size());
    auto* view = other.as<DictViewObject>();
    if (view == nullptr || view->view_ != view_ || !view->dict_) return std::nullopt;
    return static_cast<int64_t>(view->dict_->size());
  }

  bool OtherContains(Interpreter& interp, const Value& other, const Value& element) const {
    if (auto* set = other.as<SetObject>()) return set->table.Contains(interp, element);
    const DictObject& dict = *other.as<DictViewObject>()->dict_;
    if (view_ == ViewKind::kKeys) return dict.Contains(interp, element);
    const auto& pair = element.as<TupleObject>()->items;
    std::optional<Value> value = dict.Get(interp, pair[0]);
    return value && (value->Identical(pair[1]) || interp.Equals(*value, pair[1]));
  }

  Value Element(const Value& key, const Value& value) const {
    switch (view_) {
      case ViewKind::kKeys:
        return key;
      case ViewKind::kValues:
        return value;
      case ViewKind::kItems:
        return MakeTuple({key, value});
    }
    return key;
  }

  std::shared_ptr<DictObject> dict_;
  ViewKind view_;
};

Value MakeView(Interpreter& interp, const Value& self, CallArgs& args, ViewKind view,
               std::string_view name) {
  NoArgs(interp, name, args);
  auto object =
      std::make_shared<DictViewObject>(std::static_pointer_cast<DictObject>(self.object()), view);
  interp.Track(object);
  return object;
}

Value Get(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckArgCount(interp, "dict.get", args, 1, 2);
  if (auto value = Dict(self).Get(interp, args.positional[0])) return *value;
  return args.positional.size() > 1 ? args.positional[1] : Value();
}

Value DictPop(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckArgCount(interp, "dict.pop", args, 1, 2);
  if (auto value = Dict(self).Remove(interp, args.positional[0])) return *value;
  if (args.positional.size() > 1) return args.positional[1];
  RaiseWithArg(interp, interp.types().key_error, args.positional[0]);
}

Value PopItem(Interpreter& interp, const Value& self, CallArgs& args) {
  NoArgs(interp, "dict.popitem", args);
  DictObject& dict = Dict(self);
  if (dict.size() == 0) {
    RaiseWithArg(interp, interp.types().key_error, MakeStr("popitem(): dictionary is empty"));
  }
  auto [key, value] = dict.Items().back();
  dict.Remove(interp, key);
  return MakeTuple({key, value});
}

Value SetDefault(Interpreter& interp, const Value& self, CallArgs& args) {
  CheckArgCount(interp, "dict.setdefault", args, 1, 2);
  if (auto value = Dict(self).Get(interp, args.positional[0])) return *value;
  Value fallback = args.positional.size() > 1 ? args.positional[1] : Value();
  Dict(self).Set(interp, args.positional[0], fallback);
  return fallback;
}

Value Update(Interpreter& interp, const Value& self, CallArgs& args) {
  if (args.positional.size() > 1) {
    interp.Raise(interp.types().type_error,
                 fmt::format("update expected at most 1 argument, got {}", args.positional.size()));
  }
  std::optional<Value> source;
  if (!args.positional.empty()) source = args.positional[0];
  DictUpdate(interp, Dict(self), source, args.keywords);
  return Value();
}

const MethodEntry kDictMethods[] = {
    {"get", Get},
    {"keys", [](Interpreter& i, const Value& s,
                CallArgs& a) { return MakeView(i, s, a, ViewKind::kKeys, "dict.keys"); }},
    {"values", [](Interpreter& i, const Value& s,
                  CallArgs& a) { return MakeView(i, s, a, ViewKind::kValues, "dict.values"); }},
    {"items", [](Interpreter& i, const Value& s,
                 CallArgs& a) { return MakeView(i, s, a, ViewKind::kItems, "dict.items"); }},
    {"pop", DictPop},
    {"popitem", PopItem},
    {"setdefault", SetDefault},
    {"update", Update},
    {"copy",
     [](Interpreter& i, const Value& s, CallArgs& a) {
       NoArgs(i, "dict.copy", a);
       auto copy = NewDict(i);
       for (const auto& [key, value] : Dict(s).Items()) copy->Set(i, key, value);
       return Value(copy);
     }},
    {"clear",
     [](Interpreter& i, const Value& s, CallArgs& a) {
       NoArgs(i, "dict.clear", a);
       Dict(s).Clear();
       return Value();
     }},
};

// ---- set ------------------------------------------------------------------------------------

SetObject& Set(const Value& self) { return *self.as<SetObject>(); }

std::vector<Value> Elements(const SetObject& set) {
  std::vector<Value> out;
  for (auto& [key, unused] : set.table.Items()) out.push_back(key);
  return out;
}

// A membership table for an iterable argument (a set's own table when it is one).
std::shared_ptr<DictObject> MembershipOf(Interpreter& interp, const Value& iterable) {
  if (iterable.is(ObjectKind::kSet)) {
    return std::shared_ptr<DictObject>(iterable.object(), &Set(iterable).table);
  }
  auto table = std::make_shared<DictObject>();
  interp.ForEach(iterable, [&](const Value& item) {
    table->Set(interp, item, Value());
    return true;
  });
  return table;
}

std::shared_ptr<SetObject> CopySet(Interpreter& interp, const SetObject& set) {
  auto copy = NewSet(interp);
  for (const Value& item : Elements(set)) copy->table.Set(interp, item, Value());
  return copy;
}

Value SetAdd(Interpreter& interp, const Value& self, CallArgs& args) {
  Set(self).table.Set(interp, OneArg(interp, "set.add", args), Value());
  return Value();
}

Value SetRemove(Interpreter& interp, const Value& self, CallArgs& args, bool discard) {
  const Value& item = OneArg(interp, discard ? "set.discard" : "set.remove", args);
  if (!Set(self).table.Remove(interp, item) && !discard) {
    RaiseWithArg(interp, interp.types().key_error, item);
  }
  return Value();
}

Value SetPop(Interpreter& interp, const Value& self, CallArgs& args) {
  NoArgs(interp, "set.pop", args);
  SetObject& set = Set(self);
  if (set.table.size() == 0) {
    RaiseWithArg(interp, interp.types().key_error, MakeStr("pop from an empty set"));
  }
  Value item = set.table.Items().front().first;
  set.table.Remove(interp, item);
  return item;
}

// union/update: every element of self and the others.
Value Union(Interpreter& interp, const Value& self, CallArgs& args, bool in_place) {
  CheckNoKeywords(interp, in_place ? "set.update" : "set.union", args);
  std::shared_ptr<SetObject> result =
      in_place ? std::static_pointer_cast<SetObject>(self.object()) : CopySet(interp, Set(self));
  for (const Value& other : args.positional) {
    interp.ForEach(other, [&](const Value& item) {
      result->table.Set(interp, item, Value());
      return true;
    });
  }
  return in_place ? Value() : Value(result);
}

// intersection (keep == true) or difference (keep == false) with every other iterable.
Value Filter(Interpreter& interp, const Value& self, CallArgs& args, bool keep, bool in_place) {
  CheckNoKeywords(interp, keep ? "set.intersection" : "set.difference", args);
  std::vector<Value> items = Elements(Set(self));
  for (const Value& other : args.positional) {
    std::shared_ptr<DictObject> members = MembershipOf(interp, other);
    std::vector<Value> kept;
    for (const Value& item : items) {
      if (members->Contains(interp, item) == keep) kept.push_back(item);
    }
    items = std::move(kept);
  }
  std::shared_ptr<SetObject> result =
      in_place ? std::static_pointer_cast<SetObject>(self.object()) : NewSet(interp);
  result->table.Clear();
  for (const Value& item : items) result->table.Set(interp, item, Value());
  return in_place ? Value() : Value(result);
}

Value SymmetricDifference(Interpreter& interp, const Value& self, CallArgs& args) {
  const Value& other = OneArg(interp, "set.symmetric_difference", args);
  std::shared_ptr<DictObject> members = MembershipOf(interp, other);
  auto result = NewSet(interp);
  for (const Value& item : Elements(Set(self))) {
    if (!members->Contains(interp, item)) result->table.Set(interp, item, Value());
  }
  for (const auto& [item, unused] : members->Items()) {
    if (!Set(self).table.Contains(interp, item)) result->table.Set(interp, item, Value());
  }
  return result;
}

// issubset (self <= other), issuperset (self >= other), isdisjoint.
Value Relation(Interpreter& interp, const Value& self, CallArgs& args, std::string_view name) {
  const Value& other = OneArg(interp, fmt::format("set.{}", name), args);
  std::shared_ptr<DictObject> members = MembershipOf(interp, other);
  if (name == "issuperset") {
    for (const auto& [item, unused] : members->Items()) {
      if (!Set(self).table.Contains(interp, item)) return Value::Bool(false);
    }
    return Value::Bool(true);
  }
  bool want = name == "issubset";
  for (const Value& item : Elements(Set(self))) {
    if (members->Contains(interp, item) != want) return Value::Bool(false);
  }
  return Value::Bool(true);
}

const MethodEntry kSetMethods[] = {
    {"add", SetAdd},
    {"remove",
     [](Interpreter& i, const Value& s, CallArgs& a) { return SetRemove(i, s, a, false); }},
    {"discard",
     [](Interpreter& i, const Value& s, CallArgs& a) { return SetRemove(i, s, a, true); }},
    {"pop", SetPop},
    {"union", [](Interpreter& i, const Value& s, CallArgs& a) { return Union(i, s, a, false); }},
    {"update", [](Interpreter& i, const Value& s, CallArgs& a) { return Union(i, s, a, true); }},
    {"intersection",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Filter(i, s, a, true, false); }},
    {"intersection_update",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Filter(i, s, a, true, true); }},
    {"difference",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Filter(i, s, a, false, false); }},
    {"difference_update",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Filter(i, s, a, false, true); }},
    {"symmetric_difference", SymmetricDifference},
    {"issubset",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Relation(i, s, a, "issubset"); }},
    {"issuperset",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Relation(i, s, a, "issuperset"); }},
    {"isdisjoint",
     [](Interpreter& i, const Value& s, CallArgs& a) { return Relation(i, s, a, "isdisjoint"); }},
    {"copy",
     [](Interpreter& i, const Value& s, CallArgs& a) {
       NoArgs(i, "set.copy", a);
       return Value(CopySet(i, Set(s)));
     }},
    {"clear",
     [](Interpreter& i, const Value& s, CallArgs& a) {
       NoArgs(i, "set.clear", a);
       Set(s).table.Clear();
       return Value();
     }},
};

}  // namespace

void DictUpdate(Interpreter& interp, DictObject& dict, const std::optional<Value>& source,
                const std::vector<std::pair<std::string, Value>>& keywords) {
  if (source) {
    if (auto* other = source->as<DictObject>()) {
      for (const auto& [key, value] : other->Items()) dict.Set(interp, key, value);
    } else {
      size_t index = 0;
      interp.ForEach(*source, [&](const Value& element) {
        if (!interp.TryGetIter(element)) {
          interp.Raise(interp.types().type_error,
                       fmt::format("cannot convert dictionary update sequence element #{} to a "
                                   "sequence",
                                   index));
        }
        std::vector<Value> pair = interp.ToVector(element);
        if (pair.size() != 2) {
          interp.Raise(interp.types().value_error,
                       fmt::format("dictionary update sequence element #{} has length {}; 2 is "
                                   "required",
                                   index, pair.size()));
        }
        dict.Set(interp, pair[0], pair[1]);
        ++index;
        return true;
      });
    }
  }
  for (const auto& [name, value] : keywords) dict.Set(interp, MakeStr(name), value);
}

std::optional<Value> GetDictMethod(Interpreter& interp, const Value& self, std::string_view name) {
  return FindMethod(interp, self, name, kDictMethods);
}

std::optional<Value> GetSetMethod(Interpreter& interp, const Value& self, std::string_view name) {
  return FindMethod(interp, self, name, kSetMethods);
}

}  // namespace pz::eval
