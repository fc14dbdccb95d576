// Reductions (reduce.h). The operand is first laid out as a contiguous [kept, reduced] matrix
// (no copy when the reduced axes are already trailing), then each row is reduced by a template
// kernel. Float sums and products follow JAX's CPU order (reduce_order.h).
#include "array/reduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "array/element.h"
#include "array/elementwise.h"
#include "array/prims.h"
#include "array/reduce_extreme.h"
#include "array/reduce_order.h"

namespace pz::array {

namespace {

// `a` as a contiguous matrix of `rows` x `cols`, where each row holds one output element's
// operands (the reduced axes, in order), and the output shape. When `columns` is set the matrix
// is stored transposed instead (cols x rows: the reduced axes lead), saving the copy.
struct Layout {
  Array data;
  int64_t rows = 0;
  int64_t cols = 0;
  Shape out_shape;
  bool columns = false;
  // The reduced dimensions longer than 1, outermost first (XLA's windows run along these).
  std::vector<int64_t> reduced_dims;
  // The elements YNNPACK sums as one contiguous run: the product of the trailing reduced
  // dimensions (extent-1 dimensions skipped); 0 when the last dimension longer than 1 is kept.
  int64_t k1 = 0;
};

std::vector<int> AllAxes(int rank) {
  std::vector<int> axes(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) axes[static_cast<size_t>(i)] = i;
  return axes;
}

// `allow_columns`: the caller's kernel handles Layout::columns.
Layout MakeLayout(const Array& a, const std::vector<int>& axes, bool keepdims, bool allow_columns) {
  std::vector<bool> reduced(static_cast<size_t>(a.rank()), false);
  for (int axis : axes) {
    if (axis < 0 || axis >= a.rank()) {
      ThrowValueError(
          fmt::format("axis {} is out of bounds for array of dimension {}", axis, a.rank()));
    }
    reduced[static_cast<size_t>(axis)] = true;
  }
  Layout layout;
  Shape shape;
  std::vector<int64_t> strides;
  layout.rows = 1;
  layout.cols = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < reduced.size(); ++i) {
      if (reduced[i] != (pass == 1)) continue;
      shape.push_back(a.shape()[i]);
      strides.push_back(a.strides()[i]);
      (pass == 0 ? layout.rows : layout.cols) *= a.shape()[i];
    }
  }
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (reduced[i] && a.shape()[i] != 1) layout.reduced_dims.push_back(a.shape()[i]);
  }
  layout.k1 = 1;
  for (size_t i = reduced.size(); i-- > 0;) {
    if (a.shape()[i] == 1) continue;
    if (!reduced[i]) {
      if (layout.k1 == 1) layout.k1 = 0;
      break;
    }
    layout.k1 *= a.shape()[i];
  }
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (!reduced[i]) {
      layout.out_shape.push_back(a.shape()[i]);
    } else if (keepdims) {
      layout.out_shape.push_back(1);
    }
  }
  bool leading = !axes.empty() && static_cast<int>(axes.size()) < a.rank();
  for (size_t i = 0; i < axes.size() && leading; ++i) leading = axes[i] == static_cast<int>(i);
  if (allow_columns && leading) {
    layout.columns = true;
    layout.data = a.Contiguous();
    return layout;
  }
  layout.data = a.View(shape, strides, a.offset()).Contiguous();
  return layout;
}

// Reduces every row of `layout` into out[row] with `row_fn(const Storage*, n)` → compute value.
template <DType In, DType Out, typename RowFn>
void ReduceRows(const Layout& layout, Array& out, RowFn row_fn) {
  const auto* in = layout.data.template data<StorageOf<In>>();
  auto* o = out.data<StorageOf<Out>>();
  for (int64_t r = 0; r < layout.rows; ++r) {
    o[r] =
        Element<Out>::Store(static_cast<ComputeOf<Out>>(row_fn(in + r * layout.cols, layout.cols)));
  }
}

// YNNPACK's sum of a row of `cols` floats handed to it in runs of `k1` (the trailing reduced
// dimensions), each run summed alone and the run sums added in order from 0.
float YnnRunsSum(const float* row, int64_t cols, int64_t k1) {
  float total = 0.0f;
  for (int64_t s = 0; s < cols; s += k1) total += YnnRowSum(row + s, k1);
  return total;
}

