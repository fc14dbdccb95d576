// The Python protocol of arrays: attributes and methods, indexing (and the immutable-array error
// for item assignment), `x.at[...]` updates, operators, truthiness, iteration and formatting.
#include "eval/array_object.h"

#include "array/prims.h"

#include <fmt/format.h>

#include <atomic>

#include "array/elementwise.h"
#include "array/indexing.h"
#include "array/print.h"
#include "array/reduce.h"
#include "array/shape_ops.h"
#include "eval/format.h"

namespace pz::eval {

namespace {
std::atomic<uint64_t> array_serial{0};
}  // namespace

uint64_t ArrayObject::NextSerial() { return array_serial.fetch_add(1) + 1; }
uint64_t ArrayObject::CurrentSerial() { return array_serial.load(); }

using array::Array;

std::string AvalString(const Array& a) {
  std::string dims;
  for (size_t i = 0; i < a.shape().size(); ++i) {
    dims += fmt::format("{}{}", i ? "," : "", a.shape()[i]);
  }
  return fmt::format("{}[{}]", array::DTypeName(a.dtype()), dims);
}

// Converts a Python subscript (int, slice, None, ..., array, list, or a tuple of them) to indices.
// A list as the whole subscript is numpy's fancy indexing, which JAX refuses (`numpy` false).
std::vector<array::Index> ToIndices(Interpreter& interp, const Value& key, bool numpy) {
  if (!numpy && key.as<ListObject>() != nullptr) {
    interp.RaiseWithNotes(interp.types().type_error,
                          "Using a non-tuple sequence for multidimensional indexing is not "
                          "allowed; use `arr[array(seq)]` instead of `arr[seq]`.",
                          {"index with an array (`x[jnp.array(rows)]`) or a tuple (`x[i, j]`)"});
  }
  std::vector<Value> items;
  if (auto* tuple = key.as<TupleObject>()) {
    items = tuple->items;
  } else {
    items.push_back(key);
  }
  std::vector<array::Index> index;
  for (const Value& item : items) {
    array::Index i;
    if (item.is_int()) {
      i.kind = array::Index::Kind::kInt;
      i.value = item.as_int();
    } else if (item.is_none()) {
      i.kind = array::Index::Kind::kNewAxis;
    } else if (item.is(ObjectKind::kEllipsis)) {
      i.kind = array::Index::Kind::kEllipsis;
    } else if (auto* slice = item.as<SliceObject>()) {
      i.kind = array::Index::Kind::kSlice;
      auto bound = [&](const Value& v) -> std::optional<int64_t> {
        if (v.is_none()) return std::nullopt;
        if (v.is_integral()) return v.integral();
        if (auto* a = v.as<ArrayObject>();
            a && a->value.rank() == 0 && array::IsInteger(a->value.dtype())) {
          return a->value.GetInt(0);
        }
        interp.Raise(interp.types().type_error,
                     "slice indices must be integers or None; traced or float bounds are not "
                     "allowed");
      };
      i.start = bound(slice->start);
      i.stop = bound(slice->stop);
      i.step = bound(slice->step);
    } else if (item.is(ObjectKind::kList) || item.is(ObjectKind::kExtension)) {
      i.kind = array::Index::Kind::kArray;
      i.array = ToArray(interp, item);
      if (i.array.rank() == 0 && array::IsInteger(i.array.dtype())) {
        i.kind = array::Index::Kind::kInt;
        i.value = i.array.GetInt(0);
      }
    } else {
      interp.Raise(interp.types().type_error,
                   fmt::format("indexer must be an int, slice, None, Ellipsis or an integer or "
                               "boolean array, got {}",
                               interp.TypeName(item)));
    }
    index.push_back(std::move(i));
  }
  return index;
}

namespace {

// JAX's `mode=` of `.at[...]` (nullopt when not given): "clip", "fill", "drop" and
// "promise_in_bounds" (which on a CPU reads clamped and drops updates).
std::optional<array::IndexMode> ReadIndexMode(Interpreter& interp, const std::optional<Value>& mode,
                                              bool update) {
  if (!mode || mode->is_none()) return std::nullopt;
  std::string name = interp.Str(*mode);
  if (name == "clip") return array::IndexMode::kClip;
  if (name == "fill" || name == "drop") {
    return update ? array::IndexMode::kDrop : array::IndexMode::kFill;
  }
  if (name == "promise_in_bounds") {
    return update ? array::IndexMode::kDrop : array::IndexMode::kClip;
  }
  interp.Raise(interp.types().value_error,
               fmt::format("{} is not a valid GatherScatterMode", interp.Repr(*mode)));
}

// The value JAX reads out of bounds in mode="fill" by default: NaN for floats, the least
// signed integer, the greatest unsigned one, True.
double DefaultFillValue(DType dtype) {
  if (array::IsFloating(dtype)) return std::numeric_limits<double>::quiet_NaN();
  if (array::IsBool(dtype)) return 1;
  if (array::IsUnsigned(dtype))
    return std::ldexp(1.0, static_cast<int>(array::ItemSize(dtype) * 8)) - 1;
  return -std::ldexp(1.0, static_cast<int>(array::ItemSize(dtype) * 8) - 1);
}

}  // namespace

Array IndexWithWarning(Interpreter& interp, const Array& array,
                       const std::vector<array::Index>& index, std::optional<array::IndexMode> mode,
                       double fill) {
  int64_t affected = 0;
  Array out = GuardArrayOp(interp, [&] {
    return array::GetIndexed(array, index, mode.value_or(array::IndexMode::kClip), fill, &affected);
  });
  if (affected > 0 && !mode) {
    interp.Warn(fmt::format("this index reads out of bounds of a {} array; JAX clamps it into "
                            "range (the last element along that axis), and so does this run",
                            array::ShapeToString(array.shape())),
                {"jax.numpy indexing does not raise IndexError as numpy does: check the range "
                 "of the index, or say what you mean with `.at[i].get(mode=\"fill\")`"});
  }
  return out;
}

namespace {

// `x.at[idx]`: an object whose methods return updated copies of x.
class AtIndexObject final : public Object {
 public:
  AtIndexObject(Array array, Value key)
      : Object(ObjectKind::kExtension), array_(std::move(array)), key_(std::move(key)) {}
  std::string_view type_name() const override { return "_IndexUpdateRef"; }
  std::optional<Value> GetAttr(Interpreter& interp, std::string_view name) override {
    std::optional<array::UpdateOp> op;
    if (name == "set") op = array::UpdateOp::kSet;
    if (name == "add") op = array::UpdateOp::kAdd;
    if (name == "multiply" || name == "mul") op = array::UpdateOp::kMultiply;
    if (name == "min") op = array::UpdateOp::kMin;
    if (name == "max") op = array::UpdateOp::kMax;
    Array array = array_;
    Value key = key_;
    if (name == "get") {
      return interp.MakeBuiltin("get", [array, key](Interpreter& interp, CallArgs& args) {
        auto bound =
            BindArgs(interp, "at[...].get", args,
                     {"*", "indices_are_sorted=", "unique_indices=", "mode=", "fill_value="});
        std::vector<array::Index> index = ToIndices(interp, key);
        std::optional<array::IndexMode> mode = ReadIndexMode(interp, bound[2], false);
        double fill = DefaultFillValue(array.dtype());
        if (bound[3] && !bound[3]->is_none()) fill = ToArray(interp, *bound[3]).GetDouble(0);
        return WrapArray(IndexWithWarning(interp, array, index, mode, fill));
      });
    }
    if (!op) return std::nullopt;
    array::UpdateOp update = *op;
    return interp.MakeBuiltin(std::string(name), [array, key, update](Interpreter& interp,
                                                                      CallArgs& args) {
      auto bound = BindArgs(interp, "at[...] update", args,
                            {"values", "*", "indices_are_sorted=", "unique_indices=", "mode="});
      Array values = ToArray(interp, *bound[0]);
      std::vector<array::Index> index = ToIndices(interp, key);
      std::optional<array::IndexMode> mode = ReadIndexMode(interp, bound[3], true);
      int64_t affected = 0;
      Value result = WrapArray(GuardArrayOp(interp, [&] {
        return array::UpdateIndexed(array, index, values, update,
                                    mode.value_or(array::IndexMode::kDrop), &affected);
      }));
      if (affected > 0 && !mode) {
        interp.Warn(fmt::format("this `.at[...]` update addresses elements out of bounds of a {} "
                                "array; JAX drops those updates silently, and so does this run",
                                array::ShapeToString(array.shape())),
                    {"an index past the end (or before -size) does not wrap or clamp in an update: "
                     "check the range of the index if the update was meant to land"});
      }
      return result;
    });
  }

