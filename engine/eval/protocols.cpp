// Attribute, item, length, membership and iteration protocols on built-in kinds, with Python's
// indexing and slicing rules and CPython's error messages; extension objects use Object hooks.
#include <fmt/format.h>

#include <algorithm>

#include "eval/builtin_support.h"
#include "eval/classes.h"
#include "eval/format.h"
#include "eval/interpreter.h"

namespace pz::eval {
namespace {

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

int64_t SliceIndex(Interpreter& interp, const Value& v, const char* what) {
  if (v.is_integral()) return v.integral();
  interp.Raise(interp.types().type_error,
               "slice indices must be integers or None or have an __index__ method");
}

}  // namespace

SliceBounds ResolveSlice(Interpreter& interp, const SliceObject& slice, int64_t length) {
  int64_t step = slice.step.is_none() ? 1 : SliceIndex(interp, slice.step, "step");
  if (step == 0) interp.Raise(interp.types().value_error, "slice step cannot be zero");
  int64_t lower = step < 0 ? -1 : 0;
  int64_t upper = step < 0 ? length - 1 : length;
  auto clamp = [&](const Value& v, int64_t fallback) {
    if (v.is_none()) return fallback;
    int64_t i = SliceIndex(interp, v, "bound");
    if (i < 0) {
      i += length;
      if (i < lower) i = lower;
    } else if (i > upper) {
      i = upper;
    }
    return i;
  };
  int64_t start = clamp(slice.start, step < 0 ? upper : lower);
  int64_t stop = clamp(slice.stop, step < 0 ? lower : upper);
  int64_t count = 0;
  if (step > 0 && start < stop) count = (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) count = (start - stop - 1) / (-step) + 1;
  return SliceBounds{start, stop, step, count};
}

namespace {

// Normalises a (possibly negative) index into [0, length), raising IndexError otherwise.
int64_t NormalizeIndex(Interpreter& interp, int64_t index, int64_t length, const char* what) {
  if (index < 0) index += length;
  if (index < 0 || index >= length) {
    interp.Raise(interp.types().index_error, fmt::format("{} index out of range", what));
  }
  return index;
}

template <typename T>
std::vector<T> TakeSlice(const std::vector<T>& items, const SliceBounds& b) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(b.count));
  for (int64_t i = 0, j = b.start; i < b.count; ++i, j += b.step) out.push_back(items[j]);
  return out;
}

}  // namespace

// ---- attributes -------------------------------------------------------------------------------

std::optional<Value> Interpreter::TryGetAttr(const Value& object, std::string_view name) {
  if (object.is_object()) {
    ObjectKind kind = object.object()->kind();
    bool builtin_kind = kind == ObjectKind::kStr || kind == ObjectKind::kList ||
                        kind == ObjectKind::kTuple || kind == ObjectKind::kDict ||
                        kind == ObjectKind::kSet;
    if (kind == ObjectKind::kTuple) {
      auto& tuple = static_cast<TupleObject&>(*object.object());
      if (tuple.type != nullptr) {
        if (std::optional<Value> value = NamedTupleAttr(*this, tuple, name)) return value;
      }
    }
    if (kind == ObjectKind::kDict && object.as<DictObject>()->type != nullptr) {
      if (std::optional<Value> value = object.object()->GetAttr(*this, name)) return value;
    }
    if (builtin_kind) return GetBuiltinMethod(*this, object, name);
    if (kind == ObjectKind::kRange) {
      auto* r = object.as<RangeObject>();
      if (name == "start") return Value::Int(r->start);
      if (name == "stop") return Value::Int(r->stop);
      if (name == "step") return Value::Int(r->step);
    }
    if (kind == ObjectKind::kSlice) {
      auto* s = object.as<SliceObject>();
      if (name == "start") return s->start;
      if (name == "stop") return s->stop;
      if (name == "step") return s->step;
    }
    if (std::optional<Value> value = object.object()->GetAttr(*this, name)) return value;
    if (kind == ObjectKind::kType) return UnboundMethod(*object.as<TypeObject>(), name);
    return std::nullopt;
  }
  return GetBuiltinMethod(*this, object, name);
}

