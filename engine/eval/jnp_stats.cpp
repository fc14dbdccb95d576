// Statistics (var, std, median, count_nonzero), diagonals (diag, diagonal, trace), outer and
// jnp.linalg.norm, each composed from array ops in the order JAX composes them.
#include "eval/jnp_stats.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "array/creation.h"
#include "array/elementwise.h"
#include "array/linalg.h"
#include "array/reduce.h"
#include "array/shape_ops.h"
#include "array/stats.h"

namespace pz::eval {

using array::Array;
using array::BinaryOp;
using array::DType;
using array::ReduceOp;
using array::UnaryOp;

namespace {

bool Given(const std::optional<Value>& v) { return v && !v->is_none(); }

std::optional<std::vector<int>> OptionalAxes(Interpreter& interp, const std::optional<Value>& v,
                                             int rank) {
  return Given(v) ? ToAxes(interp, *v, rank) : std::nullopt;
}

int64_t IntArg(Interpreter& interp, const std::optional<Value>& v, int64_t fallback,
               std::string_view what) {
  if (!Given(v)) return fallback;
  if (!v->is_integral()) {
    interp.Raise(interp.types().type_error,
                 fmt::format("{} must be an int, got {}", what, interp.TypeName(*v)));
  }
  return v->integral();
}

int AxisArg(Interpreter& interp, const std::optional<Value>& v, int fallback, int rank) {
  if (!Given(v)) return fallback;
  return (*ToAxes(interp, *v, rank))[0];
}

// The diagonal jnp.diagonal and jnp.trace take: (a, offset=0, axis1=0, axis2=1, ...).
Array DiagonalOf(Interpreter& interp, const std::vector<std::optional<Value>>& b) {
  Array a = ToArray(interp, *b[0]);
  int64_t offset = IntArg(interp, b[1], 0, "offset");
  if (a.rank() < 2) {
    interp.Raise(interp.types().value_error,
                 "diagonal requires an array of at least two dimensions.");
  }
  int axis1 = AxisArg(interp, b[2], 0, a.rank());
  int axis2 = AxisArg(interp, b[3], 1, a.rank());
  return GuardArrayOp(interp, [&] { return array::Diagonal(a, offset, axis1, axis2); });
}

// var and std: (a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
// mean=None, correction=None).
Value VarianceCall(Interpreter& interp, CallArgs& args, bool sqrt) {
  const char* name = sqrt ? "std" : "var";
  auto b = BindArgs(interp, name, args,
                    {"a", "axis=", "dtype=", "out=", "ddof=", "keepdims=", "*",
                     "where=", "mean=", "correction="});
  Array a = ToArray(interp, *b[0]);
  std::optional<std::vector<int>> axes = OptionalAxes(interp, b[1], a.rank());
  std::optional<DType> dtype;
  if (Given(b[2])) dtype = ToDType(interp, *b[2]);
  if (Given(b[3])) {
    interp.Raise(interp.types().not_implemented_error,
                 fmt::format("The 'out' argument to jnp.{} is not supported.", name));
  }
  if (Given(b[7])) {
    interp.Raise(interp.types().not_implemented_error,
                 fmt::format("jnp.{}(..., mean=...) is not supported; leave it out and the mean "
                             "is computed from `a`",
                             name));
  }
  double correction = 0;
  if (Given(b[4])) correction = b[4]->number();
  if (Given(b[8])) {
    if (Given(b[4]) && correction != 0) {
      interp.Raise(interp.types().value_error,
                   "ddof and correction can't be provided simultaneously.");
    }
    correction = b[8]->number();
  }
  bool keepdims = Given(b[5]) && interp.Truthy(*b[5]);
  std::optional<Array> where;
  if (Given(b[6])) where = ToArray(interp, *b[6]);
  return WrapArray(GuardArrayOp(
      interp, [&] { return array::Variance(a, axes, keepdims, dtype, correction, where, sqrt); }));
}

Array Sum(const Array& a, std::optional<std::vector<int>> axes, bool keepdims,
          std::optional<DType> dtype = std::nullopt) {
  return array::Reduce(ReduceOp::kSum, a, std::move(axes), keepdims, dtype);
}

// max(x, initial=0) / min(x) over `axes`, as jnp.linalg.norm calls them.
Array Extreme(const Array& x, bool max, std::vector<int> axes, bool keepdims) {
  if (!max) return array::Reduce(ReduceOp::kMin, x, std::move(axes), keepdims);
  return array::ReduceWhere(ReduceOp::kMax, x, std::move(axes), keepdims, std::nullopt,
                            std::nullopt, Array::Scalar(DType::kInt32, 0));
}

Array SquareRootOfSumOfSquares(const Array& x, std::optional<std::vector<int>> axes,
                               bool keepdims) {
  return array::Unary(UnaryOp::kSqrt, Sum(array::Binary(BinaryOp::kMul, x, x), axes, keepdims));
}

// The `ord` argument of jnp.linalg.norm: None, a number (inf included) or a string.
struct NormOrder {
  bool none = true;
  double number = 0;
  std::string name;  // "fro", "nuc", ... when given as a string
};

NormOrder ToNormOrder(Interpreter& interp, const std::optional<Value>& v) {
  NormOrder order;
  if (!Given(v)) return order;
  order.none = false;
  if (auto* s = v->as<StrObject>()) {
    order.name = s->value;
  } else if (v->is_number()) {
    order.number = v->number();
  } else {
    interp.Raise(
        interp.types().type_error,
        fmt::format("ord must be None, a number or a string, got {}", interp.TypeName(*v)));
  }
  return order;
}

Array VectorNorm(const Array& x, const NormOrder& ord, int axis, bool keepdims) {
  std::vector<int> axes{axis};
  if (!ord.name.empty()) {
    std::string message = fmt::format("Invalid order '{}' for vector norm.", ord.name);
    if (ord.name == "inf") message += "Use 'jax.numpy.inf' instead.";
    if (ord.name == "-inf") message += "Use '-jax.numpy.inf' instead.";
    array::ThrowValueError(message);
  }
  double p = ord.none ? 2 : ord.number;
  Array magnitude = array::Unary(UnaryOp::kAbs, x);
  if (p == 2) return SquareRootOfSumOfSquares(x, axes, keepdims);
  if (p == INFINITY) return Extreme(magnitude, true, axes, keepdims);
  if (p == -INFINITY) return Extreme(magnitude, false, axes, keepdims);
  if (p == 0) {
    return Sum(array::Binary(BinaryOp::kNe, x, Array::Scalar(x.dtype(), 0)), axes, keepdims,
               x.dtype());
  }
  if (p == 1) return Sum(magnitude, axes, keepdims);
  // sum(|x| ** p) ** (1 / p), with p and 1 / p constants of x's dtype.
  Array power = Array::Scalar(x.dtype(), p);
  Array inverse = array::Binary(BinaryOp::kDiv, Array::Scalar(x.dtype(), 1), power);
  Array total = Sum(array::Binary(BinaryOp::kPow, magnitude, power), axes, keepdims);
  return array::Binary(BinaryOp::kPow, total, inverse);
}

Array MatrixNorm(const Array& x, const NormOrder& ord, int row, int col, bool keepdims) {
  Array magnitude = array::Unary(UnaryOp::kAbs, x);
  if (ord.none || ord.name == "f" || ord.name == "fro") {
    return SquareRootOfSumOfSquares(x, std::vector<int>{std::min(row, col), std::max(row, col)},
                                    keepdims);
  }
  bool is_number = ord.name.empty();
  if (is_number && (ord.number == 1 || ord.number == -1)) {
    // Column sums, then their max (min).
    if (!keepdims && col > row) col -= 1;
    Array sums = Sum(magnitude, std::vector<int>{row}, keepdims);
    return Extreme(sums, ord.number == 1, {col}, keepdims);
  }
  if (is_number && std::isinf(ord.number)) {
    // Row sums, then their max (min).
    if (!keepdims && row > col) row -= 1;
    Array sums = Sum(magnitude, std::vector<int>{col}, keepdims);
    return Extreme(sums, ord.number > 0, {row}, keepdims);
  }
  if (ord.name == "nuc" || (is_number && (ord.number == 2 || ord.number == -2))) {
    Array moved = array::MoveAxis(x, {row, col}, {-2, -1});
    Array s = array::SingularValues(moved);
    Array y;
    if (ord.name == "nuc") {
      y = Sum(s, std::vector<int>{s.rank() - 1}, false);
    } else {
      y = Extreme(s, ord.number == 2, {s.rank() - 1}, false);
    }
    return keepdims ? array::ExpandDims(y, {std::min(row, col), std::max(row, col)}) : y;
  }
  std::string shown = is_number ? fmt::format("{}", ord.number) : ord.name;
  array::ThrowValueError(fmt::format("Invalid order '{}' for matrix norm.", shown));
}

Value NormCall(Interpreter& interp, CallArgs& args) {
  auto b = BindArgs(interp, "norm", args, {"x", "ord=", "axis=", "keepdims="});
  Array x = ToArray(interp, *b[0]);
  if (!array::IsFloating(x.dtype())) x = x.AsType(DType::kFloat32);
  NormOrder ord = ToNormOrder(interp, b[1]);
  bool keepdims = Given(b[3]) && interp.Truthy(*b[3]);
  std::vector<int> axes;
  if (Given(b[2])) {
    axes = *ToAxes(interp, *b[2], x.rank());
    // ToAxes sorts; the order of a two-axis tuple picks rows and columns.
    if (auto* t = b[2]->as<TupleObject>(); t && t->items.size() == 2) {
      axes = {AxisArg(interp, t->items[0], 0, x.rank()), AxisArg(interp, t->items[1], 1, x.rank())};
    }
  } else if (ord.none) {
    return WrapArray(
        GuardArrayOp(interp, [&] { return SquareRootOfSumOfSquares(x, std::nullopt, keepdims); }));
  } else {
    for (int d = 0; d < x.rank(); ++d) axes.push_back(d);
  }
  return WrapArray(GuardArrayOp(interp, [&] {
    if (axes.size() == 1) return VectorNorm(x, ord, axes[0], keepdims);
    if (axes.size() == 2) return MatrixNorm(x, ord, axes[0], axes[1], keepdims);
    // JAX names the axes it normalised (all of them when `axis` was None).
    std::string shown = axes.size() == 1 ? fmt::format("({},)", axes[0])
                                         : fmt::format("({})", fmt::join(axes, ", "));
    array::ThrowValueError(
        fmt::format("Improper number of axes for norm: axis={}. Pass one axis "
                    "to compute a vector-norm, or two axes to compute a "
                    "matrix-norm.",
                    shown));
  }));
}

}  // namespace

void InstallArrayStats(Interpreter& interp, const ArrayModules& m) {
  AddFunction(interp, {&m.jnp, &m.np}, "var", [](Interpreter& interp, CallArgs& args) {
    return VarianceCall(interp, args, false);
  });
  AddFunction(interp, {&m.jnp, &m.np}, "std",
              [](Interpreter& interp, CallArgs& args) { return VarianceCall(interp, args, true); });
  AddFunction(interp, {&m.jnp, &m.np}, "median", [](Interpreter& interp, CallArgs& args) {
    auto b =
        BindArgs(interp, "median", args, {"a", "axis=", "out=", "overwrite_input=", "keepdims="});
    Array a = ToArray(interp, *b[0]);
    std::optional<std::vector<int>> axes = OptionalAxes(interp, b[1], a.rank());
    bool keepdims = Given(b[4]) && interp.Truthy(*b[4]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::Median(a, axes, keepdims); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "count_nonzero", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "count_nonzero", args, {"a", "axis=", "keepdims="});
    Array a = ToArray(interp, *b[0]);
    std::optional<std::vector<int>> axes = OptionalAxes(interp, b[1], a.rank());
    bool keepdims = Given(b[2]) && interp.Truthy(*b[2]);
    return WrapArray(GuardArrayOp(interp, [&] { return array::CountNonzero(a, axes, keepdims); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "outer", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "outer", args, {"a", "b", "out="});
    Array a = ToArray(interp, *b[0]);
    Array c = ToArray(interp, *b[1]);
    return WrapArray(GuardArrayOp(interp, [&] {
      Array column = array::Reshape(a, {a.size(), 1});
      Array row = array::Reshape(c, {1, c.size()});
      return array::Binary(BinaryOp::kMul, column, row);
    }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "diag", [](Interpreter& interp, CallArgs& args) {
    auto b = BindArgs(interp, "diag", args, {"v", "k="});
    Array v = ToArray(interp, *b[0]);
    int64_t k = IntArg(interp, b[1], 0, "k");
    return WrapArray(GuardArrayOp(interp, [&] { return array::Diag(v, k); }));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "diagonal", [](Interpreter& interp, CallArgs& args) {
    return WrapArray(DiagonalOf(
        interp, BindArgs(interp, "diagonal", args, {"a", "offset=", "axis1=", "axis2="})));
  });
  AddFunction(interp, {&m.jnp, &m.np}, "trace", [](Interpreter& interp, CallArgs& args) {
    auto b =
        BindArgs(interp, "trace", args, {"a", "offset=", "axis1=", "axis2=", "dtype=", "out="});
    Array d = DiagonalOf(interp, b);
    std::optional<DType> dtype;
    if (Given(b[4])) dtype = ToDType(interp, *b[4]);
    return WrapArray(
        GuardArrayOp(interp, [&] { return Sum(d, std::vector<int>{d.rank() - 1}, false, dtype); }));
  });

  for (const char* module : {"jax.numpy.linalg", "numpy.linalg"}) {
    ModuleObject& linalg = *interp.FindModule(module);
    AddFunction(interp, linalg, "norm", NormCall);
    AddFunction(interp, linalg, "svdvals", [](Interpreter& interp, CallArgs& args) {
      auto b = BindArgs(interp, "svdvals", args, {"x"});
      Array x = ToArray(interp, *b[0]);
      return WrapArray(GuardArrayOp(interp, [&] { return array::SingularValues(x); }));
    });
  }
}

}  // namespace pz::eval
