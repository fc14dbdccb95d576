// Instances of user-defined classes: their attributes (instance dict, class chain, descriptors)
// and the dunder methods that operators, calls, indexing, iteration, formatting and hashing
// dispatch to.
#include <fmt/format.h>

#include "eval/builtin_support.h"
#include "eval/classes.h"
#include "eval/classes_internal.h"

namespace pz::eval {

namespace {

const char* BinaryName(lang::BinOpKind op, bool reflected) {
  using lang::BinOpKind;
  switch (op) {
    case BinOpKind::kAdd:
      return reflected ? "__radd__" : "__add__";
    case BinOpKind::kSub:
      return reflected ? "__rsub__" : "__sub__";
    case BinOpKind::kMul:
      return reflected ? "__rmul__" : "__mul__";
    case BinOpKind::kMatMul:
      return reflected ? "__rmatmul__" : "__matmul__";
    case BinOpKind::kDiv:
      return reflected ? "__rtruediv__" : "__truediv__";
    case BinOpKind::kFloorDiv:
      return reflected ? "__rfloordiv__" : "__floordiv__";
    case BinOpKind::kMod:
      return reflected ? "__rmod__" : "__mod__";
    case BinOpKind::kPow:
      return reflected ? "__rpow__" : "__pow__";
    case BinOpKind::kLShift:
      return reflected ? "__rlshift__" : "__lshift__";
    case BinOpKind::kRShift:
      return reflected ? "__rrshift__" : "__rshift__";
    case BinOpKind::kBitOr:
      return reflected ? "__ror__" : "__or__";
    case BinOpKind::kBitXor:
      return reflected ? "__rxor__" : "__xor__";
    case BinOpKind::kBitAnd:
      return reflected ? "__rand__" : "__and__";
  }
  return "";
}

// `other OP self` is `self SWAP(OP) other`.
lang::CmpOpKind Swapped(lang::CmpOpKind op) {
  using lang::CmpOpKind;
  switch (op) {
    case CmpOpKind::kLt:
      return CmpOpKind::kGt;
    case CmpOpKind::kLtE:
      return CmpOpKind::kGtE;
    case CmpOpKind::kGt:
      return CmpOpKind::kLt;
    case CmpOpKind::kGtE:
      return CmpOpKind::kLtE;
    default:
      return op;
  }
}

const char* CompareName(lang::CmpOpKind op) {
  using lang::CmpOpKind;
  switch (op) {
    case CmpOpKind::kEq:
      return "__eq__";
    case CmpOpKind::kNotEq:
      return "__ne__";
    case CmpOpKind::kLt:
      return "__lt__";
    case CmpOpKind::kLtE:
      return "__le__";
    case CmpOpKind::kGt:
      return "__gt__";
    case CmpOpKind::kGtE:
      return "__ge__";
    default:
      return "";
  }
}

}  // namespace

std::string DefaultRepr(const Object& object, const TypeObject& type) {
  return fmt::format("<{}.{} object at {}>", type.module,
                     type.qualname.empty() ? type.name : type.qualname,
                     static_cast<const void*>(&object));
}

const ClassExtras* Extras(const TypeObject& type) {
  for (const TypeObject* t = &type; t != nullptr; t = t->base) {
    if (t->extras) return t->extras.get();
  }
  return nullptr;
}

bool IsIntEnumMember(const InstanceObject& instance) {
  const ClassExtras* extras = Extras(*instance.type);
  return extras != nullptr && extras->int_enum && instance.Find("_value_") != nullptr;
}

bool IsEnumMember(const InstanceObject& instance) {
  const ClassExtras* extras = Extras(*instance.type);
  return extras != nullptr && extras->enum_base && instance.Find("_name_") != nullptr;
}

void InstanceObject::Store(const std::string& name, Value value) {
  auto [it, inserted] = attrs.try_emplace(name, value);
  if (inserted) {
    order.push_back(name);
  } else {
    it->second = std::move(value);
  }
}

std::string InstanceObject::Repr(Interpreter& interp) const {
  Value self(const_cast<InstanceObject*>(this)->shared_from_this());
  if (auto r = CallOverride(interp, self, *type, "__repr__", {})) {
    if (!r->is(ObjectKind::kStr)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("__repr__ returned non-string (type {})", interp.TypeName(*r)));
    }
    return r->as<StrObject>()->value;
  }
  if (IsEnumMember(*this)) {
    return fmt::format("<{}.{}: {}>", type->name, interp.Str(*Find("_name_")),
                       interp.Repr(*Find("_value_")));
  }
  return DefaultRepr(*this, *type);
}