std::optional<Value> Interpreter::UnboundMethod(TypeObject& type, std::string_view name) {
  // `str.lower`, `list.append`, ...: a function taking the instance as its first argument.
  Value sample;
  if (&type == types_.str_type)
    sample = MakeStr("");
  else if (&type == types_.list_type)
    sample = MakeList({});
  else if (&type == types_.tuple_type)
    sample = MakeTuple({});
  else if (&type == types_.dict_type)
    sample = Value(std::make_shared<DictObject>());
  else if (&type == types_.set_type)
    sample = Value(std::make_shared<SetObject>());
  else if (&type == types_.int_type)
    sample = Value::Int(0);
  else if (&type == types_.float_type)
    sample = Value::Float(0);
  else
    return std::nullopt;
  if (!GetBuiltinMethod(*this, sample, name)) return std::nullopt;
  std::string method(name);
  TypeObject* owner = &type;
  return MakeBuiltin(type.name + "." + method, [owner, method](Interpreter& interp,
                                                               CallArgs& args) {
    if (args.positional.empty() || !interp.IsInstance(args.positional[0], owner)) {
      interp.Raise(
          interp.types().type_error,
          fmt::format("descriptor '{}' for '{}' objects doesn't apply to a '{}' object", method,
                      owner->name,
                      args.positional.empty() ? "NoneType" : interp.TypeName(args.positional[0])));
    }
    Value self = args.positional[0];
    args.positional.erase(args.positional.begin());
    std::optional<Value> bound = GetBuiltinMethod(interp, self, method);
    return interp.Call(*bound, std::move(args));
  });
}

Value Interpreter::GetAttr(const Value& object, std::string_view name) {
  if (std::optional<Value> value = TryGetAttr(object, name)) return *value;
  if (auto* module = object.as<ModuleObject>()) {
    std::vector<std::string> notes;
    std::string close;
    size_t best = 3;
    for (const auto& [attr, v] : module->Names()) {
      size_t common = 0;
      while (common < attr.size() && common < name.size() && attr[common] == name[common]) {
        ++common;
      }
      size_t distance = std::max(attr.size(), name.size()) - common;
      if (distance < best && common >= 2) {
        best = distance;
        close = attr;
      }
    }
    if (!close.empty()) notes.push_back(fmt::format("did you mean `{}`?", close));
    RaiseWithNotes(types_.attribute_error,
                   fmt::format("module '{}' has no attribute '{}'", module->name, name),
                   std::move(notes));
  }
  if (auto* type = object.as<TypeObject>()) {
    Raise(types_.attribute_error,
          fmt::format("type object '{}' has no attribute '{}'", type->name, name));
  }
  Raise(types_.attribute_error,
        fmt::format("'{}' object has no attribute '{}'", TypeName(object), name));
}

void Interpreter::SetAttr(const Value& object, std::string_view name, const Value& value) {
  if (object.is_object() && object.object()->SetAttr(*this, name, value)) return;
  Raise(types_.attribute_error,
        fmt::format("'{}' object has no attribute '{}'", TypeName(object), name));
}

// ---- items ------------------------------------------------------------------------------------

