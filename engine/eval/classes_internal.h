// Private to eval/'s class support (classes.cpp, class_modules.cpp): the descriptor objects and
// the helpers the class-building modules share.
#pragma once

#include <memory>
#include <string>

#include "eval/classes.h"

namespace pz::eval {

// property(fget, fset, fdel, doc); `cached` for functools.cached_property, which stores its
// value in the instance under `name` on first access.
class PropertyObject final : public Object {
 public:
  PropertyObject() : Object(ObjectKind::kExtension) {}
  PropertyObject(const PropertyObject& other)
      : Object(ObjectKind::kExtension),
        fget(other.fget),
        fset(other.fset),
        fdel(other.fdel),
        doc(other.doc),
        cached(other.cached),
        name(other.name) {}
  std::string_view type_name() const override { return cached ? "cached_property" : "property"; }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  void ClearReferences() override { fget = fset = fdel = doc = Value(); }
  Value fget, fset, fdel, doc;
  bool cached = false;
  std::string name;
};

class ClassMethodObject final : public Object {
 public:
  explicit ClassMethodObject(Value function)
      : Object(ObjectKind::kExtension), function(std::move(function)) {}
  std::string_view type_name() const override { return "classmethod"; }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  void ClearReferences() override { function = Value(); }
  Value function;
};

class StaticMethodObject final : public Object {
 public:
  explicit StaticMethodObject(Value function)
      : Object(ObjectKind::kExtension), function(std::move(function)) {}
  std::string_view type_name() const override { return "staticmethod"; }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override;
  void ClearReferences() override { function = Value(); }
  Value function;
};

// super(): attribute lookup that starts after `start` on the chain of `self`'s class.
class SuperObject final : public Object {
 public:
  SuperObject(TypeObject* start, Value self)
      : Object(ObjectKind::kExtension), start(start), self(std::move(self)) {}
  std::string_view type_name() const override { return "super"; }
  std::string Repr(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  void ClearReferences() override { self = Value(); }
  TypeObject* start;
  Value self;
};

// The nearest extras on the class chain, or nullptr.
const ClassExtras* Extras(const TypeObject& type);
// `<module.Name object at 0x...>`, object.__repr__.
std::string DefaultRepr(const Object& object, const TypeObject& type);
bool IsEnumMember(const InstanceObject& instance);
bool IsIntEnumMember(const InstanceObject& instance);
// A new class made by the engine (namedtuple(), a `class` statement), owned by the interpreter.
TypeObject* NewUserClass(Interpreter& interp, std::string name, TypeObject* base);
// A builtin function that binds to the instance when found on a class.
Value NativeMethod(Interpreter& interp, std::string name, BuiltinFunctionObject::Fn fn);

// class_modules.cpp
bool IsNamedTupleMarker(Interpreter& interp, const Value& value);
bool IsTypingForm(const Value& value);
// abc.ABC and the like: a base that adds nothing and may sit beside the real base.
bool IsMixinOnly(Interpreter& interp, const TypeObject& type);
void MakeNamedTupleClass(Interpreter& interp, TypeObject& type);
void MakeEnumClass(Interpreter& interp, TypeObject& type, const ClassExtras& base_extras);
Value EnumLookup(Interpreter& interp, TypeObject& type, CallArgs& args);
Value ConstructNamedTuple(Interpreter& interp, TypeObject& type, CallArgs& args);
void InstallClassModules(Interpreter& interp);
// dataclasses.MISSING.
Value Missing(Interpreter& interp);
// The annotations a class body recorded, in order: (name, source text).
std::vector<std::pair<std::string, std::string>> OwnAnnotations(Interpreter& interp,
                                                                TypeObject& type);
// Removes a class attribute and its place in the attribute order.
void EraseAttr(TypeObject& type, const std::string& name);

// dataclasses_module.cpp
std::shared_ptr<ModuleObject> MakeDataclasses(Interpreter& interp);

}  // namespace pz::eval
