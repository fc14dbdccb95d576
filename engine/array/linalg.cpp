// lax.dot_general, jnp.dot and jnp.matmul. DotGeneral validates the dimension numbers, views both
// operands as (batch, M, K) and (batch, K, N) matrices (in place when Eigen can read their layout,
// else as contiguous copies) and runs one GEMM per batch: Eigen in float32 for floating inputs
// (the copy built for this CPU, gemm.h), an exact 64-bit integer loop for integers and bools.
// Dot and Matmul only choose dimension numbers (and broadcast Matmul's batch axes).
#include "array/linalg.h"

#include <fmt/format.h>

#include <Eigen/Core>
#include <Eigen/SVD>
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "array/element.h"
#include "array/gemm.h"
#include "array/prims.h"
#include "array/shape_ops.h"

namespace pz::array {
namespace {

std::string AxesToString(const std::vector<int>& axes) {
  Shape as_shape(axes.begin(), axes.end());
  return ShapeToString(as_shape);
}

// Normalises each axis into [0, rank), rejecting out-of-range and repeated axes.
void NormalizeAxes(std::vector<int>& axes, int rank, std::vector<bool>& used,
                   std::string_view fn_name, std::string_view what, const Shape& shape) {
  for (int& axis : axes) {
    if (axis < -rank || axis >= rank) {
      ThrowValueError(fmt::format("`{}` {} axis {} is out of bounds for an operand of shape {}",
                                  fn_name, what, axis, ShapeToString(shape)));
    }
    if (axis < 0) axis += rank;
    if (used[axis]) {
      ThrowValueError(fmt::format("`{}` uses axis {} of an operand of shape {} more than once",
                                  fn_name, axis, ShapeToString(shape)));
    }
    used[axis] = true;
  }
}

// A view of `a` with its axes reordered: result axis i is axis perm[i] of `a`.
Array Permute(const Array& a, const std::vector<int>& perm) {
  Shape shape;
  std::vector<int64_t> strides;
  for (int axis : perm) {
    shape.push_back(a.shape()[axis]);
    strides.push_back(a.strides()[axis]);
  }
  return a.View(std::move(shape), std::move(strides), a.offset());
}

int64_t Product(const Shape& shape, const std::vector<int>& axes) {
  int64_t n = 1;
  for (int axis : axes) n *= shape[axis];
  return n;
}

// All elements of contiguous `a` as exact integers (bool → 0/1).
std::vector<int64_t> LoadInts(const Array& a) {
  std::vector<int64_t> values(static_cast<size_t>(a.size()));
  DispatchDType(a.dtype(), [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (!std::is_same_v<ComputeOf<D>, float>) {
      const auto* in = a.data<StorageOf<D>>();
      for (size_t i = 0; i < values.size(); ++i) {
        values[i] = static_cast<int64_t>(Element<D>::Load(in[i]));
      }
    }
  });
  return values;
}

// Integer results wrap to `dtype`, bool results are `!= 0`, float results round once.
Array StoreInts(const std::vector<int64_t>& values, DType dtype, const Shape& shape) {
  Array out = Array::Zeros(dtype, shape);
  DispatchDType(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    auto* dst = out.data<StorageOf<D>>();
    for (size_t i = 0; i < values.size(); ++i) {
      dst[i] = Element<D>::Store(ConvertCompute<D>(values[i]));
    }
  });
  return out;
}

// The one stride that steps through axes [begin, end) of `a` together (0 when they hold one
// element), or nullopt when they do not collapse.
std::optional<int64_t> MergedStride(const Array& a, size_t begin, size_t end) {
  std::optional<int64_t> stride;  // of the innermost axis with more than one element
  int64_t extent = 1;
  for (size_t i = end; i-- > begin;) {
    int64_t size = a.shape()[i];
    if (size == 1) continue;
    if (!stride) {
      stride = a.strides()[i];
    } else if (a.strides()[i] != *stride * extent) {
      return std::nullopt;
    }
    extent *= size;
  }
  return stride.value_or(0);
}

// f32 matrices of rows x cols at `a`'s data with these strides, when Eigen reads them in place
// (row-major or column-major, rows not overlapping); nullopt otherwise.
std::optional<gemm::Strided> ReadableMatrices(const Array& a, int64_t batch, int64_t row,
                                              int64_t col, int64_t rows, int64_t cols) {
  bool row_major = col == 1 && row >= cols;
  bool col_major = row == 1 && col >= rows;
  if (!row_major && !col_major) return std::nullopt;
  return gemm::Strided{.data = reinterpret_cast<const float*>(a.raw()),
                       .batch_stride = batch,
                       .row_stride = row,
                       .col_stride = col};
}

// A permuted f32 operand (batch axes, then row axes, then column axes) as strided matrices of
// rows x cols, or nullopt when Eigen cannot read it in place.
std::optional<gemm::Strided> AsStridedMatrices(const Array& a, size_t batch_axes, size_t row_axes,
                                               int64_t rows, int64_t cols) {
  size_t rank = static_cast<size_t>(a.rank());
  std::optional<int64_t> batch = MergedStride(a, 0, batch_axes);
  std::optional<int64_t> row = MergedStride(a, batch_axes, batch_axes + row_axes);
  std::optional<int64_t> col = MergedStride(a, batch_axes + row_axes, rank);
  if (!batch || !row || !col) return std::nullopt;
  return ReadableMatrices(a, *batch, *row, *col, rows, cols);
}

// Exact modulo 2^64 (every result dtype has at most 32 bits, so wrapping commutes with it).
std::vector<int64_t> GemmInt(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                             int64_t batch, int64_t m, int64_t k, int64_t n) {
  std::vector<uint64_t> c(static_cast<size_t>(batch * m * n), 0);
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      uint64_t* row = c.data() + (p * m + i) * n;
      for (int64_t l = 0; l < k; ++l) {
        uint64_t x = static_cast<uint64_t>(a[(p * m + i) * k + l]);
        const int64_t* brow = b.data() + (p * k + l) * n;
        for (int64_t j = 0; j < n; ++j) row[j] += x * static_cast<uint64_t>(brow[j]);
      }
    }
  }
  return std::vector<int64_t>(c.begin(), c.end());
}

}  // namespace