Value Interpreter::GetItem(const Value& object, const Value& key) {
  if (!object.is_object()) {
    Raise(types_.type_error, fmt::format("'{}' object is not subscriptable", TypeName(object)));
  }
  Object& obj = *object.object();
  auto* slice = key.as<SliceObject>();
  switch (obj.kind()) {
    case ObjectKind::kList:
    case ObjectKind::kTuple: {
      bool is_list = obj.kind() == ObjectKind::kList;
      const auto& items =
          is_list ? static_cast<ListObject&>(obj).items : static_cast<TupleObject&>(obj).items;
      if (slice != nullptr) {
        std::vector<Value> out = TakeSlice(items, ResolveSlice(*this, *slice, items.size()));
        if (!is_list) return MakeTuple(std::move(out));
        auto list = std::make_shared<ListObject>(std::move(out));
        Track(list);
        return Value(list);
      }
      if (!key.is_integral()) {
        Raise(types_.type_error, fmt::format("{} indices must be integers or slices, not {}",
                                             TypeName(object), TypeName(key)));
      }
      return items[NormalizeIndex(*this, key.integral(), items.size(), is_list ? "list" : "tuple")];
    }
    case ObjectKind::kStr: {
      const std::string& s = static_cast<StrObject&>(obj).value;
      if (slice == nullptr && !key.is_integral()) {
        Raise(types_.type_error,
              fmt::format("string indices must be integers, not '{}'", TypeName(key)));
      }
      if (IsAscii(s)) {
        if (slice == nullptr) {
          return MakeStr(
              std::string(1, s[NormalizeIndex(*this, key.integral(), s.size(), "string")]));
        }
        std::vector<char> chars(s.begin(), s.end());
        std::vector<char> out = TakeSlice(chars, ResolveSlice(*this, *slice, s.size()));
        return MakeStr(std::string(out.begin(), out.end()));
      }
      std::u32string text = DecodeUtf8(s);
      std::vector<char32_t> chars(text.begin(), text.end());
      if (slice == nullptr) {
        char32_t c = chars[NormalizeIndex(*this, key.integral(), chars.size(), "string")];
        return MakeStr(EncodeUtf8(std::u32string(1, c)));
      }
      std::vector<char32_t> out = TakeSlice(chars, ResolveSlice(*this, *slice, chars.size()));
      return MakeStr(EncodeUtf8(std::u32string(out.begin(), out.end())));
    }
    case ObjectKind::kDict: {
      auto& dict = static_cast<DictObject&>(obj);
      if (std::optional<Value> value = dict.Get(*this, key)) return *value;
      if (std::optional<Value> value = dict.Missing(*this, key)) return *value;
      Throw(NewException(types_.key_error, {key}));
    }
    case ObjectKind::kRange: {
      auto& r = static_cast<RangeObject&>(obj);
      if (slice != nullptr) {
        SliceBounds b = ResolveSlice(*this, *slice, r.size());
        return Value(std::make_shared<RangeObject>(r.start + b.start * r.step,
                                                   r.start + b.stop * r.step, r.step * b.step));
      }
      if (!key.is_integral()) {
        Raise(types_.type_error,
              fmt::format("range indices must be integers or slices, not {}", TypeName(key)));
      }
      return Value::Int(r.start +
                        NormalizeIndex(*this, key.integral(), r.size(), "range object") * r.step);
    }
    default:
      if (std::optional<Value> value = obj.GetItem(*this, key)) return *value;
      if (obj.kind() == ObjectKind::kType) {
        // `list[int]`-style annotations evaluate to the type itself.
        return object;
      }
      Raise(types_.type_error, fmt::format("'{}' object is not subscriptable", TypeName(object)));
  }
}

void Interpreter::SetItem(const Value& object, const Value& key, const Value& value) {
  if (auto* list = object.as<ListObject>()) {
    if (auto* slice = key.as<SliceObject>()) {
      std::vector<Value> replacement = ToVector(value);
      SliceBounds b = ResolveSlice(*this, *slice, list->items.size());
      if (b.step == 1) {
        int64_t stop = std::max(b.start, b.stop);
        list->items.erase(list->items.begin() + b.start, list->items.begin() + stop);
        list->items.insert(list->items.begin() + b.start, replacement.begin(), replacement.end());
        return;
      }
      if (static_cast<int64_t>(replacement.size()) != b.count) {
        Raise(types_.value_error,
              fmt::format("attempt to assign sequence of size {} to extended slice of size {}",
                          replacement.size(), b.count));
      }
      for (int64_t i = 0, j = b.start; i < b.count; ++i, j += b.step) {
        list->items[j] = replacement[i];
      }
      return;
    }
    if (!key.is_integral()) {
      Raise(types_.type_error,
            fmt::format("list indices must be integers or slices, not {}", TypeName(key)));
    }
    list->items[NormalizeIndex(*this, key.integral(), list->items.size(), "list assignment")] =
        value;
    return;
  }
  if (auto* dict = object.as<DictObject>()) {
    dict->Set(*this, key, value);
    return;
  }
  if (object.is_object() && object.object()->SetItem(*this, key, value)) return;
  Raise(types_.type_error,
        fmt::format("'{}' object does not support item assignment", TypeName(object)));
}