// Sums (products) of integers wrap like the dtype; of floats, in JAX's CPU order
// (reduce_order.h), accumulated in float32 and rounded once to the dtype.
template <DType D>
void SumOrProd(bool product, const Layout& layout, Array& out) {
  using C = ComputeOf<D>;
  if constexpr (std::is_same_v<C, float>) {
    Array f32 = D == DType::kFloat32 ? layout.data : layout.data.AsType(DType::kFloat32);
    const float* x = f32.data<float>();
    std::vector<float> sums(static_cast<size_t>(layout.rows), 0.0f);
    bool rows_of_k1 = layout.k1 > 0 && (!layout.columns || layout.rows == 1);
    if (product || !SumUsesYnnpack(layout.rows * layout.cols)) {
      for (int64_t k = 0; k < layout.rows; ++k) {
        sums[static_cast<size_t>(k)] =
            layout.columns ? XlaTreeReduce(x + k, layout.rows, layout.reduced_dims, product)
                           : XlaTreeReduce(x + k * layout.cols, 1, layout.reduced_dims, product);
      }
    } else if (rows_of_k1) {
      for (int64_t k = 0; k < layout.rows; ++k) {
        sums[static_cast<size_t>(k)] = YnnRunsSum(x + k * layout.cols, layout.cols, layout.k1);
      }
    } else {
      // The first reduced dimension is summed down columns; the others are loops around it.
      int64_t first = layout.reduced_dims.empty() ? 1 : layout.reduced_dims[0];
      int64_t rest = first == 0 ? 0 : layout.cols / first;
      for (int64_t t = 0; t < rest; ++t) {
        if (layout.columns) {
          YnnColumnSums(x + t * layout.rows, first, rest * layout.rows, layout.rows, sums.data());
        } else {
          for (int64_t k = 0; k < layout.rows; ++k) {
            YnnColumnSums(x + k * layout.cols + t, first, rest, 1, &sums[static_cast<size_t>(k)]);
          }
        }
      }
    }
    auto* o = out.data<StorageOf<D>>();
    for (int64_t k = 0; k < layout.rows; ++k)
      o[k] = Element<D>::Store(sums[static_cast<size_t>(k)]);
  } else if constexpr (std::is_same_v<C, int64_t>) {
    if (layout.columns) {
      const auto* x = layout.data.template data<StorageOf<D>>();
      auto* o = out.data<StorageOf<D>>();
      std::vector<uint64_t> acc(static_cast<size_t>(layout.rows), product ? 1 : 0);
      for (int64_t r = 0; r < layout.cols; ++r) {
        for (int64_t k = 0; k < layout.rows; ++k) {
          auto v = static_cast<uint64_t>(Element<D>::Load(x[r * layout.rows + k]));
          auto& a = acc[static_cast<size_t>(k)];
          a = product ? a * v : a + v;
        }
      }
      for (int64_t k = 0; k < layout.rows; ++k) {
        o[k] = Element<D>::Store(static_cast<int64_t>(acc[static_cast<size_t>(k)]));
      }
      return;
    }
    ReduceRows<D, D>(layout, out, [&](const StorageOf<D>* x, int64_t n) {
      uint64_t acc = product ? 1 : 0;
      for (int64_t i = 0; i < n; ++i) {
        auto v = static_cast<uint64_t>(Element<D>::Load(x[i]));
        acc = product ? acc * v : acc + v;
      }
      return static_cast<int64_t>(acc);
    });
  } else {
    PZ_UNREACHABLE();  // bools are summed as int32
  }
}

template <DType D>
void Extreme(bool is_max, const Layout& layout, Array& out) {
  ReduceRows<D, D>(layout, out,
                   [&](const StorageOf<D>* x, int64_t n) { return ExtremeRow<D>(is_max, x, n); });
}

