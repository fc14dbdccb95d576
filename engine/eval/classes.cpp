// User-defined classes: attribute lookup on a class chain with descriptors, class creation from
// an executed body (NamedTuple and Enum bases), user exception classes, and the builtins around
// classes (`property`, `classmethod`, `staticmethod`, `super`, `vars`, `setattr`, `delattr`,
// `issubclass`, `id`, `NotImplemented`). Instances and their dunder dispatch are in
// instance_object.cpp; dataclasses in dataclasses_module.cpp; the typing/enum/abc/collections
// modules in class_modules.cpp.
#include "eval/classes.h"

#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "eval/classes_internal.h"
#include "eval/scope.h"

namespace pz::eval {

// ---- descriptors and helper objects ------------------------------------------------------------

std::optional<Value> PropertyObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "fget") return fget;
  if (name == "fset") return fset;
  if (name == "fdel") return fdel;
  if (name == "__doc__") return doc;
  if (name == "setter" || name == "getter" || name == "deleter") {
    auto self = std::static_pointer_cast<PropertyObject>(shared_from_this());
    std::string which(name);
    return interp.MakeBuiltin(which, [self, which](Interpreter& in, CallArgs& args) {
      const Value& f = OneArg(in, which, args);
      auto copy = std::make_shared<PropertyObject>(*self);
      if (which == "setter") copy->fset = f;
      if (which == "getter") copy->fget = f;
      if (which == "deleter") copy->fdel = f;
      return Value(copy);
    });
  }
  return std::nullopt;
}

std::optional<Value> ClassMethodObject::GetAttr(Interpreter&, std::string_view name) {
  if (name == "__func__") return function;
  return std::nullopt;
}

std::optional<Value> StaticMethodObject::GetAttr(Interpreter&, std::string_view name) {
  if (name == "__func__") return function;
  return std::nullopt;
}

std::optional<Value> StaticMethodObject::Call(Interpreter& interp, CallArgs& args) {
  return interp.Call(function, std::move(args));
}

std::optional<Value> SuperObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (start->base == nullptr) return std::nullopt;
  std::optional<ClassAttr> attr = FindClassAttr(*start->base, name);
  if (!attr) return std::nullopt;
  // __new__ is a static method: `super().__new__(cls)` passes the class itself.
  if (name == "__new__") {
    if (auto* s = attr->value.as<StaticMethodObject>()) return s->function;
    return attr->value;
  }
  bool on_instance = !self.is(ObjectKind::kType);
  TypeObject* cls = on_instance ? interp.TypeOf(self) : self.as<TypeObject>();
  return BindClassAttr(interp, *attr, self, cls, on_instance);
}

std::string SuperObject::Repr(Interpreter& interp) const {
  return fmt::format("<super: <class '{}'>, <{} object>>", start->name, interp.TypeName(self));
}

// ---- lookup ------------------------------------------------------------------------------------

std::optional<ClassAttr> FindClassAttr(const TypeObject& type, std::string_view name) {
  std::string key(name);
  for (const TypeObject* t = &type; t != nullptr; t = t->base) {
    auto it = t->attrs.find(key);
    if (it != t->attrs.end()) return ClassAttr{it->second, const_cast<TypeObject*>(t)};
  }
  return std::nullopt;
}

bool IsVirtualSubclass(const TypeObject& type, const TypeObject& abc) {
  if (abc.extras == nullptr) return false;
  for (const TypeObject* registered : abc.extras->virtual_subclasses) {
    if (type.IsSubtypeOf(registered) || IsVirtualSubclass(type, *registered)) return true;
  }
  return false;
}

std::optional<Value> FindOverride(const TypeObject& type, std::string_view name) {
  std::optional<ClassAttr> attr = FindClassAttr(type, name);
  if (!attr || !attr->owner->user_defined) return std::nullopt;
  return attr->value;
}