void Interpreter::DelItem(const Value& object, const Value& key) {
  if (auto* list = object.as<ListObject>()) {
    if (auto* slice = key.as<SliceObject>()) {
      SliceBounds b = ResolveSlice(*this, *slice, list->items.size());
      std::vector<bool> drop(list->items.size(), false);
      for (int64_t i = 0, j = b.start; i < b.count; ++i, j += b.step) drop[j] = true;
      std::vector<Value> kept;
      for (size_t i = 0; i < list->items.size(); ++i) {
        if (!drop[i]) kept.push_back(list->items[i]);
      }
      list->items = std::move(kept);
      return;
    }
    if (!key.is_integral()) {
      Raise(types_.type_error,
            fmt::format("list indices must be integers or slices, not {}", TypeName(key)));
    }
    int64_t i = NormalizeIndex(*this, key.integral(), list->items.size(), "list assignment");
    list->items.erase(list->items.begin() + i);
    return;
  }
  if (auto* dict = object.as<DictObject>()) {
    if (!dict->Remove(*this, key)) Throw(NewException(types_.key_error, {key}));
    return;
  }
  Raise(types_.type_error,
        fmt::format("'{}' object does not support item deletion", TypeName(object)));
}

// ---- length, membership, iteration ------------------------------------------------------------

int64_t Interpreter::Len(const Value& value) {
  if (value.is_object()) {
    Object& obj = *value.object();
    switch (obj.kind()) {
      case ObjectKind::kStr: {
        const std::string& s = static_cast<StrObject&>(obj).value;
        return IsAscii(s) ? static_cast<int64_t>(s.size())
                          : static_cast<int64_t>(DecodeUtf8(s).size());
      }
      case ObjectKind::kList:
        return static_cast<int64_t>(static_cast<ListObject&>(obj).items.size());
      case ObjectKind::kTuple:
        return static_cast<int64_t>(static_cast<TupleObject&>(obj).items.size());
      case ObjectKind::kDict:
        return static_cast<int64_t>(static_cast<DictObject&>(obj).size());
      case ObjectKind::kSet:
        return static_cast<int64_t>(static_cast<SetObject&>(obj).table.size());
      case ObjectKind::kRange:
        return static_cast<RangeObject&>(obj).size();
      default:
        if (std::optional<int64_t> length = obj.Len(*this)) return *length;
    }
  }
  Raise(types_.type_error, fmt::format("object of type '{}' has no len()", TypeName(value)));
}

bool Interpreter::Contains(const Value& container, const Value& item) {
  if (auto* s = container.as<StrObject>()) {
    auto* needle = item.as<StrObject>();
    if (needle == nullptr) {
      Raise(types_.type_error,
            fmt::format("'in <string>' requires string as left operand, not {}", TypeName(item)));
    }
    return s->value.find(needle->value) != std::string::npos;
  }
  if (auto* dict = container.as<DictObject>()) return dict->Contains(*this, item);
  if (auto* set = container.as<SetObject>()) return set->table.Contains(*this, item);
  if (auto* r = container.as<RangeObject>()) {
    if (!item.is_integral()) {
      bool found = false;
      ForEach(container, [&](const Value& v) {
        found = Equals(v, item);
        return !found;
      });
      return found;
    }
    int64_t v = item.integral();
    if (r->step > 0 ? (v < r->start || v >= r->stop) : (v > r->start || v <= r->stop)) {
      return false;
    }
    return (v - r->start) % r->step == 0;
  }
  if (auto* instance = container.as<InstanceObject>()) {
    if (std::optional<Value> found =
            CallOverride(*this, container, *instance->type, "__contains__", {item})) {
      return Truthy(*found);
    }
  } else if (container.is(ObjectKind::kExtension)) {
    if (std::optional<bool> found = container.object()->Contains(*this, item)) return *found;
  }
  if (TryGetIter(container) == nullptr) {
    Raise(types_.type_error,
          fmt::format("argument of type '{}' is not iterable", TypeName(container)));
  }
  bool found = false;
  ForEach(container, [&](const Value& v) {
    found = v.Identical(item) || Equals(v, item);
    return !found;
  });
  return found;
}

