// Elementwise math, reductions and activations: jax.numpy (exp, maximum, where, sum, ...),
// jax.lax (div, rem, select, rsqrt, ...), jax.nn (relu, gelu, softmax, ...), logsumexp, and the
// comparisons allclose/isclose/array_equal, mirrored into numpy where numpy has them.
#include <fmt/format.h>

#include <cmath>

#include "array/creation.h"
#include "array/elementwise.h"
#include "array/lax_ops.h"
#include "array/prims.h"
#include "array/reduce.h"
#include "array/shape_ops.h"
#include "array/stats.h"
#include "eval/array_object.h"
#include "eval/builtin_support.h"
#include "support/check.h"

namespace pz::eval {

using array::Array;
using array::BinaryOp;
using array::DType;
using array::UnaryOp;

namespace {

// The coordinates of the nonzero elements of `c`, one vector per axis (row-major order); with
// `size`, cut or padded with `fill_value` (default 0) to that many.
std::vector<std::vector<double>> NonzeroCoords(Interpreter& interp, const Array& c,
                                               const std::optional<Value>& size,
                                               const std::optional<Value>& fill_value) {
  if (c.rank() == 0) {
    interp.Raise(
        interp.types().value_error,
        "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() "
        "instead.");
  }
  std::vector<std::vector<double>> coords(static_cast<size_t>(c.rank()));
  std::vector<double> values = c.ToDoubles();
  for (int64_t flat = 0; flat < static_cast<int64_t>(values.size()); ++flat) {
    if (values[flat] == 0) continue;
    int64_t rem = flat;
    for (int axis = c.rank() - 1; axis >= 0; --axis) {
      coords[axis].push_back(static_cast<double>(rem % c.shape()[axis]));
      rem /= c.shape()[axis];
    }
  }
  if (size && !size->is_none()) {
    int64_t n = ToIndex(interp, *size);
    std::vector<double> fills(coords.size(), 0.0);
    if (fill_value && !fill_value->is_none()) {
      std::vector<Value> given =
          fill_value->is(ObjectKind::kTuple) ? interp.ToVector(*fill_value) : std::vector<Value>{};
      for (size_t axis = 0; axis < fills.size(); ++axis) {
        const Value& v = given.empty() ? *fill_value : given.at(std::min(axis, given.size() - 1));
        fills[axis] = ToArray(interp, v).GetDouble(0);
      }
    }
    for (size_t axis = 0; axis < coords.size(); ++axis) {
      coords[axis].resize(static_cast<size_t>(std::max<int64_t>(n, 0)), fills[axis]);
    }
  }
  return coords;
}

Value NonzeroTuple(Interpreter& interp, const Array& c, const std::optional<Value>& size,
                   const std::optional<Value>& fill_value) {
  std::vector<std::vector<double>> coords = NonzeroCoords(interp, c, size, fill_value);
  std::vector<Value> out;
  for (const auto& axis : coords) {
    out.push_back(
        WrapArray(Array::FromDoubles(DType::kInt32, {static_cast<int64_t>(axis.size())}, axis)));
  }
  return MakeTuple(std::move(out));
}

Value Un(Interpreter& interp, UnaryOp op, const Value& x) {
  Array a = ToArray(interp, x);
  return WrapArray(GuardArrayOp(interp, [&] { return array::Unary(op, a); }));
}

Value Bin(Interpreter& interp, BinaryOp op, const Value& x, const Value& y) {
  Array a = ToArray(interp, x);
  Array b = ToArray(interp, y);
  return WrapArray(GuardArrayOp(interp, [&] { return array::Binary(op, a, b); }));
}

// Binds a reduction's arguments in the order jax.numpy takes them positionally; the slots are
// always a, axis, dtype, out, keepdims, initial, where (nullopt where the op has none).
std::vector<std::optional<Value>> BindReduce(Interpreter& interp, array::ReduceOp op,
                                             const std::string& name, CallArgs& args) {
  using O = std::optional<Value>;
  switch (op) {
    case array::ReduceOp::kSum:
    case array::ReduceOp::kProd: {
      auto b = BindArgs(
          interp, name, args,
          {"a", "axis=", "dtype=", "out=", "keepdims=", "initial=", "where=", "promote_integers="});
      b.pop_back();
      return b;
    }
    case array::ReduceOp::kMax:
    case array::ReduceOp::kMin: {
      auto b =
          BindArgs(interp, name, args, {"a", "axis=", "out=", "keepdims=", "initial=", "where="});
      return {b[0], b[1], O(), b[2], b[3], b[4], b[5]};
    }
    case array::ReduceOp::kMean: {
      auto b = BindArgs(interp, name, args,
                        {"a", "axis=", "dtype=", "out=", "keepdims=", "*", "where="});
      return {b[0], b[1], b[2], b[3], b[4], O(), b[5]};
    }
    case array::ReduceOp::kAny:
    case array::ReduceOp::kAll: {
      auto b = BindArgs(interp, name, args, {"a", "axis=", "out=", "keepdims=", "*", "where="});
      return {b[0], b[1], O(), b[2], b[3], O(), b[4]};
    }
    case array::ReduceOp::kArgMax:
    case array::ReduceOp::kArgMin: {
      auto b = BindArgs(interp, name, args, {"a", "axis=", "out=", "keepdims="});
      return {b[0], b[1], O(), b[2], b[3], O(), O()};
    }
  }
  PZ_UNREACHABLE();
}

// jnp.sum, jnp.max, ...: (a, axis=None, [dtype], out=None, keepdims=False, [initial], [where]).
Value ReduceCall(Interpreter& interp, array::ReduceOp op, const std::string& name, CallArgs& args) {
  auto b = BindReduce(interp, op, name, args);
  auto arg = [&](int slot) { return b[slot] && !b[slot]->is_none() ? b[slot] : std::nullopt; };
  Array a = ToArray(interp, *b[0]);
  std::optional<Value> axis = arg(1);
  std::optional<std::vector<int>> axes = axis ? ToAxes(interp, *axis, a.rank()) : std::nullopt;
  std::optional<Value> keep = arg(4);
  bool keepdims = keep && interp.Truthy(*keep);
  std::optional<DType> dtype;
  if (std::optional<Value> d = arg(2)) dtype = ToDType(interp, *d);
  if (arg(3)) {
    interp.Raise(interp.types().not_implemented_error,
                 fmt::format("The 'out' argument to jnp.{} is not supported.", name));
  }
  std::optional<Array> where;
  if (std::optional<Value> w = arg(6)) where = ToArray(interp, *w);
  std::optional<Array> initial;
  if (std::optional<Value> i = arg(5)) initial = ToArray(interp, *i);
  if ((op == array::ReduceOp::kArgMax || op == array::ReduceOp::kArgMin) && axes &&
      axes->size() > 1) {
    interp.Raise(interp.types().type_error, fmt::format("{} takes a single axis", name));
  }
  return WrapArray(GuardArrayOp(interp, [&] {
    if (where || initial) return array::ReduceWhere(op, a, axes, keepdims, dtype, where, initial);
    return array::Reduce(op, a, axes, keepdims, dtype);
  }));
}

// jnp.isclose on arrays: |a - b| <= atol + rtol * |b| (NaNs unequal unless equal_nan).
Array IsClose(Interpreter& interp, const Array& a, const Array& b, double rtol, double atol,
              bool equal_nan) {
  return GuardArrayOp(interp, [&] {
    Array diff = array::Unary(UnaryOp::kAbs, array::Binary(BinaryOp::kSub, a, b));
    Array rt = Array::Scalar(DType::kFloat32, rtol);
    rt.set_weak_type(true);
    Array at = Array::Scalar(DType::kFloat32, atol);
    at.set_weak_type(true);
    Array bound = array::Binary(BinaryOp::kAdd, at,
                                array::Binary(BinaryOp::kMul, rt, array::Unary(UnaryOp::kAbs, b)));
    Array close = array::Binary(BinaryOp::kLe, diff, bound);
    // Equal infinities are close; NaNs only with equal_nan.
    close = array::Binary(BinaryOp::kLogicalOr, close, array::Binary(BinaryOp::kEq, a, b));
    if (equal_nan) {
      Array both_nan = array::Binary(BinaryOp::kLogicalAnd, array::Unary(UnaryOp::kIsNan, a),
                                     array::Unary(UnaryOp::kIsNan, b));
      close = array::Binary(BinaryOp::kLogicalOr, close, both_nan);
    }
    return close;
  });
}

}  // namespace

void InstallArrayMath(Interpreter& interp, const ArrayModules& m) {
  // ---- unary functions ---------------------------------------------------------------------
  const std::pair<const char*, UnaryOp> kUnary[] = {
      {"negative", UnaryOp::kNeg},
      {"positive", UnaryOp::kPos},
      {"abs", UnaryOp::kAbs},
      {"absolute", UnaryOp::kAbs},
      {"invert", UnaryOp::kInvert},
      {"bitwise_not", UnaryOp::kInvert},
      {"logical_not", UnaryOp::kLogicalNot},
      {"exp", UnaryOp::kExp},
      {"exp2", UnaryOp::kExp2},
      {"log", UnaryOp::kLog},
      {"log1p", UnaryOp::kLog1p},
      {"expm1", UnaryOp::kExpm1},
      {"sqrt", UnaryOp::kSqrt},
      {"tanh", UnaryOp::kTanh},
      {"sin", UnaryOp::kSin},
      {"cos", UnaryOp::kCos},
      {"tan", UnaryOp::kTan},
      {"sign", UnaryOp::kSign},
      {"floor", UnaryOp::kFloor},
      {"ceil", UnaryOp::kCeil},
      {"isnan", UnaryOp::kIsNan},
      {"isinf", UnaryOp::kIsInf},
      {"isfinite", UnaryOp::kIsFinite},
      {"square", UnaryOp::kSquare},
      {"reciprocal", UnaryOp::kReciprocal},
  };
  for (const auto& [name, op] : kUnary) {
    UnaryOp kernel = op;
    std::string fn = name;
    AddFunction(interp, {&m.jnp, &m.np}, fn, [kernel, fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"x"});
      return Un(interp, kernel, *b[0]);
    });
  }
  AddFunction(interp, {&m.jnp, &m.np}, "round", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "round", args, {"a", "decimals="});
    if (b[1] && !(b[1]->is_int() && b[1]->as_int() == 0)) {
      Array a = ToArray(interp, *b[0]);
      double scale = std::pow(10.0, static_cast<double>(b[1]->integral()));
      Array s = Array::Scalar(DType::kFloat32, scale);
      s.set_weak_type(true);
      return WrapArray(GuardArrayOp(interp, [&] {
        return array::Binary(BinaryOp::kDiv,
                             array::Unary(UnaryOp::kRound, array::Binary(BinaryOp::kMul, a, s)), s);
      }));
    }
    return Un(interp, UnaryOp::kRound, *b[0]);
  });
  // rint: round half to even; integers and bools become floats first, as in JAX.
  AddFunction(interp, {&m.jnp, &m.np}, "rint", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "rint", args, {"x"});
    Array a = ToArray(interp, *b[0]);
    if (!array::IsFloating(a.dtype()))
      a = GuardArrayOp(interp, [&] { return a.AsType(DType::kFloat32); });
    return Un(interp, UnaryOp::kRound, WrapArray(std::move(a)));
  });
  // lax spellings
  const std::pair<const char*, UnaryOp> kLaxUnary[] = {
      {"exp", UnaryOp::kExp},          {"exp2", UnaryOp::kExp2},     {"log", UnaryOp::kLog},
      {"log1p", UnaryOp::kLog1p},      {"sqrt", UnaryOp::kSqrt},     {"rsqrt", UnaryOp::kRsqrt},
      {"tanh", UnaryOp::kTanh},        {"sin", UnaryOp::kSin},       {"cos", UnaryOp::kCos},
      {"neg", UnaryOp::kNeg},          {"abs", UnaryOp::kAbs},       {"sign", UnaryOp::kSign},
      {"floor", UnaryOp::kFloor},      {"ceil", UnaryOp::kCeil},     {"erf", UnaryOp::kErf},
      {"logistic", UnaryOp::kSigmoid}, {"square", UnaryOp::kSquare}, {"expm1", UnaryOp::kExpm1},
  };
  for (const auto& [name, op] : kLaxUnary) {
    UnaryOp kernel = op;
    std::string fn = name;
    AddFunction(interp, m.lax, fn, [kernel, fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"x"});
      return Un(interp, kernel, *b[0]);
    });
  }
  AddFunction(interp, m.special, "erf", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "erf", args, {"x"});
    return Un(interp, UnaryOp::kErf, *b[0]);
  });

  // ---- binary functions --------------------------------------------------------------------
  const std::pair<const char*, BinaryOp> kBinary[] = {
      {"add", BinaryOp::kAdd},
      {"subtract", BinaryOp::kSub},
      {"multiply", BinaryOp::kMul},
      {"divide", BinaryOp::kDiv},
      {"true_divide", BinaryOp::kDiv},
      {"floor_divide", BinaryOp::kFloorDiv},
      {"remainder", BinaryOp::kMod},
      {"mod", BinaryOp::kMod},
      {"power", BinaryOp::kPow},
      {"maximum", BinaryOp::kMaximum},
      {"minimum", BinaryOp::kMinimum},
      {"bitwise_and", BinaryOp::kBitAnd},
      {"bitwise_or", BinaryOp::kBitOr},
      {"bitwise_xor", BinaryOp::kBitXor},
      {"left_shift", BinaryOp::kLShift},
      {"right_shift", BinaryOp::kRShift},
      {"equal", BinaryOp::kEq},
      {"not_equal", BinaryOp::kNe},
      {"less", BinaryOp::kLt},
      {"less_equal", BinaryOp::kLe},
      {"greater", BinaryOp::kGt},
      {"greater_equal", BinaryOp::kGe},
      {"logical_and", BinaryOp::kLogicalAnd},
      {"logical_or", BinaryOp::kLogicalOr},
      {"arctan2", BinaryOp::kAtan2},
  };
  for (const auto& [name, op] : kBinary) {
    BinaryOp kernel = op;
    std::string fn = name;
    AddFunction(interp, {&m.jnp, &m.np}, fn, [kernel, fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"x", "y"});
      return Bin(interp, kernel, *b[0], *b[1]);
    });
  }
  const std::pair<const char*, BinaryOp> kLaxBinary[] = {
      {"add", BinaryOp::kAdd},     {"sub", BinaryOp::kSub},     {"mul", BinaryOp::kMul},
      {"max", BinaryOp::kMaximum}, {"min", BinaryOp::kMinimum}, {"pow", BinaryOp::kPow},
      {"eq", BinaryOp::kEq},       {"ne", BinaryOp::kNe},       {"lt", BinaryOp::kLt},
      {"le", BinaryOp::kLe},       {"gt", BinaryOp::kGt},       {"ge", BinaryOp::kGe},
  };
  for (const auto& [name, op] : kLaxBinary) {
    BinaryOp kernel = op;
    std::string fn = name;
    AddFunction(interp, m.lax, fn, [kernel, fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"x", "y"});
      return Bin(interp, kernel, *b[0], *b[1]);
    });
  }
  // lax.div / lax.rem round toward zero (C semantics), unlike jnp's floor division. Both are
  // built from the exact floor forms: where the floor remainder is nonzero and its sign differs
  // from x's, the truncated quotient is one more and the remainder one `y` less.
  for (const char* name : {"div", "rem"}) {
    std::string fn = name;
    AddFunction(interp, m.lax, fn, [fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"x", "y"});
      Array x = ToArray(interp, *b[0]);
      Array y = ToArray(interp, *b[1]);
      return WrapArray(GuardArrayOp(interp, [&] {
        bool floating = array::IsFloating(x.dtype()) || array::IsFloating(y.dtype());
        if (fn == "div" && floating) return array::Binary(BinaryOp::kDiv, x, y);
        Array zero = Array::Scalar(DType::kInt32, 0);
        zero.set_weak_type(true);
        Array mod = array::Binary(BinaryOp::kMod, x, y);
        Array adjust =
            array::Binary(BinaryOp::kLogicalAnd, array::Binary(BinaryOp::kNe, mod, zero),
                          array::Binary(BinaryOp::kNe, array::Binary(BinaryOp::kLt, mod, zero),
                                        array::Binary(BinaryOp::kLt, x, zero)));
        if (fn == "rem") {
          return array::Where(adjust, array::Binary(BinaryOp::kSub, mod, y), mod);
        }
        Array floor = array::Binary(BinaryOp::kFloorDiv, x, y);
        return array::Binary(BinaryOp::kAdd, floor, adjust.AsType(floor.dtype()));
      }));
    });
  }

  // nonzero / argwhere / flatnonzero: the indices of nonzero elements (with `size`, padded with
  // `fill_value` or cut, as JAX needs a static size under jit).
  AddFunction(interp, {&m.jnp, &m.np}, "nonzero", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "nonzero", args, {"a", "*", "size=", "fill_value="});
    return NonzeroTuple(interp, ToArray(interp, *b[0]), b[1], b[2]);
  });
  AddFunction(interp, {&m.jnp, &m.np}, "flatnonzero", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "flatnonzero", args, {"a", "*", "size=", "fill_value="});
    Array a = ToArray(interp, *b[0]);
    return interp.GetItem(
        NonzeroTuple(interp, GuardArrayOp(interp, [&] { return array::Reshape(a, {a.size()}); }),
                     b[1], b[2]),
        Value::Int(0));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "argwhere", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "argwhere", args, {"a", "*", "size=", "fill_value="});
    Array a = ToArray(interp, *b[0]);
    std::vector<std::vector<double>> coords = NonzeroCoords(interp, a, b[1], b[2]);
    int64_t n = coords.empty() ? 0 : static_cast<int64_t>(coords[0].size());
    std::vector<double> rows;
    for (int64_t i = 0; i < n; ++i) {
      for (const auto& axis : coords) rows.push_back(axis[static_cast<size_t>(i)]);
    }
    return WrapArray(Array::FromDoubles(DType::kInt32, {n, a.rank()}, rows));
  });
  // diff(a, n=1, axis=-1, prepend=None, append=None): a[1:] - a[:-1] along `axis`, n times.
  AddFunction(interp, {&m.jnp, &m.np}, "diff", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "diff", args, {"a", "n=", "axis=", "prepend=", "append="});
    Value a = WrapArray(ToArray(interp, *b[0]));
    int64_t n = b[1] ? ToIndex(interp, *b[1]) : 1;
    if (n < 0)
      interp.Raise(interp.types().value_error,
                   fmt::format("order must be non-negative but got {}", n));
    int64_t rank = ToArray(interp, a).rank();
    if (rank == 0)
      interp.Raise(interp.types().value_error,
                   "diff requires input that is at least one dimensional");
    int64_t axis = b[2] ? ToIndex(interp, *b[2]) : -1;
    if (axis < -rank || axis >= rank) {
      interp.Raise(interp.types().value_error,
                   fmt::format("axis {} is out of bounds for array of dimension {}", axis, rank));
    }
    if (axis < 0) axis += rank;
    auto jnp = interp.FindModule("jax.numpy");
    std::vector<Value> parts;
    for (int k : {3, 4}) {
      if (!b[k] || b[k]->is_none()) continue;
      Array extra = ToArray(interp, *b[k]);
      if (extra.rank() == 0) {  // a scalar is broadcast to a's shape with length 1 on `axis`
        array::Shape shape = ToArray(interp, a).shape();
        shape[static_cast<size_t>(axis)] = 1;
        extra = GuardArrayOp(interp, [&] { return array::BroadcastTo(extra, shape); });
      }
      parts.push_back(WrapArray(extra));
    }
    if (!parts.empty()) {
      std::vector<Value> all;
      if (b[3] && !b[3]->is_none()) all.push_back(parts.front());
      all.push_back(a);
      if (b[4] && !b[4]->is_none()) all.push_back(parts.back());
      a = interp.Call(jnp->attrs.at("concatenate"),
                      CallArgs{.positional = {MakeList(std::move(all))},
                               .keywords = {{"axis", Value::Int(axis)}},
                               .span = interp.current_span()});
    }
    for (int64_t i = 0; i < n; ++i) {
      std::vector<Value> hi(static_cast<size_t>(rank),
                            Value(std::make_shared<SliceObject>(Value(), Value(), Value())));
      std::vector<Value> lo = hi;
      hi[static_cast<size_t>(axis)] =
          Value(std::make_shared<SliceObject>(Value::Int(1), Value(), Value()));
      lo[static_cast<size_t>(axis)] =
          Value(std::make_shared<SliceObject>(Value(), Value::Int(-1), Value()));
      a = interp.BinaryOp(lang::BinOpKind::kSub, interp.GetItem(a, MakeTuple(hi)),
                          interp.GetItem(a, MakeTuple(lo)));
    }
    return a;
  });

  // ---- where / select / clip / convert -----------------------------------------------------
  AddFunction(interp, {&m.jnp, &m.np}, "where", [](Interpreter& interp, CallArgs& args) {
    auto b =
        BindArgs(interp, "where", args, {"condition", "x=", "y=", "*", "size=", "fill_value="});
    Array c = ToArray(interp, *b[0]);
    if (!b[1] && !b[2]) return NonzeroTuple(interp, c, b[3], b[4]);
    if (!b[1] || !b[2]) {
      interp.Raise(interp.types().value_error,
                   "either both or neither of x and y should be given to `where`");
    }
    Array x = ToArray(interp, *b[1]);
    Array y = ToArray(interp, *b[2]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Where(c, x, y); }));
  });
  AddFunction(interp, m.lax, "select", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "select", args, {"pred", "on_true", "on_false"});
    Array c = ToArray(interp, *b[0]);
    if (c.dtype() != DType::kBool) {
      interp.Raise(interp.types().type_error,
                   fmt::format("lax.select requires a boolean predicate, got {}",
                               array::DTypeName(c.dtype())));
    }
    Array x = ToArray(interp, *b[1]);
    Array y = ToArray(interp, *b[2]);
    if (x.dtype() != y.dtype() || x.shape() != y.shape()) {
      interp.Raise(interp.types().type_error,
                   "lax.select requires on_true and on_false of the same shape and dtype");
    }
    return WrapArray(GuardArrayOp(interp, [&] { return array::Where(c, x, y); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "clip", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "clip", args, {"a", "a_min=", "a_max=", "*", "min=", "max="});
    Array a = ToArray(interp, *b[0]);
    auto bound = [&](const std::optional<Value>& x,
                     const std::optional<Value>& y) -> std::optional<Array> {
      const std::optional<Value>& v = x && !x->is_none() ? x : y;
      if (!v || v->is_none()) return std::nullopt;
      return ToArray(interp, *v);
    };
    std::optional<Array> lo = bound(b[1], b[3]);
    std::optional<Array> hi = bound(b[2], b[4]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Clip(a, lo, hi); }));
  });
  AddFunction(interp, m.lax, "convert_element_type", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "convert_element_type", args, {"operand", "new_dtype"});
    Array a = ToArray(interp, *b[0]);
    DType dtype = ToDType(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return a.AsType(dtype); }));
  });

  AddFunction(interp, m.lax, "bitcast_convert_type", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "bitcast_convert_type", args, {"operand", "new_dtype"});
    Array a = ToArray(interp, *b[0]);
    DType dtype = ToDType(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::BitcastConvertType(a, dtype); }));
  });
  AddFunction(interp, m.lax, "clamp", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "clamp", args, {"min", "x", "max"});
    Array x = ToArray(interp, *b[1]);
    Array lo = ToArray(interp, *b[0]);
    Array hi = ToArray(interp, *b[2]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Clamp(lo, x, hi); }));
  });
  AddFunction(interp, m.lax, "dynamic_slice", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "dynamic_slice", args, {"operand", "start_indices", "slice_sizes"});
    Array x = ToArray(interp, *b[0]);
    std::vector<Array> starts;
    for (const Value& v : interp.ToVector(*b[1])) starts.push_back(ToArray(interp, v));
    array::Shape sizes = ToShape(interp, *b[2]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::DynamicSlice(x, starts, sizes); }));
  });
  // lax's shifts: integers of one dtype, no promotion (a Python int is int32).
  using ShiftFn = Array (*)(const Array&, const Array&);
  const std::pair<const char*, ShiftFn> kLaxShifts[] = {
      {"shift_left", &array::ShiftLeft},
      {"shift_right_arithmetic", &array::ShiftRightArithmetic},
      {"shift_right_logical", &array::ShiftRightLogical}};
  for (const auto& [name, shift] : kLaxShifts) {
    std::string fn = name;
    ShiftFn op = shift;
    AddFunction(interp, m.lax, fn, [fn, op](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"x", "y"});
      Array x = ToArray(interp, *b[0]);
      Array y = ToArray(interp, *b[1]);
      return WrapArray(GuardArrayOp(interp, [&] { return op(x, y); }));
    });
  }

  // ---- reductions -----------------------------------------------------------------------------
  const std::pair<const char*, array::ReduceOp> kReduce[] = {
      {"sum", array::ReduceOp::kSum},       {"prod", array::ReduceOp::kProd},
      {"max", array::ReduceOp::kMax},       {"min", array::ReduceOp::kMin},
      {"amax", array::ReduceOp::kMax},      {"amin", array::ReduceOp::kMin},
      {"mean", array::ReduceOp::kMean},     {"any", array::ReduceOp::kAny},
      {"all", array::ReduceOp::kAll},       {"argmax", array::ReduceOp::kArgMax},
      {"argmin", array::ReduceOp::kArgMin},
  };
  for (const auto& [name, op] : kReduce) {
    array::ReduceOp kernel = op;
    std::string fn = name;
    AddFunction(interp, {&m.jnp, &m.np}, fn, [kernel, fn](Interpreter& interp, CallArgs& args) {
      return ReduceCall(interp, kernel, fn, args);
    });
  }
  auto logsumexp = [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "logsumexp", args, {"a", "axis=", "b=", "keepdims=", "return_sign="});
    Array a = ToArray(interp, *b[0]);
    std::optional<std::vector<int>> axes = b[1] ? ToAxes(interp, *b[1], a.rank()) : std::nullopt;
    if (b[2] && !b[2]->is_none()) {
      interp.Raise(interp.types().value_error, "`logsumexp(..., b=...)` is not supported");
    }
    bool keepdims = b[3] && interp.Truthy(*b[3]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::LogSumExp(a, axes, keepdims); }));
  };
  AddFunction(interp, m.nn, "logsumexp", logsumexp);
  AddFunction(interp, m.special, "logsumexp", logsumexp);
  AddFunction(interp, {&m.jnp, &m.np}, "cumsum", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "cumsum", args, {"a", "axis=", "dtype="});
    Array a = ToArray(interp, *b[0]);
    std::optional<int> axis;
    if (b[1] && !b[1]->is_none()) axis = (*ToAxes(interp, *b[1], a.rank()))[0];
    if (b[2] && !b[2]->is_none()) a = a.AsType(ToDType(interp, *b[2]));
    return WrapArray(GuardArrayOp(interp, [&] { return array::CumSum(a, axis); }));
  });

  // ---- jax.nn ---------------------------------------------------------------------------------
  for (const char* name : {"softmax", "log_softmax"}) {
    bool log = std::string_view(name) == "log_softmax";
    AddFunction(interp, m.nn, name, [name, log](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, name, args, {"x", "axis="});
      Array a = ToArray(interp, *b[0]);
      std::optional<std::vector<int>> axes =
          ToAxes(interp, b[1] ? *b[1] : Value::Int(-1), a.rank());
      return WrapArray(GuardArrayOp(
          interp, [&] { return log ? array::LogSoftmax(a, axes) : array::Softmax(a, axes); }));
    });
  }
  AddFunction(interp, m.nn, "relu", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "relu", args, {"x"});
    Value zero = Value::Int(0);
    array::PrimRecorder* recorder = array::detail::ActiveRecorder();
    Array x = ToArray(interp, *b[0]);
    if (recorder != nullptr && recorder->Follows(x)) {
      // Under differentiation, JAX's rule (a custom_jvp): the derivative is 0 at 0, not the
      // half that maximum's tie rule gives. where(x > 0, x, where(isnan(x), x, 0)) has
      // maximum's values (NaN stays NaN) and that derivative.
      return WrapArray(GuardArrayOp(interp, [&] {
        Array z = Array::Scalar(x.dtype(), 0.0);
        z.set_weak_type(true);
        Array inner = array::Where(array::Unary(UnaryOp::kIsNan, x), x, z);
        return array::Where(array::Binary(BinaryOp::kGt, x, z), x, inner);
      }));
    }
    return Bin(interp, BinaryOp::kMaximum, *b[0], zero);
  });
  AddFunction(interp, m.nn, "sigmoid", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "sigmoid", args, {"x"});
    return Un(interp, UnaryOp::kSigmoid, *b[0]);
  });
  AddFunction(interp, m.nn, "silu", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "silu", args, {"x"});
    Array x = ToArray(interp, *b[0]);
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::Binary(BinaryOp::kMul, x, array::Unary(UnaryOp::kSigmoid, x));
    }));
  });
  AddFunction(interp, m.nn, "gelu", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "gelu", args, {"x", "approximate="});
    Array x = ToArray(interp, *b[0]);
    bool approximate = !b[1] || interp.Truthy(*b[1]);
    auto scalar = [](double v) {
      Array s = Array::Scalar(DType::kFloat32, v);
      s.set_weak_type(true);
      return s;
    };
    return WrapArray(GuardArrayOp(interp, [&] {
      if (approximate) {
        // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        Array cube = array::Binary(BinaryOp::kMul, x, array::Binary(BinaryOp::kMul, x, x));
        Array inner =
            array::Binary(BinaryOp::kMul, scalar(std::sqrt(2.0 / M_PI)),
                          array::Binary(BinaryOp::kAdd, x,
                                        array::Binary(BinaryOp::kMul, scalar(0.044715), cube)));
        Array t = array::Binary(BinaryOp::kAdd, scalar(1.0), array::Unary(UnaryOp::kTanh, inner));
        return array::Binary(BinaryOp::kMul, array::Binary(BinaryOp::kMul, scalar(0.5), x), t);
      }
      // x * (1 + erf(x / sqrt(2))) / 2
      Array e =
          array::Unary(UnaryOp::kErf, array::Binary(BinaryOp::kDiv, x, scalar(std::sqrt(2.0))));
      return array::Binary(
          BinaryOp::kDiv,
          array::Binary(BinaryOp::kMul, x, array::Binary(BinaryOp::kAdd, scalar(1.0), e)),
          scalar(2.0));
    }));
  });
  AddFunction(interp, m.nn, "one_hot", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "one_hot", args, {"x", "num_classes", "*", "dtype=", "axis="});
    Array x = ToArray(interp, *b[0]);
    if (!b[1]->is_integral()) {
      interp.Raise(interp.types().type_error, "one_hot: num_classes must be an int");
    }
    int64_t classes = b[1]->integral();
    DType dtype = b[2] && !b[2]->is_none() ? ToDType(interp, *b[2]) : DType::kFloat32;
    if (b[3] && !b[3]->is_integral()) {
      interp.Raise(interp.types().type_error, "one_hot: axis must be an int");
    }
    int axis = b[3] ? static_cast<int>(b[3]->integral()) : -1;
    return WrapArray(GuardArrayOp(interp, [&] {
      array::Shape shape = x.shape();
      shape.push_back(classes);
      int last = static_cast<int>(shape.size()) - 1;
      Array iota = array::BroadcastedIota(DType::kInt32, shape, last);
      array::Shape expanded = x.shape();
      expanded.push_back(1);
      Array xe = x.Contiguous().View(expanded, array::ContiguousStrides(expanded), 0);
      Array hot = array::Binary(BinaryOp::kEq, xe, iota).AsType(dtype);
      // The class axis is built last, then moved where `axis` asks.
      return axis == -1 ? hot : array::MoveAxis(hot, {last}, {axis});
    }));
  });

  // ---- comparisons of whole arrays ---------------------------------------------------------
  for (const char* name : {"isclose", "allclose"}) {
    std::string fn = name;
    AddFunction(interp, {&m.jnp, &m.np}, fn, [fn](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, fn, args, {"a", "b", "rtol=", "atol=", "equal_nan="});
      Array a = ToArray(interp, *b[0]);
      Array c = ToArray(interp, *b[1]);
      double rtol = b[2] ? b[2]->number() : 1e-5;
      double atol = b[3] ? b[3]->number() : 1e-8;
      bool equal_nan = b[4] && interp.Truthy(*b[4]);
      Array close = IsClose(interp, a, c, rtol, atol, equal_nan);
      if (fn == "isclose") return WrapArray(std::move(close));
      return WrapArray(GuardArrayOp(interp, [&] {
        return array::Reduce(array::ReduceOp::kAll, close, std::nullopt, false);
      }));
    });
  }
  AddFunction(interp, {&m.jnp, &m.np}, "array_equal", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "array_equal", args, {"a1", "a2", "equal_nan="});
    Array a = ToArray(interp, *b[0]);
    Array c = ToArray(interp, *b[1]);
    if (a.shape() != c.shape()) return WrapArray(Array::Scalar(DType::kBool, 0));
    return WrapArray(GuardArrayOp(interp, [&] {
      return array::Reduce(array::ReduceOp::kAll, array::Binary(BinaryOp::kEq, a, c), std::nullopt,
                           false);
    }));
  });
}

}  // namespace pz::eval
