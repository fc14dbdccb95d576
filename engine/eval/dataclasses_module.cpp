// The `dataclasses` module: fields from the class annotations, the generated __init__, __repr__,
// __eq__, __hash__ and ordering, frozen instances, field(), fields(), replace(), asdict() and
// astuple(). Registered by InstallClassModules (class_modules.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "eval/builtin_support.h"
#include "eval/classes_internal.h"

namespace pz::eval {
namespace {

// The per-interpreter dataclasses.FrozenInstanceError.
struct DataclassesState {
  Value frozen_error;
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

struct DataclassOptions {
  bool init = true, repr = true, eq = true, order = false, unsafe_hash = false, frozen = false,
       kw_only = false;
};

bool IsClassVar(const std::string& annotation) {
  return annotation.starts_with("ClassVar") || annotation.starts_with("typing.ClassVar");
}

TypeObject* FrozenInstanceError(Interpreter& interp) {
  DataclassesState& state = interp.State<DataclassesState>();
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
      missing.push_back(f.name);
      continue;
    } else {
      continue;
    }
    self->Store(f.name, value);
  }
  if (!missing.empty()) RaiseMissingArguments(interp, where, missing, "positional");
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

}  // namespace

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

}  // namespace pz::eval