Value BindClassAttr(Interpreter& interp, const ClassAttr& attr, const Value& self, TypeObject* cls,
                    bool on_instance) {
  const Value& v = attr.value;
  if (v.is(ObjectKind::kFunction)) {
    return on_instance ? Value(std::make_shared<BoundMethodObject>(self, v)) : v;
  }
  if (auto* builtin = v.as<BuiltinFunctionObject>(); builtin != nullptr && builtin->binds) {
    return on_instance ? Value(std::make_shared<BoundMethodObject>(self, v)) : v;
  }
  if (auto* method = v.as<ClassMethodObject>()) {
    return Value(
        std::make_shared<BoundMethodObject>(Value(cls->shared_from_this()), method->function));
  }
  if (auto* method = v.as<StaticMethodObject>()) return method->function;
  if (auto* property = v.as<PropertyObject>()) {
    if (!on_instance) return v;
    if (property->cached) {
      Value result = interp.Call(property->fget, {self});
      if (auto* instance = self.as<InstanceObject>()) instance->Store(property->name, result);
      return result;
    }
    if (property->fget.is_none()) {
      interp.Raise(interp.types().attribute_error,
                   fmt::format("property of '{}' object has no getter", interp.TypeName(self)));
    }
    return interp.Call(property->fget, {self});
  }
  return v;
}

std::optional<Value> CallOverride(Interpreter& interp, const Value& self, TypeObject& type,
                                  std::string_view name, std::vector<Value> args) {
  std::optional<ClassAttr> attr = FindClassAttr(type, name);
  if (!attr || !attr->owner->user_defined) return std::nullopt;
  if (attr->value.is_none()) return std::nullopt;
  Value bound = BindClassAttr(interp, *attr, self, &type, /*on_instance=*/true);
  return interp.Call(bound, std::move(args));
}

// ---- NotImplemented ----------------------------------------------------------------------------

namespace {

class SingletonObject final : public Object {
 public:
  explicit SingletonObject(std::string name)
      : Object(ObjectKind::kExtension), name_(std::move(name)) {}
  std::string_view type_name() const override { return name_ + "Type"; }
  std::string Repr(Interpreter&) const override { return name_; }

 private:
  std::string name_;
};

}  // namespace

namespace {
struct NotImplementedState {
  Value value;
};
}  // namespace

Value NotImplementedValue(Interpreter& interp) {
  NotImplementedState& state = interp.State<NotImplementedState>();
  if (state.value.is_none())
    state.value = Value(std::make_shared<SingletonObject>("NotImplemented"));
  return state.value;
}

bool IsNotImplemented(const Value& value) {
  auto* singleton = value.as<SingletonObject>();
  return singleton != nullptr && singleton->type_name() == "NotImplementedType";
}

// ---- classes -----------------------------------------------------------------------------------

std::string_view TypeObject::type_name() const {
  const ClassExtras* extras = Extras(*this);
  return extras != nullptr && extras->enum_base ? "EnumType" : "type";
}

std::string TypeObject::Repr(Interpreter&) const {
  if (module == "builtins") return "<class '" + name + "'>";
  return fmt::format("<class '{}.{}'>", module, qualname.empty() ? name : qualname);
}

void TypeObject::Store(const std::string& attr, Value value) {
  auto [it, inserted] = attrs.try_emplace(attr, value);
  if (inserted) {
    attr_order.push_back(attr);
  } else {
    it->second = std::move(value);
  }
}

void TypeObject::ClearReferences() {
  attrs.clear();
  attr_order.clear();
  if (extras) extras->members.clear();
  extras.reset();
}

std::optional<Value> TypeObject::GetAttr(Interpreter& interp, std::string_view attr) {
  if (attr == "__name__") return MakeStr(name);
  if (attr == "__qualname__") return MakeStr(qualname.empty() ? name : qualname);
  if (attr == "__module__") return MakeStr(module);
  if (attr == "__bases__") {
    return MakeTuple(base ? std::vector<Value>{Value(base->shared_from_this())}
                          : std::vector<Value>{});
  }
  if (attr == "__base__") return base ? Value(base->shared_from_this()) : Value();
  if (attr == "__mro__") {
    std::vector<Value> chain;
    for (TypeObject* t = this; t != nullptr; t = t->base) {
      chain.push_back(Value(t->shared_from_this()));
    }
    return MakeTuple(std::move(chain));
  }
  if (attr == "__dict__") {
    auto dict = NewDict(interp);
    for (const std::string& key : attr_order) dict->Set(interp, MakeStr(key), attrs.at(key));
    return Value(dict);
  }
  const ClassExtras* extras = Extras(*this);
  if (extras != nullptr && extras->enum_base && attr == "__members__") {
    auto dict = NewDict(interp);
    for (const Value& member : extras->members) {
      dict->Set(interp, *member.as<InstanceObject>()->Find("_name_"), member);
    }
    return Value(dict);
  }
  if (std::optional<ClassAttr> found = FindClassAttr(*this, attr)) {
    return BindClassAttr(interp, *found, Value(shared_from_this()), this, false);
  }
  if (attr == "__doc__") return Value();
  return std::nullopt;
}

