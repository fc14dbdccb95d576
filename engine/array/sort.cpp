// Stable sorts over one axis by index permutation; unique and histogram on flattened data.
#include "array/sort.h"
#include "array/prims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "array/creation.h"
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

std::pair<Array, Array> Histogram(const Array& a, int64_t bins,
                                  std::optional<std::pair<double, double>> range) {
  if (bins < 1) ThrowValueError("`bins` should be a positive integer");
  std::vector<double> values = a.ToDoubles();
  double lo = 0, hi = 0;
  if (range) {
    std::tie(lo, hi) = *range;
    if (lo > hi) ThrowValueError("max must be larger than min in range parameter");
  } else if (!values.empty()) {
    lo = *std::min_element(values.begin(), values.end());
    hi = *std::max_element(values.begin(), values.end());
  }
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  Array edges = Linspace(lo, hi, bins + 1, true, DType::kFloat32);
  std::vector<double> e = edges.ToDoubles();
  std::vector<double> counts(static_cast<size_t>(bins), 0.0);
  for (double v : values) {
    if (std::isnan(v) || v < e.front() || v > e.back()) continue;
    // The bin whose [left, right) holds v; the last bin also takes its right edge.
    auto it = std::upper_bound(e.begin(), e.end(), v);
    int64_t bin = std::min<int64_t>(static_cast<int64_t>(it - e.begin()) - 1, bins - 1);
    counts[bin] += 1;
  }
  return {Array::FromDoubles(DType::kFloat32, {bins}, counts), edges};
}

}  // namespace pz::array
