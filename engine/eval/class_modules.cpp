// The library modules built around classes: `dataclasses` (fields from the class annotations,
// the generated __init__/__repr__/__eq__/__hash__/ordering, frozen instances, field(),
// fields(), replace(), asdict(), astuple()), `enum` (Enum, IntEnum, auto, unique), NamedTuple
// classes (`typing.NamedTuple` bases, and `collections.namedtuple`, added here to the module of
// collections_module.cpp), `typing` (annotation forms that subscript and union freely, TypeVar,
// cast, ...), `abc`, `__future__`, and functools' class-related helpers (cached_property,
// wraps, lru_cache, cache).
#include <fmt/format.h>

#include <algorithm>

#include "eval/builtin_support.h"
#include "eval/classes_internal.h"
#include "eval/collections_module.h"

namespace pz::eval {
namespace {

// ---- typing forms -------------------------------------------------------------------------------

// An annotation-only object (`typing.Callable`, `Optional[int]`, a TypeVar): subscripting,
// `|` and calling it with a type give another form; it has no runtime behaviour.
class TypingFormObject final : public Object {
 public:
  explicit TypingFormObject(std::string name)
      : Object(ObjectKind::kExtension), name(std::move(name)) {}
  std::string_view type_name() const override { return "typing form"; }
  std::string Repr(Interpreter&) const override { return name; }
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override {
    std::string args;
    if (auto* tuple = key.as<TupleObject>()) {
      for (const Value& item : tuple->items) {
        args += (args.empty() ? "" : ", ") + FormName(interp, item);
      }
    } else {
      args = FormName(interp, key);
    }
    return Value(std::make_shared<TypingFormObject>(name + "[" + args + "]"));
  }
  std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                              bool reflected) override {
    if (op != lang::BinOpKind::kBitOr) return std::nullopt;
    std::string a = name, b = FormName(interp, other);
    return Value(std::make_shared<TypingFormObject>(reflected ? b + " | " + a : a + " | " + b));
  }
  std::optional<size_t> Hash(Interpreter&) override { return std::hash<std::string>{}(name); }
  std::optional<Value> GetAttr(Interpreter&, std::string_view attr) override {
    if (attr == "__name__") return MakeStr(name);
    return std::nullopt;
  }

  static std::string FormName(Interpreter& interp, const Value& v) {
    if (auto* type = v.as<TypeObject>()) return type->name;
    if (v.is_none()) return "None";
    return interp.Repr(v);
  }

  std::string name;
};

// The `typing.NamedTuple` base: a marker that is also callable in the functional form.
class NamedTupleMarker final : public Object {
 public:
  NamedTupleMarker() : Object(ObjectKind::kExtension) {}
  std::string_view type_name() const override { return "function"; }
  std::string Repr(Interpreter&) const override { return "<function NamedTuple>"; }
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override;
};

// dataclasses.field(...) before the decorator reads it, and the Field objects fields() returns.
class FieldObject final : public Object {
 public:
  explicit FieldObject(DataclassField field)
      : Object(ObjectKind::kExtension), field(std::move(field)) {}
  std::string_view type_name() const override { return "Field"; }
  std::string Repr(Interpreter& interp) const override {
    return fmt::format("Field(name={},type={})", interp.Repr(MakeStr(field.name)),
                       interp.Repr(MakeStr(field.annotation)));
  }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view attr) override;
  DataclassField field;
};

// The per-interpreter objects of the dataclasses and abc modules.
struct ClassModulesState {
  Value missing;       // dataclasses.MISSING
  Value abc;           // abc.ABC, once the module is imported
  Value frozen_error;  // dataclasses.FrozenInstanceError
};

Value Missing(Interpreter& interp) {
  ClassModulesState& state = interp.State<ClassModulesState>();
  if (state.missing.is_none()) state.missing = Value(std::make_shared<TypingFormObject>("MISSING"));
  return state.missing;
}

std::optional<Value> FieldObject::GetAttr(Interpreter& interp, std::string_view attr) {
  if (attr == "name") return MakeStr(field.name);
  if (attr == "type") return MakeStr(field.annotation);
  if (attr == "default") return field.default_value ? *field.default_value : Missing(interp);
  if (attr == "default_factory") {
    return field.default_factory ? *field.default_factory : Missing(interp);
  }
  if (attr == "init") return Value::Bool(field.init);
  if (attr == "repr") return Value::Bool(field.repr);
  if (attr == "compare") return Value::Bool(field.compare);
  if (attr == "kw_only") return Value::Bool(field.kw_only);
  if (attr == "metadata") return Value(NewDict(interp));
  return std::nullopt;
}

}  // namespace

bool IsTypingForm(const Value& value) { return value.as<TypingFormObject>() != nullptr; }

bool IsNamedTupleMarker(Interpreter&, const Value& value) {
  return value.as<NamedTupleMarker>() != nullptr;
}

bool IsMixinOnly(Interpreter& interp, const TypeObject& type) {
  const ClassModulesState* state = interp.FindState<ClassModulesState>();
  return state != nullptr && state->abc.as<TypeObject>() == &type;
}

// ---- named tuples -------------------------------------------------------------------------------