bool TypeObject::SetAttr(Interpreter&, std::string_view attr, const Value& value) {
  if (!user_defined) return false;
  Store(std::string(attr), value);
  return true;
}

std::optional<Value> TypeObject::GetItem(Interpreter& interp, const Value& key) {
  if (extras == nullptr || !extras->enum_base) return std::nullopt;
  for (const Value& member : extras->members) {
    if (interp.Equals(*member.as<InstanceObject>()->Find("_name_"), key)) return member;
  }
  interp.Throw(interp.NewException(interp.types().key_error, {key}));
}

std::optional<int64_t> TypeObject::Len(Interpreter&) {
  if (extras == nullptr || !extras->enum_base) return std::nullopt;
  return static_cast<int64_t>(extras->members.size());
}

ObjectRef TypeObject::Iter(Interpreter&) {
  if (extras == nullptr || !extras->enum_base) return nullptr;
  auto members = std::make_shared<std::vector<Value>>(extras->members);
  auto position = std::make_shared<size_t>(0);
  return std::make_shared<IteratorObject>(
      "iterator", [members, position](Interpreter&) -> std::optional<Value> {
        if (*position >= members->size()) return std::nullopt;
        return (*members)[(*position)++];
      });
}

// ---- named tuples and exceptions ----------------------------------------------------------------

std::string_view TupleObject::type_name() const {
  // Both branches as views: `type ? type->name : "tuple"` would make a temporary std::string.
  return type ? std::string_view(type->name) : std::string_view("tuple");
}

std::optional<Value> NamedTupleAttr(Interpreter& interp, TupleObject& tuple,
                                    std::string_view name) {
  const ClassExtras* extras = Extras(*tuple.type);
  if (extras != nullptr) {
    for (size_t i = 0; i < extras->tuple_fields.size() && i < tuple.items.size(); ++i) {
      if (extras->tuple_fields[i] == name) return tuple.items[i];
    }
  }
  if (name == "__class__") return Value(tuple.type->shared_from_this());
  if (std::optional<ClassAttr> attr = FindClassAttr(*tuple.type, name)) {
    if (attr->owner->user_defined) {
      return BindClassAttr(interp, *attr, Value(tuple.shared_from_this()), tuple.type, true);
    }
  }
  return std::nullopt;
}

std::string NamedTupleRepr(Interpreter& interp, TupleObject& tuple) {
  Value self(tuple.shared_from_this());
  if (auto r = CallOverride(interp, self, *tuple.type, "__repr__", {})) {
    if (auto* s = r->as<StrObject>()) return s->value;
  }
  const ClassExtras* extras = Extras(*tuple.type);
  std::string out = tuple.type->name + "(";
  for (size_t i = 0; i < tuple.items.size(); ++i) {
    if (i > 0) out += ", ";
    if (extras != nullptr && i < extras->tuple_fields.size()) {
      out += extras->tuple_fields[i] + "=";
    }
    out += interp.Repr(tuple.items[i]);
  }
  return out + ")";
}

std::string ExceptionObject::Repr(Interpreter& interp) const {
  Value self(const_cast<ExceptionObject*>(this)->shared_from_this());
  if (auto r = CallOverride(interp, self, *type, "__repr__", {})) {
    if (auto* s = r->as<StrObject>()) return s->value;
  }
  std::string out = type->name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    out += interp.Repr(args[i]);
  }
  return out + ")";
}

std::string ExceptionObject::Str(Interpreter& interp) const {
  Value self(const_cast<ExceptionObject*>(this)->shared_from_this());
  if (auto r = CallOverride(interp, self, *type, "__str__", {})) {
    if (auto* s = r->as<StrObject>()) return s->value;
  }
  if (args.empty()) return "";
  if (args.size() == 1) {
    // KeyError shows the key's repr, like CPython.
    if (type->name == "KeyError") return interp.Repr(args[0]);
    return interp.Str(args[0]);
  }
  return interp.Repr(MakeTuple(args));
}