std::string InstanceObject::Str(Interpreter& interp) const {
  Value self(const_cast<InstanceObject*>(this)->shared_from_this());
  if (auto r = CallOverride(interp, self, *type, "__str__", {})) {
    if (!r->is(ObjectKind::kStr)) {
      interp.Raise(interp.types().type_error,
                   fmt::format("__str__ returned non-string (type {})", interp.TypeName(*r)));
    }
    return r->as<StrObject>()->value;
  }
  if (IsIntEnumMember(*this)) return interp.Str(*Find("_value_"));
  if (IsEnumMember(*this) && !FindOverride(*type, "__repr__")) {
    return fmt::format("{}.{}", type->name, interp.Str(*Find("_name_")));
  }
  return Repr(interp);
}

std::optional<Value> InstanceObject::GetAttr(Interpreter& interp, std::string_view name) {
  Value self(shared_from_this());
  if (name == "__class__") return Value(type->shared_from_this());
  if (name == "__dict__") {
    auto dict = NewDict(interp);
    for (const std::string& key : order) dict->Set(interp, MakeStr(key), attrs.at(key));
    return Value(dict);
  }
  std::optional<ClassAttr> attr = FindClassAttr(*type, name);
  if (attr) {
    // A property is a data descriptor: it wins over the instance's own attributes.
    auto* property = attr->value.as<PropertyObject>();
    if (property != nullptr && !property->cached) {
      return BindClassAttr(interp, *attr, self, type, true);
    }
  }
  if (const Value* own = Find(std::string(name))) return *own;
  if (attr) return BindClassAttr(interp, *attr, self, type, true);
  if (IsEnumMember(*this)) {
    if (name == "name") return *Find("_name_");
    if (name == "value") return *Find("_value_");
  }
  if (auto getattr = FindClassAttr(*type, "__getattr__"); getattr && getattr->owner->user_defined) {
    Value bound = BindClassAttr(interp, *getattr, self, type, true);
    return interp.Call(bound, {MakeStr(std::string(name))});
  }
  return std::nullopt;
}

bool InstanceObject::SetAttr(Interpreter& interp, std::string_view name, const Value& value) {
  Value self(shared_from_this());
  if (CallOverride(interp, self, *type, "__setattr__", {MakeStr(std::string(name)), value})) {
    return true;
  }
  if (std::optional<ClassAttr> attr = FindClassAttr(*type, name)) {
    if (auto* property = attr->value.as<PropertyObject>(); property && !property->cached) {
      if (property->fset.is_none()) {
        interp.Raise(interp.types().attribute_error,
                     fmt::format("property '{}' of '{}' object has no setter", name, type->name));
      }
      interp.Call(property->fset, {self, value});
      return true;
    }
  }
  Store(std::string(name), value);
  return true;
}

std::optional<Value> InstanceObject::Call(Interpreter& interp, CallArgs& args) {
  std::optional<ClassAttr> attr = FindClassAttr(*type, "__call__");
  if (!attr || !attr->owner->user_defined) return std::nullopt;
  return interp.Call(BindClassAttr(interp, *attr, Value(shared_from_this()), type, true),
                     std::move(args));
}

std::optional<Value> InstanceObject::GetItem(Interpreter& interp, const Value& key) {
  return CallOverride(interp, Value(shared_from_this()), *type, "__getitem__", {key});
}

bool InstanceObject::SetItem(Interpreter& interp, const Value& key, const Value& value) {
  return CallOverride(interp, Value(shared_from_this()), *type, "__setitem__", {key, value})
      .has_value();
}

std::optional<Value> InstanceObject::Binary(Interpreter& interp, lang::BinOpKind op,
                                            const Value& other, bool reflected) {
  Value self(shared_from_this());
  if (auto r = CallOverride(interp, self, *type, BinaryName(op, reflected), {other})) {
    if (!IsNotImplemented(*r)) return r;
    return std::nullopt;
  }
  if (IsIntEnumMember(*this)) {
    const Value& value = *Find("_value_");
    return reflected ? interp.BinaryOp(op, other, value) : interp.BinaryOp(op, value, other);
  }
  return std::nullopt;
}

std::optional<Value> InstanceObject::Unary(Interpreter& interp, lang::UnaryOpKind op) {
  const char* name = op == lang::UnaryOpKind::kNeg      ? "__neg__"
                     : op == lang::UnaryOpKind::kPos    ? "__pos__"
                     : op == lang::UnaryOpKind::kInvert ? "__invert__"
                                                        : "";
  if (auto r = CallOverride(interp, Value(shared_from_this()), *type, name, {})) return r;
  if (IsIntEnumMember(*this)) return interp.UnaryOp(op, *Find("_value_"));
  return std::nullopt;
}

