// Sorting and counting: jnp.sort / argsort (stable, NaN last), jnp.unique (sorted values with
// optional counts), jnp.histogram (equal-width bins, the last bin closed on the right, float32
// counts as JAX returns them).
#pragma once

#include <optional>
#include <utility>

#include "array/array.h"

namespace pz::array {

// Sorts along `axis` (nullopt = the flattened array), stable, NaN after every number.
Array Sort(const Array& a, std::optional<int> axis);
// The int32 indices that sort `a` along `axis` (stable).
Array ArgSort(const Array& a, std::optional<int> axis);

struct UniqueResult {
  Array values;  // sorted distinct values of the flattened input
  Array counts;  // int32 occurrences of each value
};
UniqueResult Unique(const Array& a);

// jnp.histogram: the (weighted) counts of `a` (flattened) per bin, and the bin edges. The bins
// are `edges` when given, else `bins` equal-width bins over `range` (default: min and max of
// `a`, widened by 0.5 on each side when equal). Bins are [left, right), the last one closed;
// values outside, and NaN, count nowhere. `weights` (a's shape) replace the ones added; with
// `density` the counts become counts / bin width / total. Counts and edges take a's inexact
// dtype (float32 for integers), promoted with the weights'.
struct HistogramArgs {
  int64_t bins = 10;
  std::optional<Array> edges;
  std::optional<std::pair<double, double>> range;
  std::optional<Array> weights;
  bool density = false;
};
std::pair<Array, Array> Histogram(const Array& a, const HistogramArgs& args);

}  // namespace pz::array