std::optional<Value> ExceptionObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "args") return MakeTuple(args);
  if (name == "__class__") return Value(type->shared_from_this());
  if (auto it = attrs.find(std::string(name)); it != attrs.end()) return it->second;
  if (std::optional<ClassAttr> attr = FindClassAttr(*type, name)) {
    return BindClassAttr(interp, *attr, Value(shared_from_this()), type, true);
  }
  return std::nullopt;
}

bool ExceptionObject::SetAttr(Interpreter& interp, std::string_view name, const Value& value) {
  if (name == "args") {
    args = interp.ToVector(value);
    return true;
  }
  attrs[std::string(name)] = value;
  return true;
}

// ---- construction ------------------------------------------------------------------------------

namespace {

Value ConstructInstance(Interpreter& interp, TypeObject& type, CallArgs& args) {
  const ClassExtras* extras = Extras(type);
  if (extras != nullptr && extras->enum_base) return EnumLookup(interp, type, args);
  if (extras != nullptr && extras->named_tuple) return ConstructNamedTuple(interp, type, args);
  Value cls(type.shared_from_this());
  if (type.IsSubtypeOf(interp.types().base_exception)) {
    auto exception = interp.NewException(&type, args.positional);
    if (auto init = FindClassAttr(type, "__init__"); init && init->owner->user_defined) {
      interp.Call(BindClassAttr(interp, *init, Value(exception), &type, true), args);
    } else if (!args.keywords.empty()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("{}() takes no keyword arguments", type.name));
    }
    return Value(exception);
  }
  Value instance;
  if (auto make = FindOverride(type, "__new__")) {
    Value function =
        make->as<StaticMethodObject>() ? make->as<StaticMethodObject>()->function : *make;
    CallArgs new_args = args;
    new_args.positional.insert(new_args.positional.begin(), cls);
    instance = interp.Call(function, std::move(new_args));
    if (!interp.IsInstance(instance, &type)) return instance;
  } else {
    auto object = std::make_shared<InstanceObject>(&type);
    interp.Track(object);
    instance = Value(object);
  }
  std::optional<ClassAttr> init = FindClassAttr(type, "__init__");
  if (init && init->owner->user_defined) {
    Value result = interp.Call(BindClassAttr(interp, *init, instance, &type, true), args);
    if (!result.is_none()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("__init__() should return None, not '{}'", interp.TypeName(result)));
    }
  } else if (!FindOverride(type, "__new__") &&
             (!args.positional.empty() || !args.keywords.empty())) {
    interp.Raise(interp.types().type_error, fmt::format("{}() takes no arguments", type.name));
  }
  return instance;
}

void SetDefiningClass(const Value& value, TypeObject* type) {
  Value function = value;
  if (auto* m = value.as<ClassMethodObject>()) function = m->function;
  if (auto* m = value.as<StaticMethodObject>()) function = m->function;
  if (auto* p = value.as<PropertyObject>()) {
    SetDefiningClass(p->fget, type);
    SetDefiningClass(p->fset, type);
    return;
  }
  if (auto* f = function.as<FunctionObject>(); f != nullptr && f->defining_class == nullptr) {
    f->defining_class = type;
  }
}

}  // namespace

TypeObject* NewUserClass(Interpreter& interp, std::string name, TypeObject* base) {
  auto type = std::make_shared<TypeObject>(std::move(name), base, ConstructInstance);
  type->user_defined = true;
  type->module = "__main__";
  return interp.AdoptType(type);
}

