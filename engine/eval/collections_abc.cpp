// `collections.abc`: the abstract collection classes as real classes, for annotations
// (`Callable[[int], int]`, `Sequence[int]` subscript to the class itself, as `list[int]` does),
// for subclassing, and for isinstance()/issubclass() against builtin types: each class lists the
// builtin types and classes that CPython registers under it (list is a MutableSequence, which is
// a Sequence, which is a Collection...), and the one-method protocols (Callable, Hashable,
// Iterable, Sized, Container, Iterator) also accept any value or user class that has the method.
#include <unordered_map>

#include "eval/builtin_support.h"
#include "eval/classes_internal.h"
#include "eval/collections_module.h"

namespace pz::eval {
namespace {

// A user class that defines `name` itself or through its bases.
bool HasMethod(const Value& v, const char* name) {
  auto* instance = v.as<InstanceObject>();
  if (instance == nullptr) return false;
  std::optional<ClassAttr> attr = FindClassAttr(*instance->type, name);
  return attr && !attr->value.is_none();
}

bool IsHashable(Interpreter& interp, const Value& v) {
  if (!v.is_object()) return true;
  switch (v.object()->kind()) {
    case ObjectKind::kList:
    case ObjectKind::kDict:
    case ObjectKind::kSet:
    case ObjectKind::kSlice:
      return false;
    case ObjectKind::kExtension:
      if (auto* instance = v.as<InstanceObject>()) {
        std::optional<ClassAttr> attr = FindClassAttr(*instance->type, "__hash__");
        return !(attr && attr->value.is_none());
      }
      return v.object()->Hash(interp).has_value();
    default:
      return true;
  }
}

bool IsIterable(Interpreter& interp, const Value& v) {
  if (!v.is_object()) return false;
  switch (v.object()->kind()) {
    case ObjectKind::kStr:
    case ObjectKind::kTuple:
    case ObjectKind::kList:
    case ObjectKind::kDict:
    case ObjectKind::kSet:
    case ObjectKind::kRange:
    case ObjectKind::kIterator:
      return true;
    case ObjectKind::kExtension:
      if (v.as<InstanceObject>()) return HasMethod(v, "__iter__");
      return v.object()->Iter(interp) != nullptr;
    default:
      return false;
  }
}

struct AbcSpec {
  const char* name;
  // The classes registered under this one: collections.abc classes by name, or builtin types.
  std::vector<const char*> registered;
  bool (*instance_check)(Interpreter&, const Value&) = nullptr;
};

// The builtin types by the names AbcSpec uses for them.
const TypeObject* BuiltinType(Interpreter& interp, std::string_view name) {
  const BuiltinTypes& t = interp.types();
  if (name == "str") return t.str_type;
  if (name == "tuple") return t.tuple_type;
  if (name == "list") return t.list_type;
  if (name == "dict") return t.dict_type;
  if (name == "set") return t.set_type;
  if (name == "range") return t.range_type;
  // Extension types by their type_name(): the deque, dict views.
  return interp.ExtensionType(std::string(name));
}

}  // namespace

std::shared_ptr<ModuleObject> MakeCollectionsAbcModule(Interpreter& interp) {
  const AbcSpec specs[] = {
      {"Hashable", {}, IsHashable},
      {"Callable", {}, IsCallable},
      {"Iterable", {"Collection", "Iterator", "Reversible"}, IsIterable},
      {"Iterator",
       {"Generator"},
       [](Interpreter&, const Value& v) {
         return v.is(ObjectKind::kIterator) ||
                (HasMethod(v, "__next__") && HasMethod(v, "__iter__"));
       }},
      {"Generator", {}},
      {"Reversible",
       {"Sequence", "dict", "dict_keys", "dict_values", "dict_items"},
       [](Interpreter&, const Value& v) { return HasMethod(v, "__reversed__"); }},
      {"Sized",
       {"Collection", "MappingView"},
       [](Interpreter&, const Value& v) { return HasMethod(v, "__len__"); }},
      {"Container",
       {"Collection"},
       [](Interpreter&, const Value& v) { return HasMethod(v, "__contains__"); }},
      {"Collection", {"Sequence", "Set", "Mapping", "ValuesView"}},
      {"Sequence", {"MutableSequence", "str", "tuple", "range"}},
      {"MutableSequence", {"list", "collections.deque"}},
      {"Set", {"MutableSet", "KeysView", "ItemsView"}},
      {"MutableSet", {"set"}},
      {"Mapping", {"MutableMapping"}},
      {"MutableMapping", {"dict"}},
      {"MappingView", {"KeysView", "ItemsView", "ValuesView"}},
      {"KeysView", {"dict_keys"}},
      {"ItemsView", {"dict_items"}},
      {"ValuesView", {"dict_values"}},
      {"Awaitable", {"Coroutine"}},
      {"Coroutine", {}},
      {"AsyncIterable", {"AsyncIterator"}},
      {"AsyncIterator", {"AsyncGenerator"}},
      {"AsyncGenerator", {}},
  };
  auto module = std::make_shared<ModuleObject>("collections.abc");
  std::unordered_map<std::string_view, TypeObject*> classes;
  for (const AbcSpec& spec : specs) {
    TypeObject* type = NewUserClass(interp, spec.name, interp.types().object);
    type->user_defined = false;
    type->module = "collections.abc";
    type->extras = std::make_shared<ClassExtras>();
    if (spec.instance_check) type->extras->instance_check = spec.instance_check;
    classes[spec.name] = type;
    module->Set(spec.name, TypeValue(type));
  }
  for (const AbcSpec& spec : specs) {
    for (const char* name : spec.registered) {
      auto it = classes.find(name);
      classes[spec.name]->extras->virtual_subclasses.push_back(
          it != classes.end() ? it->second : BuiltinType(interp, name));
    }
  }
  return module;
}

}  // namespace pz::eval
