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

// Counts of `a` (flattened) in `bins` equal-width bins over [lo, hi] (default: min and max of
// `a`, widened by 0.5 on each side when equal), and the bin edges (bins + 1, float32).
std::pair<Array, Array> Histogram(const Array& a, int64_t bins,
                                  std::optional<std::pair<double, double>> range);

}  // namespace pz::array