Value MakeClass(Interpreter& interp, const std::string& name, const std::string& qualname,
                const std::vector<Value>& bases, const std::vector<std::string>& namespace_order,
                const std::unordered_map<std::string, Value>& names) {
  TypeObject* base = nullptr;
  bool named_tuple = false;
  for (const Value& candidate : bases) {
    if (IsNamedTupleMarker(interp, candidate)) {
      named_tuple = true;
      continue;
    }
    if (IsTypingForm(candidate)) continue;  // Generic[T], Protocol: no runtime behaviour here
    auto* type = candidate.as<TypeObject>();
    if (type == nullptr) {
      interp.Raise(interp.types().type_error,
                   fmt::format("a base of class '{}' must be a class, not {}", name,
                               interp.TypeName(candidate)));
    }
    if (type == interp.types().object || IsMixinOnly(interp, *type)) {
      if (base == nullptr && type != interp.types().object) base = type;
      continue;
    }
    if (base != nullptr && !IsMixinOnly(interp, *base)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("class '{}' has the bases '{}' and '{}': this engine supports one "
                               "base class (single inheritance)",
                               name, base->name, type->name));
    }
    base = type;
  }
  if (named_tuple) base = interp.types().tuple_type;
  if (base == nullptr) base = interp.types().object;
  if (base == interp.types().tuple_type && !named_tuple) {
    interp.Raise(interp.types().type_error,
                 fmt::format("class '{}': subclassing tuple directly is not supported; use "
                             "typing.NamedTuple",
                             name));
  }
  TypeObject* type = NewUserClass(interp, name, base);
  type->qualname = qualname;
  if (auto it = names.find("__module__"); it != names.end() && it->second.is(ObjectKind::kStr)) {
    type->module = it->second.as<StrObject>()->value;
  }
  for (const std::string& key : namespace_order) {
    if (key == "__module__" || key == "__qualname__") continue;
    auto it = names.find(key);
    if (it == names.end()) continue;  // deleted in the body
    type->Store(key, it->second);
    SetDefiningClass(it->second, type);
  }
  if (type->attrs.contains("__eq__") && !type->attrs.contains("__hash__")) {
    type->Store("__hash__", Value());
  }
  if (named_tuple) {
    MakeNamedTupleClass(interp, *type);
  } else if (const ClassExtras* extras = Extras(*base); extras != nullptr && extras->enum_base) {
    MakeEnumClass(interp, *type, *extras);
  }
  return Value(type->shared_from_this());
}

// ---- builtins ----------------------------------------------------------------------------------

namespace {

Value Super(Interpreter& interp, CallArgs& args) {
  if (args.positional.size() == 2) {
    auto* type = args.positional[0].as<TypeObject>();
    if (type == nullptr) {
      interp.Raise(interp.types().type_error, "super() argument 1 must be a type");
    }
    return Value(std::make_shared<SuperObject>(type, args.positional[1]));
  }
  if (!args.positional.empty() || !args.keywords.empty()) {
    interp.Raise(interp.types().type_error, "super() takes 0 or 2 arguments");
  }
  auto [function, locals] = interp.CurrentFunction();
  if (function == nullptr || function->defining_class == nullptr) {
    interp.Raise(interp.types().runtime_error, "super(): __class__ cell not found");
  }
  const lang::Params* params = function->code->params;
  if (params == nullptr || params->params.empty() ||
      params->params[0].kind == lang::ParamKind::kVarArgs ||
      params->params[0].kind == lang::ParamKind::kVarKwargs) {
    interp.Raise(interp.types().runtime_error, "super(): no arguments");
  }
  const Value* self = locals->Find(params->params[0].name);
  if (self == nullptr) interp.Raise(interp.types().runtime_error, "super(): arg[0] deleted");
  return Value(std::make_shared<SuperObject>(function->defining_class, *self));
}

Value MakeProperty(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, "property", args, {"fget=", "fset=", "fdel=", "doc="});
  auto property = std::make_shared<PropertyObject>();
  if (bound[0]) property->fget = *bound[0];
  if (bound[1]) property->fset = *bound[1];
  if (bound[2]) property->fdel = *bound[2];
  if (bound[3]) property->doc = *bound[3];
  return Value(property);
}

Value Vars(Interpreter& interp, CallArgs& args) {
  const Value& x = OneArg(interp, "vars", args);
  if (x.is(ObjectKind::kModule)) {
    auto dict = NewDict(interp);
    for (const auto& [key, value] : x.as<ModuleObject>()->Names())
      dict->Set(interp, MakeStr(key), value);
    return Value(dict);
  }
  if (x.as<InstanceObject>() || x.is(ObjectKind::kType)) return interp.GetAttr(x, "__dict__");
  interp.Raise(interp.types().type_error, "vars() argument must have __dict__ attribute");
}