DotPlan PlanDotGeneral(const Shape& ls, DType lhs_dtype, const Shape& rs, DType rhs_dtype,
                       const DotDimensionNumbers& dims, std::optional<DType> preferred_element_type,
                       std::string_view fn_name) {
  DotPlan plan{.dims = dims};
  DotDimensionNumbers& d = plan.dims;
  if (d.lhs_contracting.size() != d.rhs_contracting.size() ||
      d.lhs_batch.size() != d.rhs_batch.size()) {
    ThrowValueError(fmt::format(
        "`{}` needs as many lhs as rhs axes, got contracting {} and {}, batch {} and {}", fn_name,
        AxesToString(d.lhs_contracting), AxesToString(d.rhs_contracting), AxesToString(d.lhs_batch),
        AxesToString(d.rhs_batch)));
  }
  int lrank = static_cast<int>(ls.size());
  int rrank = static_cast<int>(rs.size());
  std::vector<bool> lhs_used(ls.size(), false), rhs_used(rs.size(), false);
  NormalizeAxes(d.lhs_batch, lrank, lhs_used, fn_name, "batch", ls);
  NormalizeAxes(d.lhs_contracting, lrank, lhs_used, fn_name, "contracting", ls);
  NormalizeAxes(d.rhs_batch, rrank, rhs_used, fn_name, "batch", rs);
  NormalizeAxes(d.rhs_contracting, rrank, rhs_used, fn_name, "contracting", rs);
  auto check_pairs = [&](const std::vector<int>& la, const std::vector<int>& ra,
                         std::string_view what) {
    for (size_t i = 0; i < la.size(); ++i) {
      if (ls[la[i]] != rs[ra[i]]) {
        ThrowTypeError(fmt::format("`{}` cannot {} shapes {} and {}: {} != {}", fn_name, what,
                                   ShapeToString(ls), ShapeToString(rs), ls[la[i]], rs[ra[i]]));
      }
    }
  };
  check_pairs(d.lhs_contracting, d.rhs_contracting, "contract");
  check_pairs(d.lhs_batch, d.rhs_batch, "batch");
  for (int i = 0; i < lrank; ++i) {
    if (!lhs_used[i]) plan.lhs_free.push_back(i);
  }
  for (int i = 0; i < rrank; ++i) {
    if (!rhs_used[i]) plan.rhs_free.push_back(i);
  }
  for (int axis : d.lhs_batch) plan.shape.push_back(ls[axis]);
  for (int axis : plan.lhs_free) plan.shape.push_back(ls[axis]);
  for (int axis : plan.rhs_free) plan.shape.push_back(rs[axis]);
  plan.dtype = preferred_element_type.value_or(PromoteTypes(lhs_dtype, rhs_dtype));
  return plan;
}