std::optional<Value> InstanceObject::Compare(Interpreter& interp, lang::CmpOpKind op,
                                             const Value& other, bool reflected) {
  Value self(shared_from_this());
  lang::CmpOpKind mine = reflected ? Swapped(op) : op;
  if (auto r = CallOverride(interp, self, *type, CompareName(mine), {other})) {
    if (!IsNotImplemented(*r)) return r;
  } else if (mine == lang::CmpOpKind::kNotEq) {
    if (auto eq = CallOverride(interp, self, *type, "__eq__", {other})) {
      if (!IsNotImplemented(*eq)) return Value::Bool(!interp.Truthy(*eq));
    }
  }
  if (IsIntEnumMember(*this)) {
    const Value& value = *Find("_value_");
    Value rhs = other;
    if (auto* o = other.as<InstanceObject>(); o != nullptr && IsIntEnumMember(*o)) {
      rhs = *o->Find("_value_");
    }
    return reflected ? interp.Compare(op, rhs, value) : interp.Compare(op, value, rhs);
  }
  return std::nullopt;
}

std::optional<bool> InstanceObject::Truthy(Interpreter& interp) {
  if (auto r = CallOverride(interp, Value(shared_from_this()), *type, "__bool__", {})) {
    if (!r->is_bool()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("__bool__ should return bool, returned {}", interp.TypeName(*r)));
    }
    return r->as_bool();
  }
  if (IsIntEnumMember(*this)) return interp.Truthy(*Find("_value_"));
  return std::nullopt;
}

std::optional<std::string> InstanceObject::Format(Interpreter& interp, std::string_view spec) {
  Value self(shared_from_this());
  if (auto r = CallOverride(interp, self, *type, "__format__", {MakeStr(std::string(spec))})) {
    if (!r->is(ObjectKind::kStr)) {
      interp.Raise(interp.types().type_error, "__format__ must return a str");
    }
    return r->as<StrObject>()->value;
  }
  if (IsIntEnumMember(*this)) return interp.Format(*Find("_value_"), spec);
  return std::nullopt;
}

std::optional<int64_t> InstanceObject::Len(Interpreter& interp) {
  auto r = CallOverride(interp, Value(shared_from_this()), *type, "__len__", {});
  if (!r) return std::nullopt;
  if (!r->is_integral()) {
    interp.Raise(
        interp.types().type_error,
        fmt::format("'{}' object cannot be interpreted as an integer", interp.TypeName(*r)));
  }
  if (r->integral() < 0) interp.Raise(interp.types().value_error, "__len__() should return >= 0");
  return r->integral();
}

ObjectRef InstanceObject::Iter(Interpreter& interp) {
  auto r = CallOverride(interp, Value(shared_from_this()), *type, "__iter__", {});
  if (!r) {
    // The old protocol: __getitem__ with 0, 1, 2, ... until IndexError.
    if (!FindOverride(*type, "__getitem__")) return nullptr;
    auto self = shared_from_this();
    auto index = std::make_shared<int64_t>(0);
    return std::make_shared<IteratorObject>(
        "iterator", [self, index](Interpreter& in) -> std::optional<Value> {
          try {
            return in.GetItem(Value(self), Value::Int((*index)++));
          } catch (const PyError& error) {
            if (error.exception->type->IsSubtypeOf(in.types().index_error)) return std::nullopt;
            throw;
          }
        });
  }
  if (r->is(ObjectKind::kIterator)) return r->object();
  Value iterator = *r;
  if (!interp.TryGetAttr(iterator, "__next__")) {
    if (ObjectRef inner = interp.TryGetIter(iterator)) return inner;
    interp.Raise(interp.types().type_error, fmt::format("iter() returned non-iterator of type '{}'",
                                                        interp.TypeName(iterator)));
  }
  return std::make_shared<IteratorObject>(
      "iterator", [iterator](Interpreter& in) -> std::optional<Value> {
        try {
          return in.Call(in.GetAttr(iterator, "__next__"), std::vector<Value>{});
        } catch (const PyError& error) {
          if (error.exception->type->IsSubtypeOf(in.types().stop_iteration)) return std::nullopt;
          throw;
        }
      });
}

std::optional<size_t> InstanceObject::Hash(Interpreter& interp) {
  std::optional<ClassAttr> attr = FindClassAttr(*type, "__hash__");
  if (attr && attr->value.is_none()) return std::nullopt;  // unhashable
  if (attr && attr->owner->user_defined) {
    Value r = interp.Call(BindClassAttr(interp, *attr, Value(shared_from_this()), type, true),
                          std::vector<Value>{});
    if (!r.is_integral()) {
      interp.Raise(interp.types().type_error, "__hash__ method should return an integer");
    }
    return static_cast<size_t>(r.integral());
  }
  if (IsIntEnumMember(*this)) return interp.Hash(*Find("_value_"));
  return std::hash<const void*>{}(this);
}

}  // namespace pz::eval