// dir(module): the module's names, sorted (CPython's list also holds its import machinery's
// dunders, `__loader__`, `__spec__`, ...; these modules have none).
Value Dir(Interpreter& interp, CallArgs& args) {
  const Value& x = OneArg(interp, "dir", args);
  auto* module = x.as<ModuleObject>();
  if (module == nullptr) {
    interp.Raise(interp.types().type_error,
                 fmt::format("dir() of `{}` objects is not supported; `dir` lists the names of "
                             "modules only (use `vars(obj)` for an instance's attributes)",
                             interp.TypeName(x)));
  }
  std::vector<std::string> names;
  for (const auto& [key, value] : module->Names()) names.push_back(key);
  if (!module->Names().contains("__name__")) names.push_back("__name__");
  std::sort(names.begin(), names.end());
  std::vector<Value> items;
  for (std::string& name : names) items.push_back(MakeStr(std::move(name)));
  return MakeList(std::move(items));
}

Value IsSubclass(Interpreter& interp, CallArgs& args) {
  CheckArgCount(interp, "issubclass", args, 2, 2);
  auto* type = args.positional[0].as<TypeObject>();
  if (type == nullptr)
    interp.Raise(interp.types().type_error, "issubclass() arg 1 must be a class");
  std::function<bool(const Value&)> check = [&](const Value& info) {
    if (auto* base = info.as<TypeObject>()) {
      return type->IsSubtypeOf(base) || IsVirtualSubclass(*type, *base);
    }
    if (auto* tuple = info.as<TupleObject>()) {
      for (const Value& item : tuple->items) {
        if (check(item)) return true;
      }
      return false;
    }
    interp.Raise(interp.types().type_error,
                 "issubclass() arg 2 must be a class, a tuple of classes, or a union");
  };
  return Value::Bool(check(args.positional[1]));
}

Value Method(Interpreter& interp, std::string name, BuiltinFunctionObject::Fn fn) {
  Value method = interp.MakeBuiltin(std::move(name), std::move(fn));
  method.as<BuiltinFunctionObject>()->binds = true;
  return method;
}

}  // namespace

Value NativeMethod(Interpreter& interp, std::string name, BuiltinFunctionObject::Fn fn) {
  return Method(interp, std::move(name), std::move(fn));
}