namespace {

// A planned product as batched matrices: the operands permuted to (batch, free, contracting)
// and (batch, contracting, free) and the sizes of those groups.
struct DotMatrices {
  DotPlan plan;
  Array a, b;
  int64_t batch = 0, m = 0, k = 0, n = 0;
};

DotMatrices AsMatrices(const Array& lhs, const Array& rhs, const DotDimensionNumbers& dims,
                       std::optional<DType> preferred_element_type, std::string_view fn_name) {
  DotMatrices out;
  out.plan = PlanDotGeneral(lhs.shape(), lhs.dtype(), rhs.shape(), rhs.dtype(), dims,
                            preferred_element_type, fn_name);
  const DotDimensionNumbers& d = out.plan.dims;
  std::vector<int> lhs_perm = d.lhs_batch;
  lhs_perm.insert(lhs_perm.end(), out.plan.lhs_free.begin(), out.plan.lhs_free.end());
  lhs_perm.insert(lhs_perm.end(), d.lhs_contracting.begin(), d.lhs_contracting.end());
  std::vector<int> rhs_perm = d.rhs_batch;
  rhs_perm.insert(rhs_perm.end(), d.rhs_contracting.begin(), d.rhs_contracting.end());
  rhs_perm.insert(rhs_perm.end(), out.plan.rhs_free.begin(), out.plan.rhs_free.end());
  out.batch = Product(lhs.shape(), d.lhs_batch);
  out.m = Product(lhs.shape(), out.plan.lhs_free);
  out.k = Product(lhs.shape(), d.lhs_contracting);
  out.n = Product(rhs.shape(), out.plan.rhs_free);
  out.a = Permute(lhs, lhs_perm);
  out.b = Permute(rhs, rhs_perm);
  return out;
}

// A product as the strided float32 matrices Eigen's blocked kernel reads in place.
struct StridedProduct {
  gemm::Strided a, b;
  int64_t batch = 1, m = 0, k = 0, n = 0;