namespace {

// The annotations a class body recorded, in order: (name, source text).
std::vector<std::pair<std::string, std::string>> OwnAnnotations(Interpreter& interp,
                                                                TypeObject& type) {
  std::vector<std::pair<std::string, std::string>> out;
  auto it = type.attrs.find("__annotations__");
  if (it == type.attrs.end()) return out;
  auto* dict = it->second.as<DictObject>();
  if (dict == nullptr) return out;
  for (const auto& [key, value] : dict->Items()) {
    if (auto* name = key.as<StrObject>()) {
      auto* text = value.as<StrObject>();
      out.emplace_back(name->value, text ? text->value : interp.Repr(value));
    }
  }
  return out;
}

void EraseAttr(TypeObject& type, const std::string& name) {
  type.attrs.erase(name);
  std::erase(type.attr_order, name);
}

void AddNamedTupleMethods(Interpreter& interp, TypeObject& type) {
  auto extras = type.extras;
  std::vector<Value> names;
  for (const std::string& f : extras->tuple_fields) names.push_back(MakeStr(f));
  type.Store("_fields", MakeTuple(names));
  auto defaults = NewDict(interp);
  size_t first_default = extras->tuple_fields.size() - extras->tuple_defaults.size();
  for (size_t i = 0; i < extras->tuple_defaults.size(); ++i) {
    defaults->Set(interp, MakeStr(extras->tuple_fields[first_default + i]),
                  extras->tuple_defaults[i]);
  }
  type.Store("_field_defaults", Value(defaults));
  type.Store("_replace", NativeMethod(interp, "_replace", [](Interpreter& in, CallArgs& args) {
               auto* self =
                   args.positional.empty() ? nullptr : args.positional[0].as<TupleObject>();
               if (self == nullptr || self->type == nullptr || args.positional.size() != 1) {
                 in.Raise(in.types().type_error, "_replace() takes keyword arguments only");
               }
               const ClassExtras* e = Extras(*self->type);
               std::vector<Value> items = self->items;
               for (const auto& [name, value] : args.keywords) {
                 auto at = std::find(e->tuple_fields.begin(), e->tuple_fields.end(), name);
                 if (at == e->tuple_fields.end()) {
                   in.Raise(in.types().value_error,
                            fmt::format("Got unexpected field names: ['{}']", name));
                 }
                 items[at - e->tuple_fields.begin()] = value;
               }
               return Value(std::make_shared<TupleObject>(std::move(items), self->type));
             }));
  type.Store("_asdict", NativeMethod(interp, "_asdict", [](Interpreter& in, CallArgs& args) {
               auto* self =
                   args.positional.empty() ? nullptr : args.positional[0].as<TupleObject>();
               if (self == nullptr || self->type == nullptr) {
                 in.Raise(in.types().type_error, "_asdict() needs a named tuple");
               }
               const ClassExtras* e = Extras(*self->type);
               auto dict = NewDict(in);
               for (size_t i = 0; i < self->items.size(); ++i) {
                 dict->Set(in, MakeStr(e->tuple_fields[i]), self->items[i]);
               }
               return Value(dict);
             }));
  type.Store("_make", Value(std::make_shared<ClassMethodObject>(
                          interp.MakeBuiltin("_make", [](Interpreter& in, CallArgs& args) {
                            CheckArgCount(in, "_make", args, 2, 2);
                            auto* cls = args.positional[0].as<TypeObject>();
                            CallArgs call;
                            call.positional = in.ToVector(args.positional[1]);
                            call.span = args.span;
                            return ConstructNamedTuple(in, *cls, call);
                          }))));
}

// A named tuple class with these fields and defaults for the last ones.
Value NewNamedTupleClass(Interpreter& interp, const std::string& name,
                         std::vector<std::string> fields, std::vector<Value> defaults) {
  TypeObject* type = NewUserClass(interp, name, interp.types().tuple_type);
  type->extras = std::make_shared<ClassExtras>();
  type->extras->named_tuple = true;
  type->extras->tuple_fields = std::move(fields);
  type->extras->tuple_defaults = std::move(defaults);
  AddNamedTupleMethods(interp, *type);
  return Value(type->shared_from_this());
}

std::vector<std::string> FieldNames(Interpreter& interp, const Value& spec) {
  std::vector<std::string> names;
  if (auto* s = spec.as<StrObject>()) {
    std::string word;
    for (char c : s->value + " ") {
      if (c == ',' || c == ' ') {
        if (!word.empty()) names.push_back(word);
        word.clear();
      } else {
        word += c;
      }
    }
    return names;
  }
  for (const Value& item : interp.ToVector(spec)) {
    if (auto* s = item.as<StrObject>()) {
      names.push_back(s->value);
    } else if (auto* pair = item.as<TupleObject>(); pair && !pair->items.empty()) {
      names.push_back(interp.Str(pair->items[0]));  // typing.NamedTuple('P', [('x', int)])
    } else {
      interp.Raise(interp.types().type_error, "field names must be strings");
    }
  }
  return names;
}

}  // namespace

std::optional<Value> NamedTupleMarker::Call(Interpreter& interp, CallArgs& args) {
  if (args.positional.empty() || !args.positional[0].is(ObjectKind::kStr)) {
    interp.Raise(interp.types().type_error, "NamedTuple() needs a type name");
  }
  std::vector<std::string> fields;
  if (args.positional.size() > 1) fields = FieldNames(interp, args.positional[1]);
  for (const auto& [name, value] : args.keywords) fields.push_back(name);
  return NewNamedTupleClass(interp, args.positional[0].as<StrObject>()->value, std::move(fields),
                            {});
}