void InstallClassSupport(Interpreter& interp) {
  TypeObject& object = *interp.types().object;
  object.Store("__init__",
               Method(interp, "object.__init__", [](Interpreter&, CallArgs&) { return Value(); }));
  object.Store("__new__",
               Value(std::make_shared<StaticMethodObject>(
                   interp.MakeBuiltin("object.__new__", [](Interpreter& in, CallArgs& args) {
                     auto* type =
                         args.positional.empty() ? nullptr : args.positional[0].as<TypeObject>();
                     if (type == nullptr || !type->user_defined) {
                       in.Raise(in.types().type_error, "object.__new__(X): X is not a class");
                     }
                     auto instance = std::make_shared<InstanceObject>(type);
                     in.Track(instance);
                     return Value(instance);
                   }))));
  object.Store("__setattr__",
               Method(interp, "object.__setattr__", [](Interpreter& in, CallArgs& args) {
                 CheckArgCount(in, "__setattr__", args, 3, 3);
                 auto* name = args.positional[1].as<StrObject>();
                 if (name == nullptr) {
                   in.Raise(in.types().type_error, "attribute name must be string");
                 }
                 if (auto* instance = args.positional[0].as<InstanceObject>()) {
                   instance->Store(name->value, args.positional[2]);
                 } else {
                   in.SetAttr(args.positional[0], name->value, args.positional[2]);
                 }
                 return Value();
               }));
  object.Store("__getattribute__",
               Method(interp, "object.__getattribute__", [](Interpreter& in, CallArgs& args) {
                 CheckArgCount(in, "__getattribute__", args, 2, 2);
                 auto* name = args.positional[1].as<StrObject>();
                 if (name == nullptr) {
                   in.Raise(in.types().type_error, "attribute name must be string");
                 }
                 return in.GetAttr(args.positional[0], name->value);
               }));
  object.Store("__repr__", Method(interp, "object.__repr__", [](Interpreter& in, CallArgs& args) {
                 const Value& self = OneArg(in, "__repr__", args);
                 return MakeStr(DefaultRepr(*self.object(), *in.TypeOf(self)));
               }));
  object.Store("__str__", Method(interp, "object.__str__", [](Interpreter& in, CallArgs& args) {
                 return MakeStr(in.Repr(OneArg(in, "__str__", args)));
               }));
  object.Store("__eq__", Method(interp, "object.__eq__", [](Interpreter& in, CallArgs& args) {
                 CheckArgCount(in, "__eq__", args, 2, 2);
                 if (args.positional[0].Identical(args.positional[1])) return Value::Bool(true);
                 return NotImplementedValue(in);
               }));
  object.Store("__hash__", Method(interp, "object.__hash__", [](Interpreter& in, CallArgs& args) {
                 const Value& self = OneArg(in, "__hash__", args);
                 return Value::Int(static_cast<int64_t>(
                     std::hash<const void*>{}(self.is_object() ? self.object().get() : nullptr)));
               }));
  TypeObject& exception = *interp.types().base_exception;
  exception.Store(
      "__init__", Method(interp, "BaseException.__init__", [](Interpreter& in, CallArgs& args) {
        auto* self = args.positional.empty() ? nullptr : args.positional[0].as<ExceptionObject>();
        if (self == nullptr) {
          in.Raise(in.types().type_error,
                   "descriptor '__init__' requires a 'BaseException' object");
        }
        self->args.assign(args.positional.begin() + 1, args.positional.end());
        return Value();
      }));
  exception.Store("with_traceback",
                  Method(interp, "with_traceback", [](Interpreter& in, CallArgs& args) {
                    CheckArgCount(in, "with_traceback", args, 2, 2);
                    return args.positional[0];
                  }));
  exception.Store("add_note", Method(interp, "add_note", [](Interpreter& in, CallArgs& args) {
                    CheckArgCount(in, "add_note", args, 2, 2);
                    auto* self = args.positional[0].as<ExceptionObject>();
                    if (self != nullptr) self->notes.push_back(in.Str(args.positional[1]));
                    return Value();
                  }));

  auto& builtins = interp.builtins();
  builtins["super"] = interp.MakeBuiltin("super", Super);
  builtins["property"] = interp.MakeBuiltin("property", MakeProperty);
  builtins["classmethod"] = interp.MakeBuiltin("classmethod", [](Interpreter& in, CallArgs& args) {
    return Value(std::make_shared<ClassMethodObject>(OneArg(in, "classmethod", args)));
  });
  builtins["staticmethod"] =
      interp.MakeBuiltin("staticmethod", [](Interpreter& in, CallArgs& args) {
        return Value(std::make_shared<StaticMethodObject>(OneArg(in, "staticmethod", args)));
      });
  builtins["vars"] = interp.MakeBuiltin("vars", Vars);
  builtins["dir"] = interp.MakeBuiltin("dir", Dir);
  builtins["issubclass"] = interp.MakeBuiltin("issubclass", IsSubclass);
  builtins["setattr"] = interp.MakeBuiltin("setattr", [](Interpreter& in, CallArgs& args) {
    CheckArgCount(in, "setattr", args, 3, 3);
    auto* name = args.positional[1].as<StrObject>();
    if (name == nullptr) in.Raise(in.types().type_error, "attribute name must be string");
    in.SetAttr(args.positional[0], name->value, args.positional[2]);
    return Value();
  });
  builtins["delattr"] = interp.MakeBuiltin("delattr", [](Interpreter& in, CallArgs& args) {
    CheckArgCount(in, "delattr", args, 2, 2);
    auto* name = args.positional[1].as<StrObject>();
    if (name == nullptr) in.Raise(in.types().type_error, "attribute name must be string");
    auto* instance = args.positional[0].as<InstanceObject>();
    if (instance == nullptr || instance->attrs.erase(name->value) == 0) {
      in.Raise(in.types().attribute_error,
               fmt::format("'{}' object has no attribute '{}'", in.TypeName(args.positional[0]),
                           name->value));
    }
    std::erase(instance->order, name->value);
    return Value();
  });
  builtins["id"] = interp.MakeBuiltin("id", [](Interpreter& in, CallArgs& args) {
    const Value& x = OneArg(in, "id", args);
    if (x.is_object()) {
      return Value::Int(static_cast<int64_t>(reinterpret_cast<uintptr_t>(x.object().get())));
    }
    return Value::Int(static_cast<int64_t>(in.Hash(x)));
  });
  builtins["NotImplemented"] = NotImplementedValue(interp);
  InstallClassModules(interp);
}

}  // namespace pz::eval