ObjectRef Interpreter::TryGetIter(const Value& value) {
  if (!value.is_object()) return nullptr;
  const ObjectRef& object = value.object();
  auto index_iterator = [](const char* name, auto next_at) {
    auto position = std::make_shared<size_t>(0);
    return std::make_shared<IteratorObject>(
        name, [position, next_at](Interpreter&) -> std::optional<Value> {
          return next_at((*position)++);
        });
  };
  switch (object->kind()) {
    case ObjectKind::kList: {
      auto list = std::static_pointer_cast<ListObject>(object);
      return index_iterator("list_iterator", [list](size_t i) -> std::optional<Value> {
        if (i >= list->items.size()) return std::nullopt;
        return list->items[i];
      });
    }
    case ObjectKind::kTuple: {
      auto tuple = std::static_pointer_cast<TupleObject>(object);
      return index_iterator("tuple_iterator", [tuple](size_t i) -> std::optional<Value> {
        if (i >= tuple->items.size()) return std::nullopt;
        return tuple->items[i];
      });
    }
    case ObjectKind::kStr: {
      auto chars = std::make_shared<std::vector<std::string>>();
      const std::string& s = std::static_pointer_cast<StrObject>(object)->value;
      if (IsAscii(s)) {
        for (char c : s) chars->emplace_back(1, c);
      } else {
        for (char32_t c : DecodeUtf8(s)) chars->push_back(EncodeUtf8(std::u32string(1, c)));
      }
      return index_iterator("str_iterator", [chars](size_t i) -> std::optional<Value> {
        if (i >= chars->size()) return std::nullopt;
        return MakeStr((*chars)[i]);
      });
    }
    case ObjectKind::kDict:
    case ObjectKind::kSet: {
      auto keys = std::make_shared<std::vector<Value>>();
      if (object->kind() == ObjectKind::kSet) {
        *keys = static_cast<SetObject&>(*object).Elements();
      } else {
        for (const auto& [k, v] : static_cast<DictObject&>(*object).Items()) keys->push_back(k);
      }
      return index_iterator(
          object->kind() == ObjectKind::kDict ? "dict_keyiterator" : "set_iterator",
          [keys](size_t i) -> std::optional<Value> {
            if (i >= keys->size()) return std::nullopt;
            return (*keys)[i];
          });
    }
    case ObjectKind::kRange: {
      auto r = std::static_pointer_cast<RangeObject>(object);
      int64_t size = r->size();
      return index_iterator("range_iterator", [r, size](size_t i) -> std::optional<Value> {
        if (static_cast<int64_t>(i) >= size) return std::nullopt;
        return Value::Int(r->start + static_cast<int64_t>(i) * r->step);
      });
    }
    case ObjectKind::kIterator:
      return object;
    default:
      return object->Iter(*this);
  }
}

ObjectRef Interpreter::GetIter(const Value& value) {
  if (ObjectRef iterator = TryGetIter(value)) return iterator;
  Raise(types_.type_error, fmt::format("'{}' object is not iterable", TypeName(value)));
}

std::optional<Value> Interpreter::Next(const ObjectRef& iterator) {
  return static_cast<IteratorObject&>(*iterator).Next(*this);
}

void Interpreter::ForEach(const Value& iterable, const std::function<bool(const Value&)>& fn) {
  ObjectRef iterator = GetIter(iterable);
  while (std::optional<Value> item = Next(iterator)) {
    Step();
    if (!fn(*item)) break;
  }
}

std::vector<Value> Interpreter::ToVector(const Value& iterable) {
  if (auto* list = iterable.as<ListObject>()) return list->items;
  if (auto* tuple = iterable.as<TupleObject>()) return tuple->items;
  std::vector<Value> items;
  ForEach(iterable, [&](const Value& item) {
    items.push_back(item);
    return true;
  });
  return items;
}

}  // namespace pz::eval