void MakeNamedTupleClass(Interpreter& interp, TypeObject& type) {
  type.extras = std::make_shared<ClassExtras>();
  type.extras->named_tuple = true;
  for (const auto& [name, annotation] : OwnAnnotations(interp, type)) {
    type.extras->tuple_fields.push_back(name);
    auto it = type.attrs.find(name);
    if (it != type.attrs.end()) {
      type.extras->tuple_defaults.push_back(it->second);
      EraseAttr(type, name);
    } else if (!type.extras->tuple_defaults.empty()) {
      interp.Raise(
          interp.types().type_error,
          fmt::format("Non-default namedtuple field {} cannot follow default field {}", name,
                      type.extras->tuple_fields[type.extras->tuple_fields.size() -
                                                type.extras->tuple_defaults.size() - 1]));
    }
  }
  AddNamedTupleMethods(interp, type);
}

Value ConstructNamedTuple(Interpreter& interp, TypeObject& type, CallArgs& args) {
  const ClassExtras& extras = *Extras(type);
  const std::vector<std::string>& fields = extras.tuple_fields;
  std::string where = type.name + ".__new__()";
  if (args.positional.size() > fields.size()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} takes {} positional arguments but {} were given", where,
                             fields.size() + 1, args.positional.size() + 1));
  }
  std::vector<std::optional<Value>> items(fields.size());
  for (size_t i = 0; i < args.positional.size(); ++i) items[i] = args.positional[i];
  for (const auto& [name, value] : args.keywords) {
    auto at = std::find(fields.begin(), fields.end(), name);
    if (at == fields.end()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("{} got an unexpected keyword argument '{}'", where, name));
    }
    size_t i = at - fields.begin();
    if (items[i]) {
      interp.Raise(interp.types().type_error,
                   fmt::format("{} got multiple values for argument '{}'", where, name));
    }
    items[i] = value;
  }
  size_t first_default = fields.size() - extras.tuple_defaults.size();
  std::vector<std::string> missing;
  std::vector<Value> out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!items[i] && i >= first_default) items[i] = extras.tuple_defaults[i - first_default];
    if (!items[i]) {
      missing.push_back("'" + fields[i] + "'");
      continue;
    }
    out.push_back(*items[i]);
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i) {
      if (i > 0)
        list += missing.size() == 2 ? " and " : (i + 1 == missing.size() ? ", and " : ", ");
      list += missing[i];
    }
    interp.Raise(interp.types().type_error,
                 fmt::format("{} missing {} required positional argument{}: {}", where,
                             missing.size(), missing.size() == 1 ? "" : "s", list));
  }
  return Value(std::make_shared<TupleObject>(std::move(out), &type));
}

// ---- enums
// ---------------------------------------------------------------------------------------

namespace {

class AutoObject final : public Object {
 public:
  AutoObject() : Object(ObjectKind::kExtension) {}
  std::string_view type_name() const override { return "auto"; }
};

bool IsDescriptorLike(const Value& v) {
  return v.is(ObjectKind::kFunction) || v.is(ObjectKind::kBuiltinFunction) ||
         v.is(ObjectKind::kType) || v.as<PropertyObject>() || v.as<ClassMethodObject>() ||
         v.as<StaticMethodObject>();
}

}  // namespace

void MakeEnumClass(Interpreter& interp, TypeObject& type, const ClassExtras& base_extras) {
  type.extras = std::make_shared<ClassExtras>();
  type.extras->enum_base = true;
  type.extras->int_enum = base_extras.int_enum;
  int64_t last = 0;
  std::vector<std::string> order = type.attr_order;
  for (const std::string& name : order) {
    if (name.empty() || name[0] == '_') continue;
    Value value = type.attrs.at(name);
    if (IsDescriptorLike(value)) continue;
    if (value.as<AutoObject>()) value = Value::Int(last + 1);
    if (value.is_integral()) last = value.integral();
    if (type.extras->int_enum && !value.is_integral()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("IntEnum member {}.{} needs an int value, not {}", type.name, name,
                               interp.TypeName(value)));
    }
    Value member;
    for (const Value& existing : type.extras->members) {
      if (interp.Equals(*existing.as<InstanceObject>()->Find("_value_"), value)) member = existing;
    }
    if (member.is_none()) {
      auto instance = std::make_shared<InstanceObject>(&type);
      instance->Store("_name_", MakeStr(name));
      instance->Store("_value_", value);
      member = Value(instance);
      type.extras->members.push_back(member);
    }
    type.Store(name, member);
  }
}

Value EnumLookup(Interpreter& interp, TypeObject& type, CallArgs& args) {
  if (args.positional.size() != 1 || !args.keywords.empty()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{}() takes one value to look a member up by", type.name));
  }
  const Value& value = args.positional[0];
  if (auto* instance = value.as<InstanceObject>(); instance && instance->type == &type) {
    return value;
  }
  if (type.extras) {
    for (const Value& member : type.extras->members) {
      if (interp.Equals(*member.as<InstanceObject>()->Find("_value_"), value)) return member;
    }
  }
  interp.Raise(interp.types().value_error,
               fmt::format("{} is not a valid {}", interp.Repr(value), type.name));
}