 private:
  Array array_;
  Value key_;
};

class AtObject final : public Object {
 public:
  explicit AtObject(Array array) : Object(ObjectKind::kExtension), array_(std::move(array)) {}
  std::string_view type_name() const override { return "_IndexUpdateHelper"; }
  std::optional<Value> GetItem(Interpreter& interp, const Value& key) override {
    return Value(std::make_shared<AtIndexObject>(array_, key));
  }

 private:
  Array array_;
};

// A 0-d array (or, for `item()`, any size-1 array) as a Python scalar; a TypeError naming the
// shape otherwise.
Value ToScalar(Interpreter& interp, const Array& a, const char* what) {
  if (a.rank() > 0 && !(std::string_view(what) == "item()" && a.size() == 1)) {
    interp.Raise(interp.types().type_error,
                 fmt::format("only scalar arrays can be converted to Python scalars; got an "
                             "array of shape {} in `{}`",
                             array::ShapeToString(a.shape()), what));
  }
  double v = a.GetDouble(0);
  if (array::IsBool(a.dtype())) return Value::Bool(v != 0);
  if (array::IsInteger(a.dtype())) return Value::Int(static_cast<int64_t>(v));
  return Value::Float(v);
}

}  // namespace

std::string ArrayObject::Repr(Interpreter& interp) const {
  return array::FormatArray(value,
                            numpy ? array::PrintStyle::kNumpyRepr : array::PrintStyle::kJaxRepr);
}

std::string ArrayObject::Str(Interpreter& interp) const {
  return array::FormatArray(value, array::PrintStyle::kStr);
}

std::optional<Value> ArrayObject::GetAttr(Interpreter& interp, std::string_view name) {
  const Array& a = value;
  if (name == "shape") {
    std::vector<Value> dims;
    for (int64_t d : a.shape()) dims.push_back(Value::Int(d));
    return MakeTuple(std::move(dims));
  }
  if (name == "dtype") return Value(std::make_shared<DTypeObject>(a.dtype()));
  if (name == "ndim") return Value::Int(a.rank());
  if (name == "size") return Value::Int(a.size());
  if (name == "itemsize") return Value::Int(static_cast<int64_t>(array::ItemSize(a.dtype())));
  if (name == "weak_type") return Value::Bool(a.weak_type());
  if (name == "block_until_ready") {
    // Arrays here are always computed eagerly: waiting is a no-op that returns the array.
    Value self_value(shared_from_this());
    return interp.MakeBuiltin("block_until_ready",
                              [self_value](Interpreter&, CallArgs&) { return self_value; });
  }
  if (name == "T") return WrapArray(GuardArrayOp(interp, [&] { return array::Transpose(a, {}); }));
  if (name == "at") return Value(std::make_shared<AtObject>(a));
  Array self = a;
  if (name == "__float__" || name == "__int__" || name == "__index__" || name == "__bool__" ||
      name == "item") {
    std::string hook(name);
    return interp.MakeBuiltin(hook, [self, hook](Interpreter& interp, CallArgs& args) {
      if (hook == "item" && self.size() != 1) {
        interp.Raise(interp.types().value_error,
                     "can only convert an array of size 1 to a Python scalar");
      }
      if (hook == "__float__") {
        // float() of a value being differentiated would drop its derivative: JAX's error.
        array::PrimRecorder* recorder = array::detail::ActiveRecorder();
        if (recorder != nullptr && recorder->Follows(self)) {
          TypeObject* type = interp.types().type_error;
          if (std::shared_ptr<ModuleObject> errors = interp.FindModule("jax.errors")) {
            auto it = errors->attrs.find("ConcretizationTypeError");
            if (it != errors->attrs.end() && it->second.as<TypeObject>() != nullptr) {
              type = it->second.as<TypeObject>();
            }
          }
          interp.Raise(type, fmt::format("Abstract tracer value encountered where concrete value "
                                         "is expected: traced array with shape {}\nThe problem "
                                         "arose with the `float` function. If trying to convert "
                                         "the data type of a value, try using `x.astype(float)` "
                                         "or `jnp.array(x, float)` instead.\n\nSee "
                                         "https://docs.jax.dev/en/latest/errors.html"
                                         "#jax.errors.ConcretizationTypeError",
                                         AvalString(self)));
        }
      }
      Value scalar = ToScalar(interp, self, hook == "item" ? "item()" : hook.c_str());
      if (hook == "__float__") return Value::Float(scalar.number());
      if (hook == "__int__") return Value::Int(static_cast<int64_t>(scalar.number()));
      if (hook == "__index__") {
        if (!array::IsInteger(self.dtype()) && !array::IsBool(self.dtype())) {
          interp.Raise(interp.types().type_error,
                       fmt::format("only integer arrays can be used as an index, got {}",
                                   array::DTypeName(self.dtype())));
        }
        return Value::Int(scalar.integral());
      }
      if (hook == "__bool__") return Value::Bool(interp.Truthy(scalar));
      return scalar;
    });
  }
  if (name == "tolist") {
    return interp.MakeBuiltin("tolist", [self](Interpreter& interp, CallArgs& args) {
      std::function<Value(int, int64_t)> build = [&](int axis, int64_t base) -> Value {
        if (axis == self.rank()) {
          Array one = self.Contiguous();
          return ToScalar(interp, Array::Scalar(self.dtype(), one.GetDouble(base)), "tolist");
        }
        std::vector<Value> items;
        int64_t stride = 1;
        for (int k = axis + 1; k < self.rank(); ++k) stride *= self.shape()[k];
        for (int64_t i = 0; i < self.shape()[axis]; ++i)
          items.push_back(build(axis + 1, base + i * stride));
        return MakeList(std::move(items));
      };
      return build(0, 0);
    });
  }
  if (name == "tobytes") {
    return interp.MakeBuiltin("tobytes", [self](Interpreter& interp, CallArgs& args) {
      return ArrayToBytesMethod(interp, self, args);
    });
  }
  if (name == "astype") {
    return interp.MakeBuiltin("astype", [self](Interpreter& interp, CallArgs& args) {
      auto bound = BindArgs(interp, "astype", args, {"dtype"});
      array::DType dtype = ToDType(interp, *bound[0]);
      return WrapArray(GuardArrayOp(interp, [&] { return self.AsType(dtype); }));
    });
  }
  if (name == "reshape") {
    return interp.MakeBuiltin("reshape", [self](Interpreter& interp, CallArgs& args) {
      Value shape = args.positional.size() == 1 ? args.positional[0] : MakeTuple(args.positional);
      array::Shape target = ToShape(interp, shape);
      return WrapArray(GuardArrayOp(interp, [&] { return array::Reshape(self, target); }));
    });
  }
  // Methods that mirror jax.numpy functions: `x.sum(axis=0)` is `jnp.sum(x, axis=0)`.
  static constexpr std::string_view kFunctionMethods[] = {
      "sum",    "prod",    "max",       "min",     "mean", "any",      "all",    "argmax",
      "argmin", "cumsum",  "transpose", "squeeze", "clip", "round",    "repeat", "swapaxes",
      "dot",    "flatten", "ravel",     "var",     "std",  "diagonal", "trace",
  };
  if (name == "__abs__") {  // the builtin abs(x)
    bool is_numpy = numpy;
    return interp.MakeBuiltin("__abs__", [self, is_numpy](Interpreter& interp, CallArgs& args) {
      return Value(std::make_shared<ArrayObject>(
          GuardArrayOp(interp, [&] { return array::Unary(array::UnaryOp::kAbs, self); }),
          is_numpy));
    });
  }
  for (std::string_view method : kFunctionMethods) {
    if (name != method) continue;
    std::shared_ptr<ModuleObject> jnp = interp.FindModule("jax.numpy");
    std::string function(name == "flatten" ? "ravel" : name);
    if (function == "transpose") {
      // `x.transpose(1, 0)` takes the axes as separate arguments too.
      return interp.MakeBuiltin("transpose", [self, jnp](Interpreter& interp, CallArgs& args) {
        CallArgs call;
        call.positional.push_back(WrapArray(self));
        if (args.positional.size() > 1) {
          call.positional.push_back(MakeTuple(args.positional));
        } else if (args.positional.size() == 1) {
          call.positional.push_back(args.positional[0]);
        }
        call.keywords = args.keywords;
        return interp.Call(jnp->attrs.at("transpose"), std::move(call));
      });
    }
    auto it = jnp->attrs.find(function);
    if (it == jnp->attrs.end()) return std::nullopt;
    return Value(std::make_shared<BoundMethodObject>(WrapArray(self), it->second));
  }
  return std::nullopt;
}

bool ArrayObject::SetAttr(Interpreter& interp, std::string_view name, const Value& v) {
  return false;
}

std::optional<Value> ArrayObject::GetItem(Interpreter& interp, const Value& key) {
  if (TraceHooks* hooks = interp.trace_hooks()) hooks->CheckConstant(interp, *this);
  std::vector<array::Index> index = ToIndices(interp, key, numpy);
  // numpy raises IndexError out of bounds; JAX clamps (with a warning here).
  if (numpy) {
    return Value(std::make_shared<ArrayObject>(
        GuardArrayOp(interp, [&] { return array::GetIndexed(value, index); }), numpy));
  }
  return Value(std::make_shared<ArrayObject>(IndexWithWarning(interp, value, index), numpy));
}

bool ArrayObject::SetItem(Interpreter& interp, const Value& key, const Value& v) {
  if (numpy) {
    // numpy arrays are mutable: the object takes the updated array (values cast to its dtype).
    // Arrays taken from it earlier (`row = x[0]`) keep their values, where numpy's views would
    // see the write.
    std::vector<array::Index> index = ToIndices(interp, key);
    Array values = ToArray(interp, v);
    value = GuardArrayOp(
        interp, [&] { return array::UpdateIndexed(value, index, values, array::UpdateOp::kSet); });
    return true;
  }
  interp.RaiseWithNotes(interp.types().type_error,
                        "JAX arrays are immutable and do not support in-place item assignment",
                        {"write `x = x.at[idx].set(y)` instead of `x[idx] = y` (inside a kernel, "
                         "assign to a Ref: `o_ref[idx] = y`)"});
}

std::optional<bool> ArrayObject::Truthy(Interpreter& interp) {
  if (value.size() != 1) {
    interp.Raise(interp.types().value_error,
                 "The truth value of an array with more than one element is ambiguous. Use "
                 "a.any() or a.all()");
  }
  return value.GetDouble(0) != 0;
}

std::optional<int64_t> ArrayObject::Len(Interpreter& interp) {
  if (value.rank() == 0) interp.Raise(interp.types().type_error, "len() of unsized object");
  return value.shape()[0];
}

ObjectRef ArrayObject::Iter(Interpreter& interp) {
  if (value.rank() == 0) interp.Raise(interp.types().type_error, "iteration over a 0-d array");
  Array self = value;
  auto position = std::make_shared<int64_t>(0);
  return std::make_shared<IteratorObject>(
      "array_iterator", [self, position](Interpreter& interp) -> std::optional<Value> {
        if (*position >= self.shape()[0]) return std::nullopt;
        array::Index i;
        i.value = (*position)++;
        return WrapArray(array::GetIndexed(self, {i}));
      });
}

std::optional<std::string> ArrayObject::Format(Interpreter& interp, std::string_view spec) {
  if (value.rank() != 0) return std::nullopt;
  return interp.Format(ToScalar(interp, value, "format"), spec);
}

}  // namespace pz::eval
