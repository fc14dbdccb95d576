// User-defined classes: `class` statements and the objects around them. A class is a TypeObject
// with a namespace (`TypeObject::attrs`) and one base; its instances are InstanceObjects (or,
// for exception classes, ExceptionObjects; for NamedTuple classes, TupleObjects that carry the
// class). Attribute lookup follows Python's rules for a single-inheritance chain: data
// descriptors (`property`) first, then the instance's own attributes, then the class chain with
// functions bound as methods, `classmethod` bound to the class, `staticmethod` unbound, then
// `__getattr__`. Operators, `len`, `iter`, `hash`, `repr`, calls and subscripts dispatch to the
// dunder methods a class defines (the Object hooks of InstanceObject).
//
// Class-building helpers used by library modules live here too: `dataclasses.dataclass` (fields
// from the annotations, the generated `__init__`/`__repr__`/`__eq__`/`__hash__`, `frozen`),
// `enum.Enum`/`IntEnum` members and NamedTuple classes (typing and collections).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "eval/interpreter.h"
#include "eval/value.h"

namespace pz::eval {

// One field of a dataclass, in definition order (bases first).
struct DataclassField {
  std::string name;
  std::string annotation;  // the annotation's source text
  std::optional<Value> default_value;
  std::optional<Value> default_factory;
  bool init = true;
  bool repr = true;
  bool compare = true;
  bool kw_only = false;
};

// What makes a class special beyond its namespace.
struct ClassExtras {
  // dataclasses.dataclass
  bool dataclass = false;
  bool frozen = false;
  std::vector<DataclassField> fields;
  // NamedTuple classes: the field names, and the defaults of the last fields.
  bool named_tuple = false;
  std::vector<std::string> tuple_fields;
  std::vector<Value> tuple_defaults;  // aligned with the last tuple_defaults.size() fields
  // enum.Enum and its subclasses: members in definition order. `int_enum`: members are ints.
  bool enum_base = false;
  bool int_enum = false;
  std::vector<Value> members;
  // collections.abc's classes (not inherited by subclasses). `virtual_subclasses`: classes that
  // count as subclasses without deriving from this one, as ABCMeta.register makes them (list is
  // a MutableSequence, Sequence an Iterable); `instance_check`: values that are instances
  // besides (anything callable is a Callable), or nullptr.
  std::vector<const TypeObject*> virtual_subclasses;
  std::function<bool(Interpreter&, const Value&)> instance_check;
};

// issubclass(type, abc) through `abc`'s virtual subclasses (and theirs), not its base chain.
bool IsVirtualSubclass(const TypeObject& type, const TypeObject& abc);

// An instance of a user-defined class: its class and its own attributes (`__dict__`).
class InstanceObject final : public Object {
 public:
  explicit InstanceObject(TypeObject* type) : Object(ObjectKind::kExtension), type(type) {}
  std::string_view type_name() const override { return type->name; }
  std::string Repr(Interpreter& interp) const override;
  std::string Str(Interpreter& interp) const override;
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override;
  bool SetAttr(Interpreter& interp, std::string_view name, const Value& value) override;
  std::optional<Value> Call(Interpreter& interp, CallArgs& args) override;
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override;
  bool SetItem(Interpreter& interp, const Value& key, const Value& value) override;
  std::optional<Value> Binary(Interpreter& interp, lang::BinOpKind op, const Value& other,
                              bool reflected) override;
  std::optional<Value> Unary(Interpreter& interp, lang::UnaryOpKind op) override;
  std::optional<Value> Compare(Interpreter& interp, lang::CmpOpKind op, const Value& other,
                               bool reflected) override;
  std::optional<bool> Truthy(Interpreter& interp) override;
  std::optional<std::string> Format(Interpreter& interp, std::string_view spec) override;
  std::optional<int64_t> Len(Interpreter& interp) override;
  ObjectRef Iter(Interpreter& interp) override;
  std::optional<size_t> Hash(Interpreter& interp) override;
  void ClearReferences() override {
    attrs.clear();
    order.clear();
  }

  // Sets an attribute in the instance's own namespace (no `__setattr__`, no frozen check).
  void Store(const std::string& name, Value value);
  const Value* Find(const std::string& name) const {
    auto it = attrs.find(name);
    return it == attrs.end() ? nullptr : &it->second;
  }

  TypeObject* type;
  std::unordered_map<std::string, Value> attrs;
  std::vector<std::string> order;  // attribute names in first-assignment order
};

// An attribute found on a class chain and the class that holds it.
struct ClassAttr {
  Value value;
  TypeObject* owner;
};
std::optional<ClassAttr> FindClassAttr(const TypeObject& type, std::string_view name);
// The class's own override of `name`: found on the chain in a user-defined class (not a
// builtin such as `object`, whose entries are the default behaviour).
std::optional<Value> FindOverride(const TypeObject& type, std::string_view name);
// Binds a class attribute for access through `self` (an instance, or the class itself when
// `self` is the class): functions become bound methods, classmethods bind to the class,
// staticmethods unwrap, properties run their getter on an instance.
Value BindClassAttr(Interpreter& interp, const ClassAttr& attr, const Value& self, TypeObject* cls,
                    bool on_instance);
// Calls the override `name` of `self`'s class with `args`, or returns nullopt when the class
// does not define one.
std::optional<Value> CallOverride(Interpreter& interp, const Value& self, TypeObject& type,
                                  std::string_view name, std::vector<Value> args);

// Builds a class from an executed class body. `bases` are the evaluated header bases (typing
// markers such as Generic[...] among them are dropped), `namespace_order` and `names` the
// body's bindings. Applies NamedTuple/Enum handling. Returns the class.
Value MakeClass(Interpreter& interp, const std::string& name, const std::string& qualname,
                const std::vector<Value>& bases, const std::vector<std::string>& namespace_order,
                const std::unordered_map<std::string, Value>& names);

// Attribute lookup and repr of a NamedTuple instance (a TupleObject with a class).
std::optional<Value> NamedTupleAttr(Interpreter& interp, TupleObject& tuple, std::string_view name);
std::string NamedTupleRepr(Interpreter& interp, TupleObject& tuple);

// The NotImplemented singleton.
Value NotImplementedValue(Interpreter& interp);
bool IsNotImplemented(const Value& value);

// Registers `object`'s methods, `property`, `classmethod`, `staticmethod`, `super`, `vars`,
// `setattr`, `delattr`, `issubclass`, `id`, `NotImplemented` and the `dataclasses`, `enum`,
// `typing`, `abc` and `collections` modules.
void InstallClassSupport(Interpreter& interp);

}  // namespace pz::eval