// ---- dataclasses
// ---------------------------------------------------------------------------------

namespace {

struct DataclassOptions {
  bool init = true, repr = true, eq = true, order = false, unsafe_hash = false, frozen = false,
       kw_only = false;
};

bool IsClassVar(const std::string& annotation) {
  return annotation.starts_with("ClassVar") || annotation.starts_with("typing.ClassVar");
}

TypeObject* FrozenInstanceError(Interpreter& interp) {
  ClassModulesState& state = interp.State<ClassModulesState>();
  if (state.frozen_error.is_none()) {
    TypeObject* type =
        interp.NewExceptionType("FrozenInstanceError", interp.types().attribute_error);
    type->module = "dataclasses";
    state.frozen_error = Value(type->shared_from_this());
  }
  return state.frozen_error.as<TypeObject>();
}

const std::vector<DataclassField>& FieldsOf(Interpreter& interp, const Value& x) {
  TypeObject* type = x.as<TypeObject>();
  if (type == nullptr) type = interp.TypeOf(x);
  const ClassExtras* extras = Extras(*type);
  if (extras == nullptr || !extras->dataclass) {
    interp.Raise(interp.types().type_error, "must be called with a dataclass type or instance");
  }
  return extras->fields;
}

std::vector<Value> CompareValues(Interpreter& interp, const Value& self) {
  std::vector<Value> values;
  for (const DataclassField& f : FieldsOf(interp, self)) {
    if (f.compare) values.push_back(interp.GetAttr(self, f.name));
  }
  return values;
}

Value DataclassInit(Interpreter& interp, CallArgs& args) {
  auto* self = args.positional.empty() ? nullptr : args.positional[0].as<InstanceObject>();
  if (self == nullptr) interp.Raise(interp.types().type_error, "__init__() needs an instance");
  Value self_value = args.positional[0];
  const std::vector<DataclassField>& fields = Extras(*self->type)->fields;
  std::string where = self->type->name + ".__init__()";
  std::vector<const DataclassField*> positional;
  for (const DataclassField& f : fields) {
    if (f.init && !f.kw_only) positional.push_back(&f);
  }
  if (args.positional.size() - 1 > positional.size()) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("{} takes {} positional argument{} but {} were given", where,
                    positional.size() + 1, positional.empty() ? "" : "s", args.positional.size()));
  }
  std::unordered_map<std::string, Value> given;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    given[positional[i - 1]->name] = args.positional[i];
  }
  for (const auto& [name, value] : args.keywords) {
    auto f = std::find_if(fields.begin(), fields.end(),
                          [&](const DataclassField& d) { return d.name == name && d.init; });
    if (f == fields.end()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("{} got an unexpected keyword argument '{}'", where, name));
    }
    if (!given.try_emplace(name, value).second) {
      interp.Raise(interp.types().type_error,
                   fmt::format("{} got multiple values for argument '{}'", where, name));
    }
  }
  std::vector<std::string> missing;
  for (const DataclassField& f : fields) {
    Value value;
    if (auto it = given.find(f.name); it != given.end() && f.init) {
      value = it->second;
    } else if (f.default_factory) {
      value = interp.Call(*f.default_factory, std::vector<Value>{});
    } else if (f.default_value) {
      value = *f.default_value;
    } else if (f.init) {
      missing.push_back("'" + f.name + "'");
      continue;
    } else {
      continue;
    }
    self->Store(f.name, value);
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i) {
      if (i > 0)
        list += missing.size() == 2 ? " and " : (i + 1 == missing.size() ? ", and " : ", ");
      list += missing[i];
    }
    interp.Raise(interp.types().type_error,
                 fmt::format("{} missing {} required positional argument{}: {}", where,
                             missing.size(), missing.size() == 1 ? "" : "s", list));
  }
  if (std::optional<ClassAttr> post = FindClassAttr(*self->type, "__post_init__")) {
    interp.Call(BindClassAttr(interp, *post, self_value, self->type, true), std::vector<Value>{});
  }
  return Value();
}

