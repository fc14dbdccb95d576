// Conversions between evaluator values and arrays: Python scalars and nested lists to arrays
// (JAX's dtype inference and weak types), dtype, axis and shape arguments, and the dtype objects
// `jnp.float32` & co.
#include <fmt/format.h>

#include <cmath>

#include "eval/array_object.h"
#include "eval/prng_keys.h"

namespace pz::eval {

using array::Array;
using array::DType;

Value WrapArray(Array value) { return Value(std::make_shared<ArrayObject>(std::move(value))); }

namespace {

// Flattens nested lists/tuples of numbers into `out`, recording the shape; raises ValueError for
// ragged input and TypeError for non-numbers.
void Flatten(Interpreter& interp, const Value& value, size_t depth, array::Shape& shape,
             std::vector<double>& out, DType& kind, bool& shape_fixed) {
  const std::vector<Value>* items = nullptr;
  if (auto* list = value.as<ListObject>()) items = &list->items;
  if (auto* tuple = value.as<TupleObject>()) items = &tuple->items;
  if (items != nullptr) {
    if (depth >= static_cast<size_t>(array::kMaxRank)) {
      interp.Raise(interp.types().value_error, "arrays have at most 8 dimensions");
    }
    if (!shape_fixed && shape.size() == depth) {
      shape.resize(depth + 1);
      shape[depth] = static_cast<int64_t>(items->size());
    }
    if (depth >= shape.size() || shape[depth] != static_cast<int64_t>(items->size())) {
      interp.Raise(interp.types().value_error,
                   "setting an array element with a sequence: the nested lists have different "
                   "lengths (the array would be ragged)");
    }
    if (items->empty()) shape_fixed = true;
    for (const Value& item : *items)
      Flatten(interp, item, depth + 1, shape, out, kind, shape_fixed);
    return;
  }
  if (!shape_fixed) shape_fixed = true;
  if (depth != shape.size()) {
    interp.Raise(interp.types().value_error,
                 "setting an array element with a sequence: the nested lists have different "
                 "lengths (the array would be ragged)");
  }
  if (value.is_bool()) {
    out.push_back(value.as_bool() ? 1 : 0);
  } else if (value.is_int()) {
    out.push_back(static_cast<double>(value.as_int()));
    if (kind == DType::kBool) kind = DType::kInt32;
  } else if (value.is_float()) {
    out.push_back(value.as_float());
    kind = DType::kFloat32;
  } else if (auto* arr = value.as<ArrayObject>(); arr != nullptr && arr->value.rank() == 0) {
    out.push_back(arr->value.GetDouble(0));
    kind = array::PromoteTypes(kind, arr->value.dtype());
  } else {
    interp.Raise(
        interp.types().type_error,
        fmt::format("cannot make an array from a value of type '{}'", interp.TypeName(value)));
  }
}

}  // namespace

Array ToArray(Interpreter& interp, const Value& value, std::optional<DType> dtype) {
  if (auto* arr = value.as<ArrayObject>()) {
    return dtype && *dtype != arr->value.dtype()
               ? GuardArrayOp(interp, [&] { return arr->value.AsType(*dtype); })
               : arr->value;
  }
  // Python scalars are weakly typed: `x * 2.0` keeps x's float type.
  if (value.is_bool() || value.is_int() || value.is_float()) {
    DType kind = value.is_bool() ? DType::kBool : value.is_int() ? DType::kInt32 : DType::kFloat32;
    if (value.is_int() && !dtype && (value.as_int() > INT32_MAX || value.as_int() < INT32_MIN)) {
      interp.Raise(interp.types().overflow_error,
                   fmt::format("Python int {} too large to convert to int32", value.as_int()));
    }
    Array a =
        GuardArrayOp(interp, [&] { return Array::Scalar(dtype.value_or(kind), value.number()); });
    a.set_weak_type(!dtype.has_value());
    return a;
  }
  if (value.is(ObjectKind::kList) || value.is(ObjectKind::kTuple)) {
    array::Shape shape;
    std::vector<double> values;
    DType kind = DType::kBool;
    bool shape_fixed = false;
    Flatten(interp, value, 0, shape, values, kind, shape_fixed);
    if (values.empty() && kind == DType::kBool) kind = DType::kFloat32;  // jnp.array([]) is f32
    return GuardArrayOp(interp,
                        [&] { return Array::FromDoubles(dtype.value_or(kind), shape, values); });
  }
  if (auto* key = value.as<KeyArrayObject>()) {
    interp.RaiseWithNotes(
        interp.types().type_error,
        fmt::format("a PRNG key array (dtype key<{}>) is not a numeric array", key->impl->tag),
        {"pass keys to jax.random functions; `jax.random.key_data(key)` gives its uint32 data"});
  }
  interp.Raise(interp.types().type_error,
               fmt::format("expected an array, got {}", interp.TypeName(value)));
}

DType ToDType(Interpreter& interp, const Value& value) {
  if (auto* d = value.as<DTypeObject>()) return d->dtype;
  if (auto* s = value.as<StrObject>()) {
    if (auto d = array::ParseDTypeName(s->value)) return *d;
    interp.Raise(interp.types().type_error, fmt::format("data type '{}' not understood", s->value));
  }
  if (auto* t = value.as<TypeObject>()) {
    if (t == interp.types().float_type) return DType::kFloat32;
    if (t == interp.types().int_type) return DType::kInt32;
    if (t == interp.types().bool_type) return DType::kBool;
  }
  interp.Raise(interp.types().type_error,
               fmt::format("cannot interpret {} as a data type", interp.Repr(value)));
}

std::optional<std::vector<int>> ToAxes(Interpreter& interp, const Value& value, int rank) {
  if (value.is_none()) return std::nullopt;
  std::vector<Value> items;
  if (value.is(ObjectKind::kTuple) || value.is(ObjectKind::kList)) {
    items = interp.ToVector(value);
  } else {
    items.push_back(value);
  }
  std::vector<int> axes;
  for (const Value& item : items) {
    if (!item.is_int()) {
      interp.Raise(
          interp.types().type_error,
          fmt::format("axis must be an int or a tuple of ints, got {}", interp.TypeName(item)));
    }
    int64_t axis = item.as_int();
    if (axis < -rank || axis >= rank) {
      interp.Raise(interp.types().value_error,
                   fmt::format("axis {} is out of bounds for array of dimension {}", axis, rank));
    }
    int normalized = static_cast<int>(axis < 0 ? axis + rank : axis);
    if (std::find(axes.begin(), axes.end(), normalized) != axes.end()) {
      interp.Raise(interp.types().value_error, "repeated axis");
    }
    axes.push_back(normalized);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

array::Shape ToShape(Interpreter& interp, const Value& value) {
  std::vector<Value> items;
  if (value.is(ObjectKind::kTuple) || value.is(ObjectKind::kList)) {
    items = interp.ToVector(value);
  } else {
    items.push_back(value);
  }
  array::Shape shape;
  for (const Value& item : items) {
    if (!item.is_integral()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("shape entries must be ints, got {}", interp.TypeName(item)));
    }
    shape.push_back(item.integral());
  }
  if (shape.size() > static_cast<size_t>(array::kMaxRank)) {
    interp.Raise(
        interp.types().value_error,
        fmt::format("arrays have at most {} dimensions, got {}", array::kMaxRank, shape.size()));
  }
  return shape;
}

// ---- DTypeObject -------------------------------------------------------------------------------

std::string DTypeObject::Repr(Interpreter& interp) const {
  return fmt::format("dtype('{}')", array::DTypeName(dtype));
}

std::string DTypeObject::Str(Interpreter& interp) const {
  return std::string(array::DTypeName(dtype));
}

std::optional<Value> DTypeObject::Call(Interpreter& interp, CallArgs& args) {
  auto bound = BindArgs(interp, array::DTypeName(dtype), args, {"x="});
  Value x = bound[0].value_or(Value::Int(0));
  Array a = ToArray(interp, x, dtype);
  a.set_weak_type(false);
  return WrapArray(std::move(a));
}

std::optional<Value> DTypeObject::GetAttr(Interpreter& interp, std::string_view name) {
  if (name == "name") return MakeStr(std::string(array::DTypeName(dtype)));
  if (name == "itemsize") return Value::Int(static_cast<int64_t>(array::ItemSize(dtype)));
  if (name == "dtype") return Value(shared_from_this());
  if (name == "kind") {
    if (array::IsFloating(dtype)) return MakeStr("f");
    if (array::IsBool(dtype)) return MakeStr("b");
    return MakeStr(array::IsUnsigned(dtype) ? "u" : "i");
  }
  return std::nullopt;
}

std::optional<Value> DTypeObject::Compare(Interpreter& interp, lang::CmpOpKind op,
                                          const Value& other, bool reflected) {
  if (op != lang::CmpOpKind::kEq && op != lang::CmpOpKind::kNotEq) return std::nullopt;
  bool equal = false;
  if (auto* d = other.as<DTypeObject>()) {
    equal = d->dtype == dtype;
  } else if (auto* s = other.as<StrObject>()) {
    auto parsed = array::ParseDTypeName(s->value);
    equal = parsed && *parsed == dtype;
  }
  return Value::Bool(op == lang::CmpOpKind::kEq ? equal : !equal);
}

namespace {

// Calls `visit` on every value of `args`, looking one level into lists and tuples (where
// jnp.concatenate & co. take their arrays); stops early when `visit` returns true.
bool AnyArgument(const CallArgs& args, const std::function<bool(const Value&)>& visit) {
  auto check = [&](const Value& value) {
    if (visit(value)) return true;
    const std::vector<Value>* items = nullptr;
    if (auto* list = value.as<ListObject>()) items = &list->items;
    if (auto* tuple = value.as<TupleObject>()) items = &tuple->items;
    if (items == nullptr) return false;
    for (const Value& item : *items) {
      if (visit(item)) return true;
    }
    return false;
  };
  for (const Value& value : args.positional) {
    if (check(value)) return true;
  }
  for (const auto& keyword : args.keywords) {
    if (check(keyword.second)) return true;
  }
  return false;
}

}  // namespace

void AddFunction(Interpreter& interp, std::initializer_list<ModuleObject*> modules,
                 const std::string& name, const BuiltinFunctionObject::Fn& fn) {
  for (ModuleObject* m : modules) AddFunction(interp, *m, name, fn);
}

void AddFunction(Interpreter& interp, ModuleObject& module, const std::string& name,
                 BuiltinFunctionObject::Fn fn, TraceWhen trace) {
  std::string full_name = module.name + "." + name;
  auto traced = [fn = std::move(fn), full_name, module_name = module.name, name, trace](
                    Interpreter& interp, CallArgs& args) -> Value {
    CheckArrayLike(interp, module_name, name, args);
    if (TraceHooks* hooks = interp.trace_hooks()) {
      bool has_tracer =
          AnyArgument(args, [](const Value& v) { return v.is_object() && v.object()->IsTracer(); });
      if (has_tracer || trace == TraceWhen::kAlways) {
        return hooks->TraceArrayFunction(interp, full_name, fn, args);
      }
      AnyArgument(args, [&](const Value& v) {
        if (auto* array = v.as<ArrayObject>()) hooks->CheckConstant(interp, *array);
        return false;
      });
    }
    return fn(interp, args);
  };
  module.Set(name, interp.MakeBuiltin(full_name, std::move(traced)));
}

}  // namespace pz::eval
