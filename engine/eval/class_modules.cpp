// The library modules built around classes: `dataclasses` (dataclasses_module.cpp), `enum`
// (Enum, IntEnum, auto, unique), NamedTuple classes (`typing.NamedTuple` bases, and
// `collections.namedtuple`, added here to the module of collections_module.cpp), `typing`
// (annotation forms that subscript and union freely, TypeVar, cast, ...), `abc`, `__future__`,
// and functools' class-related helpers (cached_property, wraps, lru_cache, cache).
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

// The per-interpreter objects of the dataclasses and abc modules.
struct ClassModulesState {
  Value missing;  // dataclasses.MISSING
  Value abc;      // abc.ABC, once the module is imported
};

}  // namespace

Value Missing(Interpreter& interp) {
  ClassModulesState& state = interp.State<ClassModulesState>();
  if (state.missing.is_none()) state.missing = Value(std::make_shared<TypingFormObject>("MISSING"));
  return state.missing;
}

bool IsTypingForm(const Value& value) { return value.as<TypingFormObject>() != nullptr; }

bool IsNamedTupleMarker(Interpreter&, const Value& value) {
  return value.as<NamedTupleMarker>() != nullptr;
}

bool IsMixinOnly(Interpreter& interp, const TypeObject& type) {
  const ClassModulesState* state = interp.FindState<ClassModulesState>();
  return state != nullptr && state->abc.as<TypeObject>() == &type;
}

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

// ---- named tuples -------------------------------------------------------------------------------

namespace {

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
      missing.push_back(fields[i]);
      continue;
    }
    out.push_back(*items[i]);
  }
  if (!missing.empty()) RaiseMissingArguments(interp, where, missing, "positional");
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

// ---- typing, enum, abc, collections, __future__
// ---------------------------------------------------

namespace {

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
