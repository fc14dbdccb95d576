// LogSumExp, Softmax, LogSoftmax and CumSum (reduce.h): the reductions JAX builds from simpler ops.
// CumSum reproduces XLA's CPU rewrite of the cumulative reduce-window: sequential sums within
// blocks of 16, the block totals scanned recursively the same way, then added to each block.
#include <fmt/format.h>

#include <memory>

#include "array/element.h"
#include "array/elementwise.h"
#include "array/prims.h"
#include "array/reduce.h"

namespace pz::array {

namespace {

// XLA's ReduceWindowRewriter block length on CPU (found by matching jnp.cumsum bit for bit).
constexpr int64_t kScanBlock = 16;

// Inclusive scan of x[0..n) in place, adding in the dtype D (bf16 rounds after every add).
template <DType D>
void BlockedScan(ComputeOf<D>* x, int64_t n) {
  static_assert(D != DType::kBool);
  auto add = [](ComputeOf<D> p, ComputeOf<D> q) {
    return Element<D>::Load(Element<D>::Store(p + q));
  };
  int64_t blocks = (n + kScanBlock - 1) / kScanBlock;
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t end = std::min(n, (b + 1) * kScanBlock);
    for (int64_t i = b * kScanBlock + 1; i < end; ++i) x[i] = add(x[i - 1], x[i]);
  }
  if (blocks <= 1) return;
  std::vector<ComputeOf<D>> totals(static_cast<size_t>(blocks));
  for (int64_t b = 0; b < blocks; ++b) {
    totals[static_cast<size_t>(b)] = x[std::min(n, (b + 1) * kScanBlock) - 1];
  }
  BlockedScan<D>(totals.data(), blocks);
  for (int64_t b = 1; b < blocks; ++b) {
    int64_t end = std::min(n, (b + 1) * kScanBlock);
    for (int64_t i = b * kScanBlock; i < end; ++i) {
      x[i] = add(x[i], totals[static_cast<size_t>(b - 1)]);
    }
  }
}

Array ToInexact(const Array& a) {
  if (IsFloating(a.dtype())) return a;
  Array out = a.AsType(DType::kFloat32);
  out.set_weak_type(a.weak_type());
  return out;
}

}  // namespace

Array LogSumExp(const Array& a, std::optional<std::vector<int>> axes, bool keepdims) {
  Array x = ToInexact(a);
  Array amax;
  if (x.size() == 0) {
    amax = Reduce(ReduceOp::kSum, x, axes, true);  // jnp.max with initial=-inf
    amax = Binary(BinaryOp::kSub, amax, Array::Scalar(x.dtype(), INFINITY));
  } else {
    amax = Reduce(ReduceOp::kMax, x, axes, true);
  }
  Array zero = Array::Scalar(x.dtype(), 0.0);
  amax = Where(Unary(UnaryOp::kIsFinite, amax), amax, zero);
  Array exp_a = Unary(UnaryOp::kExp, Binary(BinaryOp::kSub, x, amax));
  Array sum = Unary(UnaryOp::kAbs, Reduce(ReduceOp::kSum, exp_a, axes, keepdims));
  Array shift = keepdims ? amax : Reshape(amax, sum.shape());  // a recorded squeeze
  return Binary(BinaryOp::kAdd, Unary(UnaryOp::kLog, sum), shift);
}

Array Softmax(const Array& a, std::optional<std::vector<int>> axes) {
  Array x = ToInexact(a);
  Array unnormalized =
      Unary(UnaryOp::kExp, Binary(BinaryOp::kSub, x, Reduce(ReduceOp::kMax, x, axes, true)));
  return Binary(BinaryOp::kDiv, unnormalized, Reduce(ReduceOp::kSum, unnormalized, axes, true));
}

Array LogSoftmax(const Array& a, std::optional<std::vector<int>> axes) {
  Array x = ToInexact(a);
  Array shifted = Binary(BinaryOp::kSub, x, Reduce(ReduceOp::kMax, x, axes, true));
  Array total = Reduce(ReduceOp::kSum, Unary(UnaryOp::kExp, shifted), axes, true);
  return Binary(BinaryOp::kSub, shifted, Unary(UnaryOp::kLog, total));
}

Array CumSum(const Array& a, std::optional<int> axis) {
  if (Recording()) {
    return RecordPrimitive({Prim::kCumsum, AxisAttrs{axis}}, {a}, [&] { return CumSum(a, axis); });
  }
  Array x = IsBool(a.dtype()) ? a.AsType(DType::kInt32) : a.Contiguous();
  if (!axis) {
    x = x.View({x.size()}, {1}, 0);
    axis = 0;
  }
  if (*axis < 0 || *axis >= x.rank()) {
    ThrowValueError(
        fmt::format("axis {} is out of bounds for array of dimension {}", *axis, x.rank()));
  }
  // Move `axis` last, scan every row, move it back.
  Shape shape;
  std::vector<int64_t> strides;
  for (int i = 0; i < x.rank(); ++i) {
    if (i == *axis) continue;
    shape.push_back(x.shape()[static_cast<size_t>(i)]);
    strides.push_back(x.strides()[static_cast<size_t>(i)]);
  }
  int64_t n = x.shape()[static_cast<size_t>(*axis)];
  shape.push_back(n);
  strides.push_back(x.strides()[static_cast<size_t>(*axis)]);
  Array rows = x.View(shape, strides, 0).Contiguous();
  Array scanned = Array::Zeros(x.dtype(), shape);
  int64_t count = n == 0 ? 0 : rows.size() / n;
  DispatchDType(x.dtype(), [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    const auto* in = rows.data<StorageOf<D>>();
    auto* out = scanned.data<StorageOf<D>>();
    if constexpr (D == DType::kBool) PZ_UNREACHABLE();  // bools were converted to int32
    auto row = std::make_unique<ComputeOf<D>[]>(static_cast<size_t>(n));
    for (int64_t r = 0; r < count; ++r) {
      for (int64_t i = 0; i < n; ++i) row[i] = Element<D>::Load(in[r * n + i]);
      if constexpr (D != DType::kBool) BlockedScan<D>(row.get(), n);
      for (int64_t i = 0; i < n; ++i) out[r * n + i] = Element<D>::Store(row[i]);
    }
  });
  // Inverse permutation: the last axis of `scanned` goes back to position `axis`.
  std::vector<int64_t> scanned_strides = scanned.strides();
  std::vector<int64_t> back(static_cast<size_t>(x.rank()));
  for (int i = 0, j = 0; i < x.rank(); ++i) {
    back[static_cast<size_t>(i)] =
        i == *axis ? scanned_strides.back() : scanned_strides[static_cast<size_t>(j++)];
  }
  return scanned.View(x.shape(), back, 0).Contiguous();
}

}  // namespace pz::array