void ProcessDataclass(Interpreter& interp, TypeObject& type, const DataclassOptions& options) {
  std::vector<DataclassField> fields;
  if (type.base != nullptr) {
    if (const ClassExtras* base = Extras(*type.base); base != nullptr && base->dataclass) {
      fields = base->fields;
    }
  }
  for (const auto& [name, annotation] : OwnAnnotations(interp, type)) {
    if (IsClassVar(annotation)) continue;
    DataclassField field;
    field.name = name;
    field.annotation = annotation;
    field.kw_only = options.kw_only;
    auto it = type.attrs.find(name);
    if (it != type.attrs.end()) {
      if (auto* spec = it->second.as<FieldObject>()) {
        DataclassField given = spec->field;
        given.name = name;
        given.annotation = annotation;
        field = given;
        if (field.default_value) {
          type.Store(name, *field.default_value);
        } else {
          EraseAttr(type, name);
        }
      } else {
        const Value& d = it->second;
        if (d.is(ObjectKind::kList) || d.is(ObjectKind::kDict) || d.is(ObjectKind::kSet)) {
          interp.Raise(interp.types().value_error,
                       fmt::format("mutable default {} for field {} is not allowed: use "
                                   "default_factory",
                                   interp.Repr(Value(interp.TypeOf(d)->shared_from_this())), name));
        }
        field.default_value = d;
      }
    }
    auto same = std::find_if(fields.begin(), fields.end(),
                             [&](const DataclassField& f) { return f.name == name; });
    if (same != fields.end()) {
      *same = field;
    } else {
      fields.push_back(field);
    }
  }
  bool seen_default = false;
  for (const DataclassField& f : fields) {
    if (!f.init || f.kw_only) continue;
    bool has_default = f.default_value || f.default_factory;
    if (seen_default && !has_default) {
      interp.Raise(interp.types().type_error,
                   fmt::format("non-default argument '{}' follows default argument", f.name));
    }
    seen_default = seen_default || has_default;
  }
  auto extras = std::make_shared<ClassExtras>();
  extras->dataclass = true;
  extras->frozen = options.frozen;
  extras->fields = fields;
  if (type.extras) {
    extras->named_tuple = type.extras->named_tuple;
    extras->enum_base = type.extras->enum_base;
  }
  type.extras = extras;
  auto defines = [&](const char* name) { return type.attrs.contains(name); };

  if (options.init && !defines("__init__")) {
    type.Store("__init__", NativeMethod(interp, type.name + ".__init__", DataclassInit));
  }
  if (options.repr && !defines("__repr__")) {
    type.Store("__repr__", NativeMethod(interp, "__repr__", [](Interpreter& in, CallArgs& args) {
                 const Value& self = OneArg(in, "__repr__", args);
                 TypeObject* cls = in.TypeOf(self);
                 std::string out = (cls->qualname.empty() ? cls->name : cls->qualname) + "(";
                 bool first = true;
                 for (const DataclassField& f : FieldsOf(in, self)) {
                   if (!f.repr) continue;
                   out += (first ? "" : ", ") + f.name + "=" + in.Repr(in.GetAttr(self, f.name));
                   first = false;
                 }
                 return MakeStr(out + ")");
               }));
  }
  if (options.eq && !defines("__eq__")) {
    type.Store("__eq__", NativeMethod(interp, "__eq__", [](Interpreter& in, CallArgs& args) {
                 CheckArgCount(in, "__eq__", args, 2, 2);
                 const Value& a = args.positional[0];
                 const Value& b = args.positional[1];
                 if (in.TypeOf(a) != in.TypeOf(b)) return NotImplementedValue(in);
                 return Value::Bool(
                     in.Equals(MakeTuple(CompareValues(in, a)), MakeTuple(CompareValues(in, b))));
               }));
  }
  if (options.order) {
    const std::pair<const char*, lang::CmpOpKind> orders[] = {{"__lt__", lang::CmpOpKind::kLt},
                                                              {"__le__", lang::CmpOpKind::kLtE},
                                                              {"__gt__", lang::CmpOpKind::kGt},
                                                              {"__ge__", lang::CmpOpKind::kGtE}};
    for (const auto& [name, op] : orders) {
      lang::CmpOpKind kind = op;
      type.Store(name, NativeMethod(interp, name, [kind](Interpreter& in, CallArgs& args) {
                   CheckArgCount(in, "comparison", args, 2, 2);
                   const Value& a = args.positional[0];
                   const Value& b = args.positional[1];
                   if (in.TypeOf(a) != in.TypeOf(b)) return NotImplementedValue(in);
                   return in.Compare(kind, MakeTuple(CompareValues(in, a)),
                                     MakeTuple(CompareValues(in, b)));
                 }));
    }
  }
  bool own_hash = type.attrs.contains("__hash__") && !type.attrs.at("__hash__").is_none();
  if (options.unsafe_hash || (options.eq && options.frozen)) {
    if (!own_hash) {
      type.Store(
          "__hash__", NativeMethod(interp, "__hash__", [](Interpreter& in, CallArgs& args) {
            const Value& self = OneArg(in, "__hash__", args);
            return Value::Int(static_cast<int64_t>(in.Hash(MakeTuple(CompareValues(in, self)))));
          }));
    }
  } else if (options.eq && !own_hash) {
    type.Store("__hash__", Value());
  }
  if (options.frozen) {
    auto frozen = [](const char* what) {
      return [what](Interpreter& in, CallArgs& args) -> Value {
        std::string name = args.positional.size() > 1 ? in.Str(args.positional[1]) : "?";
        in.Raise(FrozenInstanceError(in), fmt::format("cannot {} field '{}'", what, name));
      };
    };
    type.Store("__setattr__", NativeMethod(interp, "__setattr__", frozen("assign to")));
    type.Store("__delattr__", NativeMethod(interp, "__delattr__", frozen("delete")));
  }
  auto dataclass_fields = NewDict(interp);
  for (const DataclassField& f : fields) {
    dataclass_fields->Set(interp, MakeStr(f.name), Value(std::make_shared<FieldObject>(f)));
  }
  type.Store("__dataclass_fields__", Value(dataclass_fields));
}