  // c = a * b, or c += a * b with `accumulate`, or c = diag(row_scale) c + a * b (gemm.h).
  void Run(float* c, bool accumulate, const float* row_scale = nullptr) const {
    gemm::Best().strided(a, b, c, batch, m, k, n, accumulate, row_scale);
  }
};

// Both operands of a planned product as strided matrices, or nullopt.
std::optional<StridedProduct> BlockedOperands(const DotMatrices& p) {
  if (p.a.dtype() != DType::kFloat32 || p.b.dtype() != DType::kFloat32 || p.batch <= 0 ||
      p.m <= 1 || p.n <= 1 || p.k <= 0 || p.m + p.k + p.n < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) {
    return std::nullopt;
  }
  size_t batch_axes = p.plan.dims.lhs_batch.size();
  std::optional<gemm::Strided> sa =
      AsStridedMatrices(p.a, batch_axes, p.plan.lhs_free.size(), p.m, p.k);
  std::optional<gemm::Strided> sb =
      AsStridedMatrices(p.b, batch_axes, p.plan.dims.rhs_contracting.size(), p.k, p.n);
  if (!sa || !sb) return std::nullopt;
  return StridedProduct{.a = *sa, .b = *sb, .batch = p.batch, .m = p.m, .k = p.k, .n = p.n};
}

// The kernels' common product, two float32 matrices with one contracting axis each and no batch
// (m, k, n > 1, large enough for Eigen's blocked kernel), as BlockedOperands would give it after
// AsMatrices, without planning vectors or permuted views; nullopt for any other product (and
// for mismatched sizes, whose error the general path raises).
std::optional<StridedProduct> PlainMatrices(const Array& lhs, const Array& rhs,
                                            const DotDimensionNumbers& dims,
                                            std::optional<DType> preferred_element_type) {
  if (lhs.rank() != 2 || rhs.rank() != 2 || lhs.dtype() != DType::kFloat32 ||
      rhs.dtype() != DType::kFloat32 ||
      (preferred_element_type && *preferred_element_type != DType::kFloat32) ||
      !dims.lhs_batch.empty() || !dims.rhs_batch.empty() || dims.lhs_contracting.size() != 1 ||
      dims.rhs_contracting.size() != 1) {
    return std::nullopt;
  }
  int lc = dims.lhs_contracting[0], rc = dims.rhs_contracting[0];
  if ((lc != 0 && lc != 1) || (rc != 0 && rc != 1)) return std::nullopt;
  StridedProduct p;
  p.m = lhs.shape()[1 - lc];
  p.k = lhs.shape()[lc];
  p.n = rhs.shape()[1 - rc];
  if (rhs.shape()[rc] != p.k || p.m <= 1 || p.k <= 1 || p.n <= 1 ||
      p.m + p.k + p.n < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) {
    return std::nullopt;
  }
  // Rows of a are lhs's free axis, its columns the contracted one; rows of b are rhs's
  // contracted axis.
  std::optional<gemm::Strided> a =
      ReadableMatrices(lhs, 0, lhs.strides()[1 - lc], lhs.strides()[lc], p.m, p.k);
  std::optional<gemm::Strided> b =
      ReadableMatrices(rhs, 0, rhs.strides()[rc], rhs.strides()[1 - rc], p.k, p.n);
  if (!a || !b) return std::nullopt;
  p.a = *a;
  p.b = *b;
  return p;
}

}  // namespace

bool DotGeneralAccumulate(const Array& lhs, const Array& rhs, const DotDimensionNumbers& dims,
                          std::optional<DType> preferred_element_type, const Array& addend,
                          Array& out, const Array* row_scale) {
  if (Recording() || lhs.dtype() != DType::kFloat32 || rhs.dtype() != DType::kFloat32 ||
      addend.dtype() != DType::kFloat32 || out.dtype() != DType::kFloat32 || !out.IsContiguous() ||
      !SameDims(addend.shape(), out.shape()) || out.SharesStorageWith(lhs) ||
      out.SharesStorageWith(rhs)) {
    return false;
  }
  if (row_scale != nullptr &&
      (row_scale->dtype() != DType::kFloat32 || !row_scale->IsContiguous() || out.rank() != 2 ||
       !SameDims(row_scale->shape(), {out.shape()[0], 1}) || out.SharesStorageWith(*row_scale))) {
    return false;
  }
  std::optional<StridedProduct> product = PlainMatrices(lhs, rhs, dims, preferred_element_type);
  if (product) {
    if (out.rank() != 2 || out.shape()[0] != product->m || out.shape()[1] != product->n) {
      return false;
    }
  } else {
    DotMatrices p = AsMatrices(lhs, rhs, dims, preferred_element_type, "jax.lax.dot_general");
    if (p.plan.dtype != DType::kFloat32 || !SameDims(p.plan.shape, out.shape())) return false;
    product = BlockedOperands(p);
  }
  if (!product || !gemm::Best().single_panel(product->m, product->k, product->n) ||
      (row_scale != nullptr && product->batch != 1)) {
    return false;
  }
  if (&out != &addend) out.Assign(addend);
  product->Run(out.data<float>(), true, row_scale != nullptr ? row_scale->data<float>() : nullptr);
  return true;
}

