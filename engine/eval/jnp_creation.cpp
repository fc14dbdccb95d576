// jax.numpy / numpy creation and shape functions, and the dtype names: `jnp.float32`,
// `jnp.array`, `jnp.zeros`, `jnp.arange`, `jnp.reshape`, `jnp.concatenate`, `lax.iota`, ...
// Each binding parses Python arguments (BindArgs) and calls the array layer.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "array/creation.h"
#include "array/shape_ops.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"

namespace pz::eval {

using array::Array;
using array::DType;

namespace {

array::ScalarArg ToScalarArg(Interpreter& interp, const Value& v) {
  if (v.is_bool()) return {v.as_bool() ? 1.0 : 0.0, DType::kBool};
  if (v.is_int()) return {static_cast<double>(v.as_int()), DType::kInt32};
  if (v.is_float()) return {v.as_float(), DType::kFloat32};
  if (auto* a = v.as<ArrayObject>(); a && a->value.rank() == 0) {
    return {a->value.GetDouble(0), a->value.dtype()};
  }
  interp.Raise(interp.types().type_error,
               fmt::format("expected a scalar, got {}", interp.TypeName(v)));
}

// jnp.full with an array fill value, as JAX spells it: convert the fill to the dtype, then
// broadcast it to the shape. Spelled with array operations (not by reading the value) so that it
// traces inside a kernel, where the fill may be a computed value.
Array FillFromArray(const Array& fill, const array::Shape& shape, std::optional<DType> dtype) {
  Array value = dtype && *dtype != fill.dtype() ? fill.AsType(*dtype) : fill;
  return array::BroadcastTo(value, shape);
}

std::optional<DType> OptionalDType(Interpreter& interp, const std::optional<Value>& v) {
  if (!v || v->is_none()) return std::nullopt;
  return ToDType(interp, *v);
}

int ToInt(Interpreter& interp, const Value& v, const char* what) {
  if (!v.is_integral()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} must be an int, got {}", what, interp.TypeName(v)));
  }
  return static_cast<int>(v.integral());
}

std::vector<int64_t> ToInts(Interpreter& interp, const Value& v) {
  std::vector<int64_t> out;
  if (v.is(ObjectKind::kTuple) || v.is(ObjectKind::kList)) {
    for (const Value& item : interp.ToVector(v)) out.push_back(ToInt(interp, item, "entry"));
  } else {
    out.push_back(ToInt(interp, v, "value"));
  }
  return out;
}

std::vector<int> ToAxisList(Interpreter& interp, const Value& v) {
  std::vector<int> out;
  for (int64_t i : ToInts(interp, v)) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<Array> ToArrayList(Interpreter& interp, const Value& v) {
  std::vector<Array> arrays;
  for (const Value& item : interp.ToVector(v)) arrays.push_back(ToArray(interp, item));
  return arrays;
}

Value WrapList(std::vector<Array> arrays) {
  std::vector<Value> items;
  for (Array& a : arrays) items.push_back(WrapArray(std::move(a)));
  return MakeList(std::move(items));
}

// Registers `name` in every module of `modules`.
// jnp.pad's per-axis (before, after) arguments, as JAX's _broadcast_to_pairs reads them: a
// scalar, (x,), (before, after), ((before, after),) or one pair per axis.
std::vector<std::pair<double, double>> ToPairs(Interpreter& interp, const Value& v, int rank,
                                               std::string_view name) {
  Array values = ToArray(interp, v);
  const array::Shape& shape = values.shape();
  std::vector<double> flat = values.ToDoubles();
  std::vector<std::pair<double, double>> pairs;
  auto bad_shape = [&] {
    interp.Raise(interp.types().value_error,
                 fmt::format("jnp.pad: {} with nd={} has unsupported shape {}. Valid shapes are "
                             "({}, 2), (1, 2), (2,), (1,), or ().",
                             name, rank, array::ShapeToString(shape), rank));
  };
  if (shape.size() == 2 && shape[1] == 2 && (shape[0] == rank || shape[0] == 1)) {
    for (int i = 0; i < rank; ++i) {
      size_t row = shape[0] == 1 ? 0 : static_cast<size_t>(i);
      pairs.emplace_back(flat[2 * row], flat[2 * row + 1]);
    }
  } else if (shape.size() == 1 && shape[0] == 2) {
    pairs.assign(static_cast<size_t>(rank), {flat[0], flat[1]});
  } else if ((shape.size() == 1 && shape[0] == 1) || shape.empty()) {
    pairs.assign(static_cast<size_t>(rank), {flat[0], flat[0]});
  } else {
    bad_shape();
  }
  return pairs;
}

Value PadCall(Interpreter& interp, CallArgs& args) {
  auto b = BindArgs(interp, "pad", args,
                    {"array", "pad_width", "mode=", "*",
                     "constant_values=", "stat_length=", "end_values=", "reflect_type="});
  Array a = ToArray(interp, *b[0]);
  std::string mode = "constant";
  if (b[2]) {
    auto* s = b[2]->as<StrObject>();
    if (s == nullptr) {
      interp.Raise(interp.types().type_error,
                   "jnp.pad: mode must be a string here (callable modes are not supported)");
    }
    mode = s->value;
  }
  static const std::pair<const char*, array::PadMode> kModes[] = {
      {"constant", array::PadMode::kConstant},   {"edge", array::PadMode::kEdge},
      {"wrap", array::PadMode::kWrap},           {"reflect", array::PadMode::kReflect},
      {"symmetric", array::PadMode::kSymmetric}, {"maximum", array::PadMode::kMaximum},
      {"minimum", array::PadMode::kMinimum},     {"mean", array::PadMode::kMean},
      {"median", array::PadMode::kMedian},       {"linear_ramp", array::PadMode::kLinearRamp},
      {"empty", array::PadMode::kEmpty},
  };
  array::PadOptions options;
  bool known = false;
  for (const auto& [name, value] : kModes) {
    if (mode == name) {
      options.mode = value;
      known = true;
    }
  }
  if (!known) {
    interp.Raise(interp.types().not_implemented_error,
                 fmt::format("Unimplemented padding mode '{}' for np.pad.", mode));
  }
  // Which keyword each mode accepts, as in JAX.
  const char* allowed = nullptr;
  switch (options.mode) {
    case array::PadMode::kConstant:
      allowed = "constant_values";
      break;
    case array::PadMode::kLinearRamp:
      allowed = "end_values";
      break;
    case array::PadMode::kMaximum:
    case array::PadMode::kMinimum:
    case array::PadMode::kMean:
    case array::PadMode::kMedian:
      allowed = "stat_length";
      break;
    case array::PadMode::kReflect:
    case array::PadMode::kSymmetric:
      allowed = "reflect_type";
      break;
    default:
      break;
  }
  const char* keywords[] = {"constant_values", "stat_length", "end_values", "reflect_type"};
  std::vector<std::string> unsupported;
  for (int i = 0; i < 4; ++i) {
    if (b[static_cast<size_t>(3 + i)] &&
        (allowed == nullptr || std::string_view(allowed) != keywords[i])) {
      unsupported.push_back(fmt::format("'{}'", keywords[i]));
    }
  }
  if (!unsupported.empty()) {
    interp.Raise(interp.types().value_error,
                 fmt::format("unsupported keyword arguments for mode '{}': {{{}}}", mode,
                             fmt::join(unsupported, ", ")));
  }
  int rank = std::max(a.rank(), 1);
  std::vector<std::pair<double, double>> widths = ToPairs(interp, *b[1], rank, "pad_width");
  array::PadWidth width;
  for (const auto& [before, after] : widths) {
    if (before != std::floor(before) || after != std::floor(after)) {
      interp.Raise(interp.types().type_error, "`pad_width` must be of integral type.");
    }
    width.emplace_back(static_cast<int64_t>(before), static_cast<int64_t>(after));
  }
  if (options.mode == array::PadMode::kConstant) {
    options.values = b[3] ? ToPairs(interp, *b[3], rank, "constant_values")
                          : std::vector<std::pair<double, double>>(static_cast<size_t>(rank));
  } else if (options.mode == array::PadMode::kLinearRamp) {
    options.values = b[5] ? ToPairs(interp, *b[5], rank, "end_values")
                          : std::vector<std::pair<double, double>>(static_cast<size_t>(rank));
  }
  if (b[4] && !b[4]->is_none()) {
    array::PadWidth lengths;
    for (const auto& [before, after] : ToPairs(interp, *b[4], rank, "stat_length")) {
      lengths.emplace_back(static_cast<int64_t>(before), static_cast<int64_t>(after));
    }
    options.stat_length = lengths;
  }
  if (b[6]) {
    auto* s = b[6]->as<StrObject>();
    if (s == nullptr || (s->value != "even" && s->value != "odd")) {
      interp.Raise(interp.types().value_error, "reflect_type must be 'even' or 'odd'");
    }
    options.reflect_odd = s->value == "odd";
  }
  if (a.rank() == 0) return WrapArray(a);
  return WrapArray(GuardArrayOp(interp, [&] { return array::PadWithMode(a, width, options); }));
}

}  // namespace

void InstallArrayCore(Interpreter& interp, const ArrayModules& m) {
  // dtypes: `jnp.float32` is both a dtype and a scalar constructor.
  const std::pair<const char*, DType> kDTypes[] = {
      {"bool_", DType::kBool},      {"int8", DType::kInt8},         {"uint8", DType::kUInt8},
      {"int16", DType::kInt16},     {"uint16", DType::kUInt16},     {"int32", DType::kInt32},
      {"uint32", DType::kUInt32},   {"bfloat16", DType::kBFloat16}, {"float16", DType::kFloat16},
      {"float32", DType::kFloat32}, {"float64", DType::kFloat32},   {"int64", DType::kInt32},
      {"uint64", DType::kUInt32},   {"int4", DType::kInt4},         {"uint4", DType::kUInt4},
  };
  for (const auto& [name, dtype] : kDTypes) {
    Value object(std::make_shared<DTypeObject>(dtype));
    m.jnp.Set(name, object);
    m.np.Set(name, object);
  }
  m.np.Set("bool", m.np.attrs["bool_"]);
  for (ModuleObject* module : {&m.jnp, &m.np}) {
    module->Set("pi", Value::Float(M_PI));
    module->Set("e", Value::Float(M_E));
    module->Set("inf", Value::Float(HUGE_VAL));
    module->Set("nan", Value::Float(std::nan("")));
    module->Set("newaxis", Value());
  }
  AddFunction(interp, {&m.jnp, &m.np}, "ravel", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "ravel", args, {"a", "order="});
    Array a = ToArray(interp, *b[0]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Reshape(a, {a.size()}); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "shape", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "shape", args, {"a"});
    return interp.GetAttr(WrapArray(ToArray(interp, *b[0])), "shape");
  });
  AddFunction(interp, {&m.jnp, &m.np}, "ndim", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "ndim", args, {"a"});
    return Value::Int(ToArray(interp, *b[0]).rank());
  });
  AddFunction(interp, {&m.jnp, &m.np}, "size", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "size", args, {"a"});
    return Value::Int(ToArray(interp, *b[0]).size());
  });
  AddFunction(interp, {&m.jnp, &m.np}, "dtype", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "dtype", args, {"dtype"});
    return Value(std::make_shared<DTypeObject>(ToDType(interp, *b[0])));
  });

  // As in JAX, `jnp.array(2.0)` (a Python int or float, or a weak array, and no dtype) stays
  // weakly typed; numpy arrays never are.
  auto make_array = [](bool keep_weak) {
    return [keep_weak](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, "array", args, {"object", "dtype=", "copy=", "order=", "ndmin="});
      std::optional<DType> dtype = OptionalDType(interp, b[1]);
      Array a = ToArray(interp, *b[0], dtype);
      a.set_weak_type(keep_weak && a.weak_type() && !dtype && !b[0]->is_bool());
      return WrapArray(std::move(a));
    };
  };
  AddFunction(interp, {&m.jnp}, "array", make_array(true));
  AddFunction(interp, {&m.jnp}, "asarray", make_array(true));
  AddFunction(interp, {&m.np}, "array", make_array(false));
  AddFunction(interp, {&m.np}, "asarray", make_array(false));

  for (const char* name : {"zeros", "ones", "empty"}) {
    std::string fn = name;
    AddFunction(interp, {&m.jnp, &m.np}, fn, [fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"shape", "dtype="});
      array::Shape shape = ToShape(interp, *b[0]);
      DType dtype = OptionalDType(interp, b[1]).value_or(DType::kFloat32);
      return WrapArray(GuardArrayOp(interp, [&] {
        return fn == "ones" ? array::Ones(shape, dtype) : array::Zeros(shape, dtype);
      }));
    });
    AddFunction(interp, {&m.jnp, &m.np}, fn + "_like", [fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn + "_like", args, {"a", "dtype=", "shape="});
      Array like = ToArray(interp, *b[0]);
      DType dtype = OptionalDType(interp, b[1]).value_or(like.dtype());
      array::Shape shape = b[2] && !b[2]->is_none() ? ToShape(interp, *b[2]) : like.shape();
      return WrapArray(GuardArrayOp(interp, [&] {
        return fn == "ones" ? array::Ones(shape, dtype) : array::Zeros(shape, dtype);
      }));
    });
  }
  AddFunction(interp, {&m.jnp, &m.np}, "full", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "full", args, {"shape", "fill_value", "dtype="});
    array::Shape shape = ToShape(interp, *b[0]);
    std::optional<DType> dtype = OptionalDType(interp, b[2]);
    if (const auto* a = b[1]->as<ArrayObject>()) {
      return WrapArray(GuardArrayOp(interp, [&] { return FillFromArray(a->value, shape, dtype); }));
    }
    array::ScalarArg fill = ToScalarArg(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Full(shape, fill, dtype); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "full_like", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "full_like", args, {"a", "fill_value", "dtype="});
    Array like = ToArray(interp, *b[0]);
    DType dtype = OptionalDType(interp, b[2]).value_or(like.dtype());
    if (const auto* a = b[1]->as<ArrayObject>()) {
      return WrapArray(
          GuardArrayOp(interp, [&] { return FillFromArray(a->value, like.shape(), dtype); }));
    }
    array::ScalarArg fill = ToScalarArg(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Full(like.shape(), fill, dtype); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "arange", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "arange", args, {"start", "stop=", "step=", "dtype="});
    auto opt = [&](const std::optional<Value>& v) -> std::optional<array::ScalarArg> {
      if (!v || v->is_none()) return std::nullopt;
      return ToScalarArg(interp, *v);
    };
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::Arange(ToScalarArg(interp, *b[0]), opt(b[1]), opt(b[2]),
                           OptionalDType(interp, b[3]));
    }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "linspace", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "linspace", args, {"start", "stop", "num=", "endpoint=", "dtype="});
    int64_t num = b[2] ? ToInt(interp, *b[2], "num") : 50;
    bool endpoint = b[3] ? interp.Truthy(*b[3]) : true;
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::Linspace(ToScalarArg(interp, *b[0]).value, ToScalarArg(interp, *b[1]).value,
                             num, endpoint, OptionalDType(interp, b[4]));
    }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "identity", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "identity", args, {"n", "dtype="});
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::Eye(ToInt(interp, *b[0], "n"), std::nullopt, 0,
                        OptionalDType(interp, b[1]).value_or(DType::kFloat32));
    }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "eye", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "eye", args, {"N", "M=", "k=", "dtype="});
    std::optional<int64_t> cols;
    if (b[1] && !b[1]->is_none()) cols = ToInt(interp, *b[1], "M");
    int64_t k = b[2] ? ToInt(interp, *b[2], "k") : 0;
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::Eye(ToInt(interp, *b[0], "N"), cols, k,
                        OptionalDType(interp, b[3]).value_or(DType::kFloat32));
    }));
  });
  for (const char* name : {"tril", "triu"}) {
    std::string fn = name;
    AddFunction(interp, {&m.jnp, &m.np}, fn, [fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"m", "k="});
      Array a = ToArray(interp, *b[0]);
      int64_t k = b[1] ? ToInt(interp, *b[1], "k") : 0;
      return WrapArray(GuardArrayOp(
          interp, [&] { return fn == "tril" ? array::Tril(a, k) : array::Triu(a, k); }));
    });
  }
  AddFunction(
      interp, m.lax, "iota",
      [](Interpreter& interp, CallArgs& args) {
        auto b = BindArgs(interp, "iota", args, {"dtype", "size"});
        return WrapArray(GuardArrayOp(interp, [&] {
          return array::Iota(ToDType(interp, *b[0]), ToInt(interp, *b[1], "size"));
        }));
      },
      TraceWhen::kAlways);
  AddFunction(
      interp, m.lax, "broadcasted_iota",
      [](Interpreter& interp, CallArgs& args) {
        auto b = BindArgs(interp, "broadcasted_iota", args, {"dtype", "shape", "dimension"});
        return WrapArray(GuardArrayOp(interp, [&] {
          return array::BroadcastedIota(ToDType(interp, *b[0]), ToShape(interp, *b[1]),
                                        ToInt(interp, *b[2], "dimension"));
        }));
      },
      TraceWhen::kAlways);

  // ---- shape functions -----------------------------------------------------------------------
  AddFunction(interp, {&m.jnp, &m.np}, "reshape", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "reshape", args, {"a", "shape"});
    Array a = ToArray(interp, *b[0]);
    array::Shape shape = ToShape(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Reshape(a, shape); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "transpose", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "transpose", args, {"a", "axes="});
    Array a = ToArray(interp, *b[0]);
    std::optional<array::Axes> axes;
    if (b[1] && !b[1]->is_none()) axes = ToAxisList(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Transpose(a, axes); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "swapaxes", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "swapaxes", args, {"a", "axis1", "axis2"});
    Array a = ToArray(interp, *b[0]);
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::SwapAxes(a, ToInt(interp, *b[1], "axis1"), ToInt(interp, *b[2], "axis2"));
    }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "moveaxis", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "moveaxis", args, {"a", "source", "destination"});
    Array a = ToArray(interp, *b[0]);
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::MoveAxis(a, ToAxisList(interp, *b[1]), ToAxisList(interp, *b[2]));
    }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "expand_dims", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "expand_dims", args, {"a", "axis"});
    Array a = ToArray(interp, *b[0]);
    return WrapArray(
        GuardArrayOp(interp, [&] { return array::ExpandDims(a, ToAxisList(interp, *b[1])); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "squeeze", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "squeeze", args, {"a", "axis="});
    Array a = ToArray(interp, *b[0]);
    std::optional<array::Axes> axes;
    if (b[1] && !b[1]->is_none()) axes = ToAxisList(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Squeeze(a, axes); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "broadcast_to", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "broadcast_to", args, {"array", "shape"});
    Array a = ToArray(interp, *b[0]);
    return WrapArray(
        GuardArrayOp(interp, [&] { return array::BroadcastTo(a, ToShape(interp, *b[1])); }));
  });
  // lax.broadcast_in_dim: operand dimension i becomes dimension broadcast_dimensions[i] of the
  // result (strictly increasing, each of size 1 or the result's); lax.broadcast prepends `sizes`.
  AddFunction(interp, m.lax, "broadcast_in_dim", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "broadcast_in_dim", args,
                      {"operand", "shape", "broadcast_dimensions", "*", "out_sharding="});
    Array a = ToArray(interp, *b[0]);
    array::Shape shape = ToShape(interp, *b[1]);
    std::vector<Value> dims_values = interp.ToVector(*b[2]);
    std::vector<int64_t> dims;
    for (const Value& d : dims_values) dims.push_back(ToIndex(interp, d));
    if (dims.size() != a.shape().size()) {
      interp.Raise(interp.types().type_error,
                   fmt::format("broadcast_in_dim broadcast_dimensions must have length equal to "
                               "operand ndim; got broadcast_dimensions {} for operand ndim {}.",
                               interp.Repr(*b[2]), a.shape().size()));
    }
    array::Shape expanded(shape.size(), 1);
    for (size_t i = 0; i < dims.size(); ++i) {
      int64_t d = dims[i];
      bool ok = d >= 0 && d < static_cast<int64_t>(shape.size()) && (i == 0 || d > dims[i - 1]) &&
                (a.shape()[i] == 1 || a.shape()[i] == shape[static_cast<size_t>(d)]);
      if (!ok) {
        interp.Raise(interp.types().type_error,
                     fmt::format("broadcast_in_dim cannot broadcast operand of shape {} to shape "
                                 "{} along broadcast_dimensions {}: they must be strictly "
                                 "increasing and each operand dimension 1 or the target's size",
                                 array::ShapeToString(a.shape()), array::ShapeToString(shape),
                                 interp.Repr(*b[2])));
      }
      expanded[static_cast<size_t>(d)] = a.shape()[i];
    }
    return WrapArray(GuardArrayOp(
        interp, [&] { return array::BroadcastTo(array::Reshape(a, expanded), shape); }));
  });
  AddFunction(interp, m.lax, "broadcast", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "broadcast", args, {"operand", "sizes", "*", "out_sharding="});
    Array a = ToArray(interp, *b[0]);
    array::Shape shape = ToShape(interp, *b[1]);
    shape.insert(shape.end(), a.shape().begin(), a.shape().end());
    return WrapArray(GuardArrayOp(interp, [&] { return array::BroadcastTo(a, shape); }));
  });
  for (const char* name : {"concatenate", "stack"}) {
    std::string fn = name;
    AddFunction(interp, {&m.jnp, &m.np}, fn, [fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"arrays", "axis=", "dtype="});
      std::vector<Array> arrays = ToArrayList(interp, *b[0]);
      // `jnp.concatenate(arrays, axis=None)` joins the flattened arrays.
      bool flatten = fn == "concatenate" && b[1] && b[1]->is_none();
      if (flatten) {
        for (Array& a : arrays) {
          a = GuardArrayOp(interp, [&] { return array::Reshape(a, {a.size()}); });
        }
      }
      int axis = b[1] && !flatten ? ToInt(interp, *b[1], "axis") : 0;
      Array out = GuardArrayOp(interp, [&] {
        return fn == "stack" ? array::Stack(arrays, axis) : array::Concatenate(arrays, axis);
      });
      if (auto dtype = OptionalDType(interp, b[2])) out = out.AsType(*dtype);
      return WrapArray(std::move(out));
    });
  }
  AddFunction(interp, {&m.jnp, &m.np}, "split", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "split", args, {"ary", "indices_or_sections", "axis="});
    Array a = ToArray(interp, *b[0]);
    int axis = b[2] ? ToInt(interp, *b[2], "axis") : 0;
    const Value& spec = *b[1];
    return WrapList(GuardArrayOp(interp, [&] {
      if (spec.is_integral()) return array::Split(a, spec.integral(), axis);
      return array::Split(a, ToInts(interp, spec), axis);
    }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "tile", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "tile", args, {"A", "reps"});
    Array a = ToArray(interp, *b[0]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Tile(a, ToInts(interp, *b[1])); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "repeat", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "repeat", args, {"a", "repeats", "axis=", "total_repeat_length="});
    Array a = ToArray(interp, *b[0]);
    std::vector<int64_t> repeats;
    if (b[1]->is(ObjectKind::kExtension)) {
      for (double v : ToArray(interp, *b[1]).ToDoubles())
        repeats.push_back(static_cast<int64_t>(v));
    } else {
      repeats = ToInts(interp, *b[1]);
    }
    std::optional<int> axis;
    if (b[2] && !b[2]->is_none()) axis = ToInt(interp, *b[2], "axis");
    std::optional<int64_t> total;
    if (b[3] && !b[3]->is_none()) total = ToInt(interp, *b[3], "total_repeat_length");
    return WrapArray(GuardArrayOp(interp, [&] { return array::Repeat(a, repeats, axis, total); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "flip", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "flip", args, {"m", "axis="});
    Array a = ToArray(interp, *b[0]);
    std::optional<array::Axes> axes;
    if (b[1] && !b[1]->is_none()) axes = ToAxisList(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Flip(a, axes); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "roll", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "roll", args, {"a", "shift", "axis="});
    Array a = ToArray(interp, *b[0]);
    std::optional<array::Axes> axes;
    if (b[2] && !b[2]->is_none()) axes = ToAxisList(interp, *b[2]);
    // The shift may be an integer array (JAX allows a computed shift), 0-d or one per axis.
    std::vector<int64_t> shifts;
    if (const auto* s = b[1]->as<ArrayObject>();
        s != nullptr && (array::IsInteger(s->value.dtype()) || array::IsBool(s->value.dtype()))) {
      for (double d : s->value.ToDoubles()) shifts.push_back(static_cast<int64_t>(d));
    } else {
      shifts = ToInts(interp, *b[1]);
    }
    return WrapArray(GuardArrayOp(interp, [&] { return array::Roll(a, shifts, axes); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "pad", PadCall);
}

}  // namespace pz::eval