Value Dataclass(Interpreter& interp, CallArgs& args) {
  DataclassOptions options;
  for (const auto& [name, value] : args.keywords) {
    bool on = interp.Truthy(value);
    if (name == "init")
      options.init = on;
    else if (name == "repr")
      options.repr = on;
    else if (name == "eq")
      options.eq = on;
    else if (name == "order")
      options.order = on;
    else if (name == "unsafe_hash")
      options.unsafe_hash = on;
    else if (name == "frozen")
      options.frozen = on;
    else if (name == "kw_only")
      options.kw_only = on;
    else if (name != "slots" && name != "match_args" && name != "weakref_slot") {
      interp.Raise(interp.types().type_error,
                   fmt::format("dataclass() got an unexpected keyword argument '{}'", name));
    }
  }
  auto apply = [options](Interpreter& in, const Value& cls) {
    auto* type = cls.as<TypeObject>();
    if (type == nullptr || !type->user_defined) {
      in.Raise(in.types().type_error, "dataclass() should be applied to a class");
    }
    ProcessDataclass(in, *type, options);
    return cls;
  };
  if (!args.positional.empty()) return apply(interp, args.positional[0]);
  return interp.MakeBuiltin("dataclass", [apply](Interpreter& in, CallArgs& inner) {
    return apply(in, OneArg(in, "dataclass", inner));
  });
}

Value Field(Interpreter& interp, CallArgs& args) {
  if (!args.positional.empty()) {
    interp.Raise(interp.types().type_error, "field() takes keyword arguments only");
  }
  DataclassField field;
  for (const auto& [name, value] : args.keywords) {
    if (name == "default")
      field.default_value = value;
    else if (name == "default_factory")
      field.default_factory = value;
    else if (name == "init")
      field.init = interp.Truthy(value);
    else if (name == "repr")
      field.repr = interp.Truthy(value);
    else if (name == "compare")
      field.compare = interp.Truthy(value);
    else if (name == "kw_only")
      field.kw_only = interp.Truthy(value);
    else if (name != "hash" && name != "metadata") {
      interp.Raise(interp.types().type_error,
                   fmt::format("field() got an unexpected keyword argument '{}'", name));
    }
  }
  if (field.default_value && field.default_factory) {
    interp.Raise(interp.types().value_error, "cannot specify both default and default_factory");
  }
  return Value(std::make_shared<FieldObject>(std::move(field)));
}

bool IsDataclassValue(Interpreter& interp, const Value& x) {
  TypeObject* type = x.as<TypeObject>();
  if (type == nullptr) type = interp.TypeOf(x);
  const ClassExtras* extras = Extras(*type);
  return extras != nullptr && extras->dataclass;
}

Value AsData(Interpreter& interp, const Value& x, bool as_dict) {
  if (x.as<InstanceObject>() && IsDataclassValue(interp, x)) {
    if (as_dict) {
      auto dict = NewDict(interp);
      for (const DataclassField& f : FieldsOf(interp, x)) {
        dict->Set(interp, MakeStr(f.name), AsData(interp, interp.GetAttr(x, f.name), true));
      }
      return Value(dict);
    }
    std::vector<Value> items;
    for (const DataclassField& f : FieldsOf(interp, x)) {
      items.push_back(AsData(interp, interp.GetAttr(x, f.name), false));
    }
    return MakeTuple(std::move(items));
  }
  if (auto* list = x.as<ListObject>()) {
    std::vector<Value> items;
    for (const Value& item : list->items) items.push_back(AsData(interp, item, as_dict));
    return NewList(interp, std::move(items));
  }
  if (auto* tuple = x.as<TupleObject>()) {
    std::vector<Value> items;
    for (const Value& item : tuple->items) items.push_back(AsData(interp, item, as_dict));
    return Value(std::make_shared<TupleObject>(std::move(items), tuple->type));
  }
  if (auto* dict = x.as<DictObject>()) {
    auto out = NewDict(interp);
    for (const auto& [k, v] : dict->Items()) {
      out->Set(interp, AsData(interp, k, as_dict), AsData(interp, v, as_dict));
    }
    return Value(out);
  }
  return x;
}

std::shared_ptr<ModuleObject> MakeDataclasses(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("dataclasses");
  module->Set("dataclass", interp.MakeBuiltin("dataclass", Dataclass));
  module->Set("field", interp.MakeBuiltin("field", Field));
  module->Set("MISSING", Missing(interp));
  module->Set("FrozenInstanceError", Value(FrozenInstanceError(interp)->shared_from_this()));
  module->Set("fields", interp.MakeBuiltin("fields", [](Interpreter& in, CallArgs& args) {
    const Value& x = OneArg(in, "fields", args);
    std::vector<Value> out;
    for (const DataclassField& f : FieldsOf(in, x)) {
      out.push_back(Value(std::make_shared<FieldObject>(f)));
    }
    return MakeTuple(std::move(out));
  }));
  module->Set("is_dataclass",
              interp.MakeBuiltin("is_dataclass", [](Interpreter& in, CallArgs& args) {
                return Value::Bool(IsDataclassValue(in, OneArg(in, "is_dataclass", args)));
              }));
  module->Set("replace", interp.MakeBuiltin("replace", [](Interpreter& in, CallArgs& args) {
    if (args.positional.size() != 1) {
      in.Raise(in.types().type_error, "replace() takes one positional argument");
    }
    const Value& obj = args.positional[0];
    CallArgs call;
    call.span = args.span;
    for (const DataclassField& f : FieldsOf(in, obj)) {
      auto change = std::find_if(args.keywords.begin(), args.keywords.end(),
                                 [&](const auto& kw) { return kw.first == f.name; });
      if (!f.init) {
        if (change != args.keywords.end()) {
          in.Raise(in.types().value_error,
                   fmt::format("field {} is declared with init=False, it cannot be specified "
                               "with replace()",
                               f.name));
        }
        continue;
      }
      call.keywords.emplace_back(
          f.name, change != args.keywords.end() ? change->second : in.GetAttr(obj, f.name));
    }
    for (const auto& [name, value] : args.keywords) {
      const auto& fs = FieldsOf(in, obj);
      if (std::none_of(fs.begin(), fs.end(),
                       [&](const DataclassField& f) { return f.name == name; })) {
        in.Raise(in.types().type_error,
                 fmt::format("{}.__init__() got an unexpected keyword argument '{}'",
                             in.TypeName(obj), name));
      }
    }
    return in.Call(Value(in.TypeOf(obj)->shared_from_this()), std::move(call));
  }));
  module->Set("asdict", interp.MakeBuiltin("asdict", [](Interpreter& in, CallArgs& args) {
    const Value& x = OneArg(in, "asdict", args);
    FieldsOf(in, x);
    return AsData(in, x, true);
  }));
  module->Set("astuple", interp.MakeBuiltin("astuple", [](Interpreter& in, CallArgs& args) {
    const Value& x = OneArg(in, "astuple", args);
    FieldsOf(in, x);
    return AsData(in, x, false);
  }));
  return module;
}