// A float32 max, min or sum over the last axis of a contiguous array, the kernels' common
// reduction, without the general path's layout: each row reduced as that path reduces it.
// nullopt for anything else.
std::optional<Array> LastAxisF32(ReduceOp op, const Array& a,
                                 const std::optional<std::vector<int>>& axes, bool keepdims,
                                 std::optional<DType> dtype) {
  if (!a.IsContiguous()) return std::nullopt;
  std::optional<LastAxisReduction> reduction =
      LastAxisReduction::For(op, a.dtype(), a.shape(), axes, dtype);
  if (!reduction) return std::nullopt;
  Shape shape = a.shape();
  if (keepdims) {
    shape.back() = 1;
  } else {
    shape.pop_back();
  }
  Array out = Array::Empty(DType::kFloat32, std::move(shape));
  const float* x = a.data<float>();
  float* o = out.data<float>();
  reduction->Rows(x, a.size() / reduction->row_length(), o);
  return out;
}

// Index of the first maximum (minimum) of one row; the first NaN wins.
template <DType D>
void ArgExtreme(bool is_max, const Layout& layout, Array& out) {
  using C = ComputeOf<D>;
  ReduceRows<D, DType::kInt32>(layout, out, [&](const StorageOf<D>* x, int64_t n) {
    C best = Element<D>::Load(x[0]);
    int64_t where = 0;
    for (int64_t i = 1; i < n; ++i) {
      C v = Element<D>::Load(x[i]);
      if constexpr (std::is_same_v<C, float>) {
        if (std::isnan(best)) break;
        if (std::isnan(v) || (is_max ? v > best : v < best)) best = v, where = i;
      } else {
        if (is_max ? v > best : v < best) best = v, where = i;
      }
    }
    return where;
  });
}

template <DType D>
void AnyAll(bool is_any, const Layout& layout, Array& out) {
  ReduceRows<D, D>(layout, out, [&](const StorageOf<D>* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      if ((x[i] != 0) == is_any) return is_any;
    }
    return !is_any;
  });
}

bool HasIdentity(ReduceOp op) {
  return op != ReduceOp::kMax && op != ReduceOp::kMin && op != ReduceOp::kArgMax &&
         op != ReduceOp::kArgMin;
}

}  // namespace

std::optional<LastAxisReduction> LastAxisReduction::For(ReduceOp op, DType dtype,
                                                        const Shape& shape,
                                                        const std::optional<std::vector<int>>& axes,
                                                        std::optional<DType> result_dtype) {
  auto rank = static_cast<int>(shape.size());
  if (dtype != DType::kFloat32 || (result_dtype && *result_dtype != DType::kFloat32) || rank < 1 ||
      !axes || axes->size() != 1 || (*axes)[0] != rank - 1 ||
      (op != ReduceOp::kSum && op != ReduceOp::kMax && op != ReduceOp::kMin)) {
    return std::nullopt;
  }
  int64_t n = shape.back();
  if (n < 2) return std::nullopt;
  return LastAxisReduction(op, op == ReduceOp::kSum && SumUsesYnnpack(NumElements(shape)), n);
}

void LastAxisReduction::Rows(const float* x, int64_t rows, float* out) const {
  if (op_ == ReduceOp::kSum && ynn_) {
    YnnRowSums(x, rows, n_, out);
    for (int64_t r = 0; r < rows; ++r) out[r] = 0.0f + out[r];  // as YnnRunsSum adds the run
    return;
  }
  if (op_ != ReduceOp::kSum && ExtremeF32Rows(op_ == ReduceOp::kMax, x, rows, n_, out)) return;
  const int64_t dims[1] = {n_};
  for (int64_t r = 0; r < rows; ++r) {
    out[r] = op_ == ReduceOp::kSum
                 ? XlaTreeReduce(x + r * n_, 1, dims, false)
                 : ExtremeRow<DType::kFloat32>(op_ == ReduceOp::kMax, x + r * n_, n_);
  }
}

std::string_view ReduceName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kProd:
      return "prod";
    case ReduceOp::kMax:
      return "max";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMean:
      return "mean";
    case ReduceOp::kAny:
      return "any";
    case ReduceOp::kAll:
      return "all";
    case ReduceOp::kArgMax:
      return "argmax";
    case ReduceOp::kArgMin:
      return "argmin";
  }
  return "?";
}

