// The Python protocol of tracers: attributes and methods (mirroring jax.numpy), operators
// (recorded as primitives), value indexing, and the errors for Python
// constructs that need a concrete value.
#include <fmt/format.h>

#include "array/elementwise.h"
#include "kernel/trace.h"
#include "support/check.h"

namespace pz::kernel {

using eval::CallArgs;
using eval::Interpreter;
using eval::Value;

namespace {

// Records `a op b` (both already lifted) as the eager op's primitives, with its result type
// and errors.
Value EmitBinary(Trace& trace, array::BinaryOp op, ValueId a, ValueId b) {
  Interpreter& interp = trace.interp();
  std::vector<ValueId> results =
      trace.RecordComputation(fmt::format("the operator {}", array::PrimName(array::PrimOf(op))),
                              {a, b}, [&](const std::vector<array::Array>& in) {
                                return std::vector<array::Array>{eval::GuardArrayOp(
                                    interp, [&] { return array::Binary(op, in[0], in[1]); })};
                              });
  return trace.MakeTracer(results[0]);
}

// Calls `jax.numpy.<name>` (recorded through the trace's generic path).
Value CallJnp(Interpreter& interp, std::string_view name, std::vector<Value> positional,
              std::vector<std::pair<std::string, Value>> keywords = {}) {
  auto jnp = interp.FindModule("jax.numpy");
  auto it = jnp->attrs.find(std::string(name));
  PZ_CHECK(it != jnp->attrs.end());
  CallArgs args{.positional = std::move(positional),
                .keywords = std::move(keywords),
                .span = interp.current_span()};
  return interp.Call(it->second, std::move(args));
}

}  // namespace

std::string TracerObject::Repr(Interpreter& interp) const {
  const ValueType& t = type();
  std::string dims;
  for (size_t i = 0; i < t.shape.size(); ++i) dims += (i ? "," : "") + std::to_string(t.shape[i]);
  return fmt::format("Traced<{}[{}]>with<DynamicJaxprTrace>", array::DTypeName(t.dtype), dims);
}

std::optional<Value> TracerObject::GetAttr(Interpreter& interp, std::string_view name) {
  const ValueType& t = type();
  if (name == "shape") {
    std::vector<Value> dims;
    for (int64_t d : t.shape) dims.push_back(Value::Int(d));
    return eval::MakeTuple(std::move(dims));
  }
  if (name == "dtype") return Value(std::make_shared<eval::DTypeObject>(t.dtype));
  if (name == "ndim") return Value::Int(static_cast<int64_t>(t.shape.size()));
  if (name == "size") return Value::Int(array::NumElements(t.shape));
  if (name == "weak_type") return Value::Bool(t.weak);
  auto self = std::static_pointer_cast<TracerObject>(shared_from_this());
  if (name == "T") return CallJnp(interp, "transpose", {Value(self)});
  if (name == "__bool__" || name == "__index__" || name == "__int__" || name == "__float__" ||
      name == "item" || name == "tolist") {
    std::string construct = name == "__bool__"    ? "bool"
                            : name == "__index__" ? "index"
                            : name == "__int__"   ? "int()"
                            : name == "__float__" ? "float()"
                                                  : std::string(name) + "()";
    return interp.MakeBuiltin(std::string(name), [self, construct](Interpreter&, CallArgs&) {
      self->trace->RaiseConcretization(self->id, construct);
      return Value();
    });
  }
  if (name == "astype") {
    return interp.MakeBuiltin("astype", [self](Interpreter& interp, CallArgs& args) {
      auto bound = eval::BindArgs(interp, "astype", args, {"dtype"});
      array::DType dtype = eval::ToDType(interp, *bound[0]);
      Trace& trace = *self->trace;
      ValueId id = trace.Lift(Value(self), "value");
      if (trace.type(id).dtype == dtype && !trace.type(id).weak) return Value(self);
      return trace.MakeTracer(trace.Convert(id, dtype));
    });
  }
  if (name == "reshape" || name == "transpose") {
    std::string fn(name);
    return interp.MakeBuiltin(fn, [self, fn](Interpreter& interp, CallArgs& args) {
      Value arg = args.positional.size() == 1 ? args.positional[0]
                  : args.positional.empty()   ? Value()
                                              : eval::MakeTuple(args.positional);
      return CallJnp(interp, fn, {Value(self), arg}, args.keywords);
    });
  }
  static constexpr std::string_view kFunctionMethods[] = {
      "sum",     "prod",   "max",     "min",  "mean",  "any",    "all",      "argmax",
      "argmin",  "cumsum", "squeeze", "clip", "round", "repeat", "swapaxes", "dot",
      "flatten", "ravel",  "var",     "std",  "conj",  "real"};
  for (std::string_view method : kFunctionMethods) {
    if (method != name) continue;
    std::string fn(name);
    return interp.MakeBuiltin(fn, [self, fn](Interpreter& interp, CallArgs& args) {
      std::vector<Value> positional{Value(self)};
      positional.insert(positional.end(), args.positional.begin(), args.positional.end());
      return CallJnp(interp, fn, std::move(positional), args.keywords);
    });
  }
  if (name == "__abs__") {
    return interp.MakeBuiltin("__abs__", [self](Interpreter& interp, CallArgs&) {
      return CallJnp(interp, "abs", {Value(self)});
    });
  }
  if (name == "at") {
    interp.RaiseWithNotes(interp.types().not_implemented_error,
                          "`x.at[...]` updates of values are not supported inside kernels",
                          {"store into a ref instead: `o_ref[idx] = value`"});
  }
  return std::nullopt;
}

std::optional<Value> TracerObject::GetItem(Interpreter& interp, const Value& key) {
  bool dynamic = false;
  auto check = [&](const Value& k) {
    if (k.is_object() && k.object()->IsTracer()) dynamic = true;
    if (auto* slice = k.as<eval::SliceObject>()) {
      for (const Value* bound : {&slice->start, &slice->stop, &slice->step}) {
        if (bound->is_object() && bound->object()->IsTracer()) dynamic = true;
      }
    }
  };
  if (auto* tuple = key.as<eval::TupleObject>()) {
    for (const Value& k : tuple->items) check(k);
  } else {
    check(key);
  }
  if (dynamic) {
    interp.RaiseWithNotes(
        interp.types().not_implemented_error,
        "indexing a value with a traced index is not supported in TPU kernels (it is a dynamic "
        "slice of a value)",
        {"index the ref instead, where the data lives: `x_ref[i]` or `x_ref[pl.ds(start, size)]`"});
  }
  auto self = std::static_pointer_cast<TracerObject>(shared_from_this());
  CallArgs args{.positional = {Value(self), key}, .span = interp.current_span()};
  return trace->TraceArrayFunction(
      interp, "getitem",
      [](Interpreter& interp, CallArgs& a) {
        return interp.GetItem(a.positional[0], a.positional[1]);
      },
      args);
}

bool TracerObject::SetItem(Interpreter& interp, const Value& key, const Value& value) {
  interp.RaiseWithNotes(interp.types().type_error,
                        "JAX arrays are immutable and do not support in-place item assignment",
                        {"inside a kernel, store into the ref instead: `o_ref[idx] = value`"});
}

std::optional<Value> TracerObject::Binary(Interpreter& interp, lang::BinOpKind op,
                                          const Value& other, bool reflected) {
  if (other.as<RefObject>() != nullptr) return std::nullopt;
  std::optional<ValueId> other_id = trace->TryLift(other);
  if (!other_id) return std::nullopt;
  ValueId self_id = trace->Lift(Value(shared_from_this()), "operand");
  ValueId a = reflected ? *other_id : self_id;
  ValueId b = reflected ? self_id : *other_id;
  if (op == lang::BinOpKind::kMatMul) {
    return CallJnp(interp, "matmul", {trace->MakeTracer(a), trace->MakeTracer(b)});
  }
  return EmitBinary(*trace, *eval::ToBinaryOp(op), a, b);
}

std::optional<Value> TracerObject::Unary(Interpreter& interp, lang::UnaryOpKind op) {
  array::UnaryOp kernel;
  switch (op) {
    case lang::UnaryOpKind::kNeg:
      kernel = array::UnaryOp::kNeg;
      break;
    case lang::UnaryOpKind::kPos:
      kernel = array::UnaryOp::kPos;
      break;
    case lang::UnaryOpKind::kInvert:
      kernel = array::UnaryOp::kInvert;
      break;
    case lang::UnaryOpKind::kNot:
      trace->RaiseConcretization(id, "bool");
  }
  ValueId self_id = trace->Lift(Value(shared_from_this()), "operand");
  std::vector<ValueId> results = trace->RecordComputation(
      fmt::format("the operator {}", array::PrimName(array::PrimOf(kernel))), {self_id},
      [&](const std::vector<array::Array>& in) {
        return std::vector<array::Array>{
            eval::GuardArrayOp(interp, [&] { return array::Unary(kernel, in[0]); })};
      });
  return trace->MakeTracer(results[0]);
}

std::optional<Value> TracerObject::Compare(Interpreter& interp, lang::CmpOpKind op,
                                           const Value& other, bool reflected) {
  std::optional<array::BinaryOp> kernel = eval::ToCompareOp(op);
  if (!kernel || other.as<RefObject>() != nullptr) return std::nullopt;
  std::optional<ValueId> other_id = trace->TryLift(other);
  if (!other_id) {
    if (op == lang::CmpOpKind::kEq) return Value::Bool(false);
    if (op == lang::CmpOpKind::kNotEq) return Value::Bool(true);
    return std::nullopt;
  }
  ValueId self_id = trace->Lift(Value(shared_from_this()), "operand");
  return EmitBinary(*trace, *kernel, reflected ? *other_id : self_id,
                    reflected ? self_id : *other_id);
}

std::optional<bool> TracerObject::Truthy(Interpreter& interp) {
  trace->RaiseConcretization(id, "bool");
}

std::optional<int64_t> TracerObject::Len(Interpreter& interp) {
  if (type().shape.empty()) {
    interp.Raise(interp.types().type_error, "len() of unsized object");
  }
  return type().shape[0];
}

eval::ObjectRef TracerObject::Iter(Interpreter& interp) {
  if (type().shape.empty()) {
    interp.Raise(interp.types().type_error, "iteration over a 0-d array");
  }
  auto self = std::static_pointer_cast<TracerObject>(shared_from_this());
  int64_t n = type().shape[0];
  auto next = std::make_shared<int64_t>(0);
  return std::make_shared<eval::IteratorObject>(
      "iterator", [self, n, next](Interpreter& interp) -> std::optional<Value> {
        if (*next >= n) return std::nullopt;
        return self->GetItem(interp, Value::Int((*next)++));
      });
}

std::optional<std::string> TracerObject::Format(Interpreter& interp, std::string_view spec) {
  trace->RaiseConcretization(id, "format()");
}

}  // namespace pz::kernel