// ---- typing, enum, abc, collections, __future__
// ---------------------------------------------------

std::shared_ptr<ModuleObject> MakeTyping(Interpreter& interp, const Value& named_tuple) {
  auto module = std::make_shared<ModuleObject>("typing");
  for (const char* name : {"Any",
                           "Callable",
                           "Optional",
                           "Union",
                           "Tuple",
                           "List",
                           "Dict",
                           "Set",
                           "FrozenSet",
                           "Sequence",
                           "MutableSequence",
                           "Mapping",
                           "MutableMapping",
                           "Iterable",
                           "Iterator",
                           "Generator",
                           "Type",
                           "Literal",
                           "Final",
                           "ClassVar",
                           "Protocol",
                           "Generic",
                           "Hashable",
                           "Sized",
                           "Collection",
                           "Container",
                           "Annotated",
                           "TypeAlias",
                           "Concatenate",
                           "Self",
                           "Never",
                           "NoReturn",
                           "Awaitable",
                           "Coroutine",
                           "AbstractSet",
                           "KeysView",
                           "ValuesView",
                           "ItemsView",
                           "SupportsInt",
                           "SupportsFloat",
                           "SupportsIndex",
                           "Unpack",
                           "TypeGuard",
                           "LiteralString",
                           "Required",
                           "NotRequired",
                           "DefaultDict",
                           "OrderedDict",
                           "Counter",
                           "Deque"}) {
    module->Set(name, Value(std::make_shared<TypingFormObject>(std::string("typing.") + name)));
  }
  auto form = [](Interpreter& in, CallArgs& args) {
    if (args.positional.empty() || !args.positional[0].is(ObjectKind::kStr)) {
      in.Raise(in.types().type_error, "expected a name string as the first argument");
    }
    return Value(std::make_shared<TypingFormObject>(args.positional[0].as<StrObject>()->value));
  };
  module->Set("TypeVar", interp.MakeBuiltin("TypeVar", form));
  module->Set("ParamSpec", interp.MakeBuiltin("ParamSpec", form));
  module->Set("TypeVarTuple", interp.MakeBuiltin("TypeVarTuple", form));
  module->Set("NewType", interp.MakeBuiltin("NewType", [](Interpreter& in, CallArgs& args) {
    CheckArgCount(in, "NewType", args, 2, 2);
    return in.MakeBuiltin(in.Str(args.positional[0]), [](Interpreter& inner, CallArgs& call) {
      return OneArg(inner, "NewType", call);
    });
  }));
  module->Set("cast", interp.MakeBuiltin("cast", [](Interpreter& in, CallArgs& args) {
    CheckArgCount(in, "cast", args, 2, 2);
    return args.positional[1];
  }));
  auto identity = [](Interpreter& in, CallArgs& args) { return OneArg(in, "decorator", args); };
  for (const char* name :
       {"overload", "final", "no_type_check", "runtime_checkable", "override", "type_check_only"}) {
    module->Set(name, interp.MakeBuiltin(name, identity));
  }
  module->Set("TYPE_CHECKING", Value::Bool(false));
  module->Set("NamedTuple", named_tuple);
  return module;
}

std::shared_ptr<ModuleObject> MakeEnum(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("enum");
  TypeObject* enum_type = NewUserClass(interp, "Enum", interp.types().object);
  enum_type->user_defined = false;
  enum_type->module = "enum";
  enum_type->extras = std::make_shared<ClassExtras>();
  enum_type->extras->enum_base = true;
  TypeObject* int_enum = NewUserClass(interp, "IntEnum", enum_type);
  int_enum->user_defined = false;
  int_enum->module = "enum";
  int_enum->extras = std::make_shared<ClassExtras>();
  int_enum->extras->enum_base = true;
  int_enum->extras->int_enum = true;
  module->Set("Enum", Value(enum_type->shared_from_this()));
  module->Set("IntEnum", Value(int_enum->shared_from_this()));
  module->Set("auto", interp.MakeBuiltin("auto", [](Interpreter& in, CallArgs& args) {
    CheckArgCount(in, "auto", args, 0, 0);
    return Value(std::make_shared<AutoObject>());
  }));
  module->Set("unique", interp.MakeBuiltin("unique", [](Interpreter& in, CallArgs& args) {
    return OneArg(in, "unique", args);
  }));
  return module;
}