DType SumDType(DType d) {
  if (IsBool(d) || d == DType::kInt8 || d == DType::kInt16) return DType::kInt32;
  if (d == DType::kUInt8 || d == DType::kUInt16) return DType::kUInt32;
  return d;
}

Array Reduce(ReduceOp op, const Array& a, std::optional<std::vector<int>> axes, bool keepdims,
             std::optional<DType> dtype) {
  if (op == ReduceOp::kMean) {
    // jnp.mean: the float32 sum times 1/count in float32 (XLA turns the division by the count
    // into a multiplication by its reciprocal), then rounded to the dtype.
    DType result = dtype.value_or(IsFloating(a.dtype()) ? a.dtype() : DType::kFloat32);
    int64_t count = 1;
    if (axes) {
      for (int axis : *axes) {
        if (axis >= 0 && axis < a.rank()) count *= a.shape()[static_cast<size_t>(axis)];
      }
    } else {
      count = a.size();
    }
    Array sum = Reduce(ReduceOp::kSum, a, std::move(axes), keepdims, DType::kFloat32);
    Array scale = Array::Scalar(DType::kFloat32, 1.0f / static_cast<float>(count));
    return Binary(BinaryOp::kMul, sum, scale).AsType(result);
  }
  if (Recording()) {
    return RecordPrimitive({PrimOf(op), ReduceAttrs{axes, keepdims, dtype}}, {a},
                           [&] { return Reduce(op, a, axes, keepdims, dtype); });
  }
  if (std::optional<Array> fast = LastAxisF32(op, a, axes, keepdims, dtype)) return *fast;
  bool arg = op == ReduceOp::kArgMax || op == ReduceOp::kArgMin;
  if (arg && axes && axes->size() != 1) {
    ThrowTypeError(fmt::format("{} takes a single axis, got {}", ReduceName(op), axes->size()));
  }
  std::vector<int> reduced = axes ? *axes : AllAxes(a.rank());
  if (!HasIdentity(op)) {
    for (int axis : reduced) {
      if (axis >= 0 && axis < a.rank() && a.shape()[static_cast<size_t>(axis)] == 0) {
        ThrowValueError(arg ? fmt::format("attempt to get {} of an empty sequence", ReduceName(op))
                            : fmt::format("zero-size array to reduction operation {} which has "
                                          "no identity",
                                          ReduceName(op)));
      }
    }
    if (a.size() == 0 && reduced.empty() && arg) {
      ThrowValueError(fmt::format("attempt to get {} of an empty sequence", ReduceName(op)));
    }
  }
  // The dtype the kernel runs on (mean sums in float32 and rounds after dividing).
  DType work = a.dtype();
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kProd:
      work = dtype.value_or(SumDType(a.dtype()));
      break;
    case ReduceOp::kMean:
      work = DType::kFloat32;
      break;
    case ReduceOp::kAny:
    case ReduceOp::kAll:
      work = DType::kBool;
      break;
    default:
      break;
  }
  Array source = a.dtype() == work ? a : a.AsType(work);
  if (arg && !axes) {
    source = source.Contiguous().View({source.size()}, {1}, 0);
    reduced = {0};
  }
  bool sum_like = op == ReduceOp::kSum || op == ReduceOp::kProd || op == ReduceOp::kMean;
  Layout layout = MakeLayout(source, reduced, keepdims && (!arg || axes), sum_like);
  if (arg && !axes && keepdims) layout.out_shape = Shape(static_cast<size_t>(a.rank()), 1);
  Array out = Array::Zeros(arg ? DType::kInt32 : work, layout.out_shape);
  DispatchDType(work, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean:
      case ReduceOp::kProd:
        if constexpr (D != DType::kBool) SumOrProd<D>(op == ReduceOp::kProd, layout, out);
        return;
      case ReduceOp::kMax:
      case ReduceOp::kMin:
        return Extreme<D>(op == ReduceOp::kMax, layout, out);
      case ReduceOp::kArgMax:
      case ReduceOp::kArgMin:
        return ArgExtreme<D>(op == ReduceOp::kArgMax, layout, out);
      case ReduceOp::kAny:
      case ReduceOp::kAll:
        return AnyAll<D>(op == ReduceOp::kAny, layout, out);
    }
  });
  return out;
}

}  // namespace pz::array
