// ReduceWhere, Variance, CountNonzero and Median (stats.h), each the op sequence of JAX's
// jax/_src/numpy/reductions.py so results round where JAX's do.
#include "array/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "array/broadcast.h"
#include "array/creation.h"
#include "array/element.h"
#include "array/elementwise.h"
#include "array/shape_ops.h"
#include "array/sort.h"

namespace pz::array {

namespace {

DType UpcastHalf(DType d) {
  return d == DType::kBFloat16 || d == DType::kFloat16 ? DType::kFloat32 : d;
}

DType ToInexact(DType d) { return IsFloating(d) ? d : DType::kFloat32; }

// The lowest (or highest) value of an integer dtype.
double IntegerLimit(DType dtype, bool lowest) {
  double limit = 0;
  DispatchDType(dtype, [&](auto tag) {
    using S = StorageOf<decltype(tag)::value>;
    if constexpr (std::is_integral_v<S>) {
      limit = static_cast<double>(lowest ? std::numeric_limits<S>::min()
                                         : std::numeric_limits<S>::max());
    }
  });
  return limit;
}

// The identity of `op` in `dtype`: what masked-out elements become.
Array Identity(ReduceOp op, DType dtype) {
  double value = 0;
  switch (op) {
    case ReduceOp::kProd:
    case ReduceOp::kAll:
      value = 1;
      break;
    case ReduceOp::kMax:
      value = IsFloating(dtype) ? -INFINITY : IsBool(dtype) ? 0 : IntegerLimit(dtype, true);
      break;
    case ReduceOp::kMin:
      value = IsFloating(dtype) ? INFINITY : IsBool(dtype) ? 1 : IntegerLimit(dtype, false);
      break;
    default:
      break;
  }
  return Array::Scalar(dtype, value);
}

BinaryOp Combiner(ReduceOp op, DType dtype) {
  switch (op) {
    case ReduceOp::kProd:
      return IsBool(dtype) ? BinaryOp::kLogicalAnd : BinaryOp::kMul;
    case ReduceOp::kMax:
      return BinaryOp::kMaximum;
    case ReduceOp::kMin:
      return BinaryOp::kMinimum;
    case ReduceOp::kAny:
      return BinaryOp::kLogicalOr;
    case ReduceOp::kAll:
      return BinaryOp::kLogicalAnd;
    default:
      return IsBool(dtype) ? BinaryOp::kLogicalOr : BinaryOp::kAdd;
  }
}

void CheckMask(std::string_view name, const Array& where) {
  if (!IsBool(where.dtype())) {
    ThrowValueError(
        fmt::format("jnp.{}: where must be None or a boolean array; got "
                    "where.dtype=dtype('{}').",
                    name, DTypeName(where.dtype())));
  }
}

std::vector<int> ReducedAxes(const std::optional<std::vector<int>>& axes, int rank) {
  if (axes) return *axes;
  std::vector<int> all(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) all[static_cast<size_t>(i)] = i;
  return all;
}

// The number of elements each result counts: the product of the reduced extents, or (with a
// mask) the per-result number of true mask entries, in `dtype`.
Array Count(const Array& a, const std::optional<std::vector<int>>& axes, bool keepdims,
            const std::optional<Array>& where, DType dtype) {
  if (!where) {
    int64_t count = 1;
    for (int axis : ReducedAxes(axes, a.rank())) count *= a.shape()[static_cast<size_t>(axis)];
    return Array::Scalar(dtype, static_cast<double>(count));
  }
  Array mask = BroadcastTo(*where, a.shape());
  return Reduce(ReduceOp::kSum, mask, axes, keepdims, dtype);
}

}  // namespace

Array ReduceWhere(ReduceOp op, const Array& a, std::optional<std::vector<int>> axes, bool keepdims,
                  std::optional<DType> dtype, const std::optional<Array>& where,
                  const std::optional<Array>& initial) {
  std::string_view name = ReduceName(op);
  if (op == ReduceOp::kArgMax || op == ReduceOp::kArgMin) {
    ThrowTypeError(fmt::format("{}() got an unexpected keyword argument 'where'", name));
  }
  if (where) CheckMask(name, *where);
  if (op == ReduceOp::kMean) {
    if (initial) ThrowTypeError("mean() got an unexpected keyword argument 'initial'");
    if (!where) return Reduce(op, a, axes, keepdims, dtype);
    // jnp.mean: sum(a, where) / count(where), in float32 for 16-bit floats.
    DType result = dtype.value_or(ToInexact(a.dtype()));
    DType work = UpcastHalf(result);
    Array total = ReduceWhere(ReduceOp::kSum, a, axes, keepdims, work, where, std::nullopt);
    return Binary(BinaryOp::kDiv, total, Count(a, axes, keepdims, where, work)).AsType(result);
  }
  bool has_identity = op != ReduceOp::kMax && op != ReduceOp::kMin;
  if (!initial && !has_identity && where) {
    ThrowValueError(
        fmt::format("reduction operation {} does not have an identity, so to use a "
                    "where mask one has to specify 'initial'",
                    name));
  }
  bool sum_like = op == ReduceOp::kSum || op == ReduceOp::kProd;
  DType result = a.dtype();
  if (op == ReduceOp::kAny || op == ReduceOp::kAll) {
    result = DType::kBool;
  } else if (dtype) {
    result = *dtype;
  } else if (sum_like) {
    result = SumDType(a.dtype());
  }
  DType work = sum_like ? UpcastHalf(result) : result;
  Array x = a.AsType(work);
  Array identity = Identity(op, work);
  if (where) x = Where(*where, x, identity);
  std::vector<int> reduced = ReducedAxes(axes, x.rank());
  Array out;
  bool empty = std::any_of(reduced.begin(), reduced.end(),
                           [&](int axis) { return x.shape()[static_cast<size_t>(axis)] == 0; });
  if (empty && !has_identity) {
    if (!initial) return Reduce(op, x, axes, keepdims);  // raises JAX's "no identity" error
    // An empty max/min starts from (and ends at) the identity; `initial` then decides.
    Shape shape;
    for (int d = 0; d < x.rank(); ++d) {
      bool gone = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
      if (!gone || keepdims) shape.push_back(gone ? 1 : x.shape()[static_cast<size_t>(d)]);
    }
    out = BroadcastTo(identity, shape);
  } else {
    out = Reduce(op, x, axes, keepdims, sum_like ? std::optional<DType>(work) : std::nullopt);
  }
  if (initial) {
    if (initial->rank() != 0) {
      ThrowValueError(fmt::format("initial value must be a scalar. Got array of shape {}",
                                  ShapeToString(initial->shape())));
    }
    out = Binary(Combiner(op, work), initial->AsType(work), out);
  }
  return out.AsType(result).Contiguous();
}

Array Variance(const Array& a, std::optional<std::vector<int>> axes, bool keepdims,
               std::optional<DType> dtype, double correction, const std::optional<Array>& where,
               bool sqrt) {
  std::string_view name = sqrt ? "std" : "var";
  if (where) CheckMask(name, *where);
  if (sqrt && dtype && !IsFloating(*dtype)) {
    ThrowValueError(
        fmt::format("dtype argument to jnp.std must be inexact; got {}", DTypeName(*dtype)));
  }
  // JAX's _var_promote_types: integers become float32; 16-bit floats compute in float32.
  DType result = dtype.value_or(ToInexact(a.dtype()));
  DType work = UpcastHalf(dtype.value_or(ToInexact(a.dtype())));
  Array x = a.AsType(work);
  Array mean = ReduceWhere(ReduceOp::kMean, x, axes, true, work, where, std::nullopt);
  Array centered = Binary(BinaryOp::kSub, x, mean);
  Array squares = Binary(BinaryOp::kMul, centered, centered);
  Array normalizer = Binary(BinaryOp::kSub, Count(x, axes, keepdims, where, work),
                            Array::Scalar(work, correction));
  Array total = ReduceWhere(ReduceOp::kSum, squares, axes, keepdims, work, where, std::nullopt);
  // `correction` reaches JAX's jitted _var as a traced argument, so the normalizer is not a
  // constant and XLA divides by it exactly (no multiplication by a reciprocal as in jnp.mean).
  Array var = Binary(BinaryOp::kDiv, total, BroadcastTo(normalizer, total.shape()).Contiguous());
  var = var.AsType(result);
  Array positive = Binary(BinaryOp::kGt, normalizer, Array::Scalar(work, 0));
  var = Where(positive, var, Array::Scalar(result, NAN));
  return sqrt ? Unary(UnaryOp::kSqrt, var) : var;
}

Array CountNonzero(const Array& a, std::optional<std::vector<int>> axes, bool keepdims) {
  Array nonzero = Binary(BinaryOp::kNe, a, Array::Scalar(a.dtype(), 0));
  return Reduce(ReduceOp::kSum, nonzero, std::move(axes), keepdims, DType::kInt32);
}

Array Median(const Array& a, std::optional<std::vector<int>> axes, bool keepdims) {
  DType dtype = ToInexact(a.dtype());
  Array x = a.AsType(dtype);
  std::vector<int> reduced = ReducedAxes(axes, x.rank());
  // Kept axes first, reduced axes last, flattened into rows.
  Axes order;
  Shape kept_shape;
  Shape keepdims_shape = x.shape();
  int64_t n = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) {
      order.push_back(d);
      kept_shape.push_back(x.shape()[static_cast<size_t>(d)]);
    }
  }
  for (int d : reduced) {
    order.push_back(d);
    n *= x.shape()[static_cast<size_t>(d)];
    keepdims_shape[static_cast<size_t>(d)] = 1;
  }
  int64_t rows = NumElements(kept_shape);
  Array flat = Reshape(Transpose(x, order), {rows, n});
  Array sorted = Sort(flat, 1);
  std::vector<double> values = sorted.ToDoubles();
  // JAX: q = 0.5 * (n - 1) in float32; low = floor(q), high = ceil(q), clamped to [0, n - 1].
  float q = 0.5f * (static_cast<float>(n) - 1.0f);
  int64_t low =
      std::clamp(static_cast<int64_t>(std::floor(q)), int64_t{0}, std::max<int64_t>(n - 1, 0));
  int64_t high =
      std::clamp(static_cast<int64_t>(std::ceil(q)), int64_t{0}, std::max<int64_t>(n - 1, 0));
  std::vector<double> medians(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = values.data() + r * n;
    // A row with a NaN gives NaN (sorting puts NaNs last).
    if (n == 0 || std::isnan(row[n - 1])) {
      medians[static_cast<size_t>(r)] = NAN;
      continue;
    }
    float sum = RoundToDType(static_cast<float>(row[low]) + static_cast<float>(row[high]), dtype);
    medians[static_cast<size_t>(r)] = RoundToDType(sum * 0.5f, dtype);
  }
  return Array::FromDoubles(dtype, keepdims ? keepdims_shape : kept_shape, medians);
}

}  // namespace pz::array
