// Stable sorts over one axis by index permutation; unique and histogram on flattened data.
#include "array/sort.h"
#include "array/prims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "array/creation.h"
#include "array/reduce.h"
#include "array/shape_ops.h"

namespace pz::array {
namespace {

// Orders doubles with NaN after everything, as jnp.sort does.
bool NanLast(double x, double y) {
  if (std::isnan(x)) return false;
  if (std::isnan(y)) return true;
  return x < y;
}

// Applies `fn(values, order)` to each 1-D lane along `axis` of the contiguous array `a`, where
// `order` is the stable sorting permutation of the lane; `fn` writes the lane's result.
template <typename F>
void ForEachLane(const Array& a, int axis, F&& fn) {
  int64_t n = a.shape()[axis];
  int64_t inner = 1;
  for (int k = axis + 1; k < a.rank(); ++k) inner *= a.shape()[k];
  int64_t outer = a.size() / std::max<int64_t>(n * inner, 1);
  std::vector<double> all = a.ToDoubles();
  std::vector<double> lane(static_cast<size_t>(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) lane[j] = all[base + j * inner];
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t x, int64_t y) { return NanLast(lane[x], lane[y]); });
      for (int64_t j = 0; j < n; ++j) fn(base + j * inner, lane, order[j]);
    }
  }
}

int NormalizeSortAxis(const Array& a, int axis) {
  if (axis < -a.rank() || axis >= a.rank()) {
    ThrowValueError(
        fmt::format("axis {} is out of bounds for array of dimension {}", axis, a.rank()));
  }
  return axis < 0 ? axis + a.rank() : axis;
}

}  // namespace

Array Sort(const Array& a, std::optional<int> axis) {
  if (Recording()) {
    return RecordPrimitive({Prim::kSort, AxisAttrs{axis}}, {a}, [&] { return Sort(a, axis); });
  }
  Array source = axis ? a.Contiguous() : Reshape(a, {a.size()});
  if (source.rank() == 0) return source;
  int ax = NormalizeSortAxis(source, axis.value_or(0));
  std::vector<double> out(static_cast<size_t>(source.size()));
  ForEachLane(source, ax, [&](int64_t position, const std::vector<double>& lane, int64_t from) {
    out[position] = lane[from];
  });
  return Array::FromDoubles(source.dtype(), source.shape(), out);
}

Array ArgSort(const Array& a, std::optional<int> axis) {
  if (Recording()) {
    return RecordPrimitive({Prim::kArgsort, AxisAttrs{axis}}, {a},
                           [&] { return ArgSort(a, axis); });
  }
  Array source = axis ? a.Contiguous() : Reshape(a, {a.size()});
  if (source.rank() == 0) return Array::Scalar(DType::kInt32, 0);
  int ax = NormalizeSortAxis(source, axis.value_or(0));
  std::vector<double> out(static_cast<size_t>(source.size()));
  ForEachLane(source, ax, [&](int64_t position, const std::vector<double>&, int64_t from) {
    out[position] = static_cast<double>(from);
  });
  return Array::FromDoubles(DType::kInt32, source.shape(), out);
}

UniqueResult Unique(const Array& a) {
  std::vector<double> values = a.ToDoubles();
  std::stable_sort(values.begin(), values.end(), NanLast);
  std::vector<double> distinct;
  std::vector<double> counts;
  for (double v : values) {
    bool same = !distinct.empty() &&
                (distinct.back() == v || (std::isnan(distinct.back()) && std::isnan(v)));
    if (same) {
      counts.back() += 1;
    } else {
      distinct.push_back(v);
      counts.push_back(1);
    }
  }
  auto n = static_cast<int64_t>(distinct.size());
  return UniqueResult{Array::FromDoubles(a.dtype(), {n}, distinct),
                      Array::FromDoubles(DType::kInt32, {n}, counts)};
}

namespace {

// `v` rounded to the float dtype `d` (no array allocated: this runs once per element).
double RoundTo(DType d, double v) {
  switch (d) {
    case DType::kBFloat16:
      return BFloat16BitsToFloat(FloatToBFloat16Bits(static_cast<float>(v)));
    case DType::kFloat16:
      return HalfBitsToFloat(FloatToHalfBits(static_cast<float>(v)));
    default:
      return static_cast<float>(v);
  }
}

}  // namespace

std::pair<Array, Array> Histogram(const Array& a, const HistogramArgs& args) {
  DType dtype = IsFloating(a.dtype()) ? a.dtype() : DType::kFloat32;
  if (args.weights) {
    if (args.weights->shape() != a.shape())
      ThrowValueError("weights should have the same shape as a.");
    DType w = IsFloating(args.weights->dtype()) ? args.weights->dtype() : DType::kFloat32;
    dtype = PromoteTypes(dtype, w);
  }
  std::vector<double> values = a.ToDoubles();
  Array edges;
  if (args.edges) {
    if (args.edges->rank() != 1 || args.edges->size() < 2) {
      ThrowValueError("`bins` must be a positive integer or a 1-D array of at least two edges");
    }
    edges = args.edges->AsType(dtype);
  } else {
    if (args.bins < 1) ThrowValueError("`bins` should be a positive integer");
    double lo = 0, hi = 0;
    if (args.range) {
      std::tie(lo, hi) = *args.range;
      if (lo > hi) ThrowValueError("max must be larger than min in range parameter");
    } else if (!values.empty()) {
      // NaN propagates through min and max, as jnp.min/max propagate it: every edge is NaN.
      bool has_nan =
          std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
      lo = has_nan ? NAN : *std::min_element(values.begin(), values.end());
      hi = has_nan ? NAN : *std::max_element(values.begin(), values.end());
    }
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
    edges = Linspace(lo, hi, args.bins + 1, true, dtype);
  }
  std::vector<double> e = edges.ToDoubles();
  std::vector<double> w = args.weights ? args.weights->AsType(dtype).ToDoubles()
                                       : std::vector<double>(values.size(), 1.0);
  size_t bins = e.size() - 1;
  // Accumulated in the counts' dtype, element by element, as JAX's scatter-add does.
  Array counts = Array::Zeros(dtype, {static_cast<int64_t>(bins)});
  std::vector<double> sums(bins, 0.0);
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    if (std::isnan(v) || !(v >= e.front() && v <= e.back())) continue;
    auto it = std::upper_bound(e.begin(), e.end(), v);
    size_t bin = std::min(static_cast<size_t>(it - e.begin()) - 1, bins - 1);
    sums[bin] = RoundTo(dtype, sums[bin] + w[i]);
  }
  counts = Array::FromDoubles(dtype, {static_cast<int64_t>(bins)}, sums);
  if (args.density) {
    // counts / widths / counts.sum(), each step rounded to the dtype (a float32 quotient of
    // float32 values computed in double and rounded is the float32 quotient).
    double total = Reduce(ReduceOp::kSum, counts, std::nullopt, false).GetDouble(0);
    for (size_t b = 0; b < bins; ++b) {
      double width = RoundTo(dtype, e[b + 1] - e[b]);
      double per_width = RoundTo(dtype, sums[b] / width);
      sums[b] = RoundTo(dtype, per_width / total);
    }
    counts = Array::FromDoubles(dtype, {static_cast<int64_t>(bins)}, sums);
  }
  return {counts, edges};
}

}  // namespace pz::array