std::shared_ptr<ModuleObject> MakeAbc(Interpreter& interp) {
  auto module = std::make_shared<ModuleObject>("abc");
  TypeObject* abc = NewUserClass(interp, "ABC", interp.types().object);
  abc->user_defined = false;
  abc->module = "abc";
  interp.State<ClassModulesState>().abc = Value(abc->shared_from_this());
  module->Set("ABC", Value(abc->shared_from_this()));
  module->Set("ABCMeta", Value(std::make_shared<TypingFormObject>("abc.ABCMeta")));
  module->Set("abstractmethod",
              interp.MakeBuiltin("abstractmethod", [](Interpreter& in, CallArgs& args) {
                return OneArg(in, "abstractmethod", args);
              }));
  return module;
}

Value NamedTupleFactory(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "namedtuple", args,
                        {"typename", "field_names", "*", "rename=", "defaults=", "module="});
  if (!bound[0]->is(ObjectKind::kStr)) {
    interp.Raise(interp.types().type_error, "namedtuple() typename must be a string");
  }
  std::vector<std::string> fields = FieldNames(interp, *bound[1]);
  std::vector<Value> defaults;
  if (bound[3] && !bound[3]->is_none()) defaults = interp.ToVector(*bound[3]);
  if (defaults.size() > fields.size()) {
    interp.Raise(interp.types().type_error, "Got more default values than field names");
  }
  return NewNamedTupleClass(interp, bound[0]->as<StrObject>()->value, std::move(fields),
                            std::move(defaults));
}

// functools.lru_cache / cache: memoises on the (hashable) arguments.
Value Memoize(Interpreter& interp, const Value& function) {
  auto cache = NewDict(interp);
  return interp.MakeBuiltin("cached", [function, cache](Interpreter& in, CallArgs& args) {
    std::vector<Value> key = args.positional;
    for (const auto& [name, value] : args.keywords) {
      key.push_back(MakeStr(name));
      key.push_back(value);
    }
    Value k = MakeTuple(std::move(key));
    if (std::optional<Value> hit = cache->Get(in, k)) return *hit;
    Value result = in.Call(function, args);
    cache->Set(in, k, result);
    return result;
  });
}

void ExtendFunctools(Interpreter& interp) {
  std::shared_ptr<ModuleObject> functools = interp.FindModule("functools");
  if (!functools) return;
  functools->Set("cached_property",
                 interp.MakeBuiltin("cached_property", [](Interpreter& in, CallArgs& args) {
                   const Value& f = OneArg(in, "cached_property", args);
                   auto property = std::make_shared<PropertyObject>();
                   property->fget = f;
                   property->cached = true;
                   if (auto* function = f.as<FunctionObject>())
                     property->name = function->code->name;
                   return Value(property);
                 }));
  functools->Set("wraps", interp.MakeBuiltin("wraps", [](Interpreter& in, CallArgs& args) {
    if (args.positional.empty()) in.Raise(in.types().type_error, "wraps() needs a function");
    Value wrapped = args.positional[0];
    return in.MakeBuiltin("wraps", [wrapped](Interpreter& inner, CallArgs& call) {
      Value wrapper = OneArg(inner, "wraps", call);
      if (auto* f = wrapper.as<FunctionObject>()) f->SetAttr(inner, "__wrapped__", wrapped);
      return wrapper;
    });
  }));
  functools->Set("cache", interp.MakeBuiltin("cache", [](Interpreter& in, CallArgs& args) {
    return Memoize(in, OneArg(in, "cache", args));
  }));
  functools->Set("lru_cache", interp.MakeBuiltin("lru_cache", [](Interpreter& in, CallArgs& args) {
    if (!args.positional.empty() && IsCallable(in, args.positional[0])) {
      return Memoize(in, args.positional[0]);
    }
    return in.MakeBuiltin("lru_cache", [](Interpreter& inner, CallArgs& call) {
      return Memoize(inner, OneArg(inner, "lru_cache", call));
    });
  }));
}

}  // namespace

void InstallClassModules(Interpreter& interp) {
  Value named_tuple(std::make_shared<NamedTupleMarker>());
  interp.RegisterModule("dataclasses", MakeDataclasses(interp));
  interp.RegisterModule("typing", MakeTyping(interp, named_tuple));
  interp.RegisterModule("enum", MakeEnum(interp));
  interp.RegisterModule("abc", MakeAbc(interp));
  std::shared_ptr<ModuleObject> collections = MakeCollectionsModule(interp);
  collections->Set("namedtuple", interp.MakeBuiltin("namedtuple", NamedTupleFactory));
  interp.RegisterModule("collections", collections);
  auto future = std::make_shared<ModuleObject>("__future__");
  for (const char* feature : {"annotations", "division", "print_function", "absolute_import"}) {
    future->Set(feature, Value::Bool(true));
  }
  interp.RegisterModule("__future__", future);
  ExtendFunctools(interp);
}

}  // namespace pz::eval