Array DotGeneral(const Array& lhs, const Array& rhs, const DotDimensionNumbers& dims,
                 std::optional<DType> preferred_element_type, std::string_view fn_name) {
  if (Recording()) {
    return RecordPrimitive(
        {Prim::kDotGeneral, DotAttrs{dims, preferred_element_type, std::string(fn_name)}},
        {lhs, rhs}, [&] { return DotGeneral(lhs, rhs, dims, preferred_element_type, fn_name); });
  }
  if (std::optional<StridedProduct> plain = PlainMatrices(lhs, rhs, dims, preferred_element_type)) {
    Array c = Array::Empty(DType::kFloat32, {plain->m, plain->n});
    plain->Run(c.data<float>(), false);
    return c;
  }
  DotMatrices p = AsMatrices(lhs, rhs, dims, preferred_element_type, fn_name);
  const Shape& out_shape = p.plan.shape;
  DType out_dtype = p.plan.dtype;
  int64_t batch = p.batch, m = p.m, k = p.k, n = p.n;
  if (!IsFloating(lhs.dtype()) && !IsFloating(rhs.dtype())) {
    std::vector<int64_t> a = LoadInts(p.a.Contiguous());
    std::vector<int64_t> b = LoadInts(p.b.Contiguous());
    return StoreInts(GemmInt(a, b, batch, m, k, n), out_dtype, out_shape);
  }
  if (std::optional<StridedProduct> product = BlockedOperands(p)) {
    Array c = Array::Empty(DType::kFloat32, out_shape);
    product->Run(c.data<float>(), false);
    return out_dtype == DType::kFloat32 ? c : c.AsType(out_dtype);
  }
  Array a = p.a.AsType(DType::kFloat32);
  Array b = p.b.AsType(DType::kFloat32);
  Array c = Array::Zeros(DType::kFloat32, out_shape);
  if (batch > 0 && m > 0 && n > 0 && k > 0) {
    gemm::Best().contiguous(a.data<float>(), b.data<float>(), c.data<float>(), batch, m, k, n);
  }
  return out_dtype == DType::kFloat32 ? c : c.AsType(out_dtype);
}

void DotGeneralInto(const Array& lhs, const Array& rhs, const DotDimensionNumbers& dims,
                    std::optional<DType> preferred_element_type, std::string_view fn_name,
                    Array& slot) {
  if (!Recording()) {
    if (std::optional<StridedProduct> plain =
            PlainMatrices(lhs, rhs, dims, preferred_element_type)) {
      // A Reusable slot holds its storage alone: it is neither operand.
      bool fits = slot.rank() == 2 && slot.shape()[0] == plain->m && slot.shape()[1] == plain->n;
      if (!fits || !slot.Reusable(DType::kFloat32, slot.shape())) {
        slot = Array::Empty(DType::kFloat32, {plain->m, plain->n});
      }
      slot.set_weak_type(false);
      plain->Run(slot.data<float>(), false);
      return;
    }
  }
  slot = DotGeneral(lhs, rhs, dims, preferred_element_type, fn_name);
}

Array Dot(const Array& a, const Array& b, std::optional<DType> preferred_element_type,
          std::string_view fn_name) {
  DotDimensionNumbers dims;
  if (a.rank() > 0 && b.rank() > 0) {
    dims.lhs_contracting = {a.rank() - 1};
    dims.rhs_contracting = {b.rank() == 1 ? 0 : b.rank() - 2};
  }
  return DotGeneral(a, b, dims, preferred_element_type, fn_name);
}

Array Matmul(const Array& a, const Array& b, std::optional<DType> preferred_element_type,
             std::string_view fn_name) {
  for (const Array* operand : {&a, &b}) {
    if (operand->rank() == 0) {
      ThrowValueError(fmt::format("`{}` operand {} must have at least 1 dimension, got shape ()",
                                  fn_name, operand == &a ? 0 : 1));
    }
  }
  // Promote 1-D operands: a vector on the left is a row (1, K), on the right a column (K, 1).
  Array lhs = a.rank() == 1 ? Reshape(a, {1, a.shape()[0]}) : a;
  Array rhs = b.rank() == 1 ? Reshape(b, {b.shape()[0], 1}) : b;
  if (lhs.shape().back() != rhs.shape()[rhs.rank() - 2]) {
    ThrowTypeError(fmt::format("`{}` cannot contract shapes {} and {}: {} != {}", fn_name,
                               ShapeToString(a.shape()), ShapeToString(b.shape()),
                               lhs.shape().back(), rhs.shape()[rhs.rank() - 2]));
  }
  // Broadcast the batch axes of both operands to one shape with zero strides.
  int batch_rank = std::max(lhs.rank(), rhs.rank()) - 2;
  Shape batch_shape(static_cast<size_t>(batch_rank), 1);
  for (const Array* x : {&lhs, &rhs}) {
    int lead = x->rank() - 2;
    for (int i = 0; i < lead; ++i) {
      int64_t& dim = batch_shape[batch_rank - lead + i];
      int64_t size = x->shape()[i];
      if (dim != 1 && size != 1 && size != dim) {
        ThrowValueError(fmt::format("`{}` cannot broadcast the batch axes of shapes {} and {}",
                                    fn_name, ShapeToString(a.shape()), ShapeToString(b.shape())));
      }
      if (size != 1) dim = size;
    }
  }
  auto broadcast = [&](const Array& x) {
    Shape shape = batch_shape;
    shape.push_back(x.shape()[static_cast<size_t>(x.rank() - 2)]);
    shape.push_back(x.shape().back());
    return shape == x.shape() ? x : BroadcastTo(x, shape);
  };
  DotDimensionNumbers dims{.lhs_contracting = {batch_rank + 1}, .rhs_contracting = {batch_rank}};
  for (int i = 0; i < batch_rank; ++i) {
    dims.lhs_batch.push_back(i);
    dims.rhs_batch.push_back(i);
  }
  Array out = DotGeneral(broadcast(lhs), broadcast(rhs), dims, preferred_element_type, fn_name);
  if (a.rank() > 1 && b.rank() > 1) return out;
  Shape shape = batch_shape;
  if (a.rank() > 1) shape.push_back(lhs.shape()[lhs.rank() - 2]);
  if (b.rank() > 1) shape.push_back(rhs.shape().back());
  return Reshape(out, std::move(shape));
}

Array SingularValues(const Array& a) {
  if (a.rank() < 2) {
    ThrowValueError(
        fmt::format("jnp.linalg.svd: argument must have at least 2 dimensions, got "
                    "shape {}",
                    ShapeToString(a.shape())));
  }
  DType dtype = IsFloating(a.dtype()) ? a.dtype() : DType::kFloat32;
  int64_t rows = a.shape()[a.shape().size() - 2];
  int64_t cols = a.shape().back();
  int64_t k = std::min(rows, cols);
  Shape out_shape(a.shape().begin(), a.shape().end() - 2);
  out_shape.push_back(k);
  int64_t batch = rows * cols == 0 ? NumElements(out_shape) / std::max<int64_t>(k, 1)
                                   : a.size() / (rows * cols);
  std::vector<double> values = a.ToDoubles();
  std::vector<double> out(static_cast<size_t>(batch * k));
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  for (int64_t b = 0; b < batch && k > 0; ++b) {
    Eigen::Map<const Matrix> m(values.data() + b * rows * cols, rows, cols);
    Eigen::JacobiSVD<Matrix> svd(m);
    for (int64_t i = 0; i < k; ++i) out[static_cast<size_t>(b * k + i)] = svd.singularValues()(i);
  }
  return Array::FromDoubles(dtype, out_shape, out);
}

}  // namespace pz::array
