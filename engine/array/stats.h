// Reductions with NumPy's extra arguments (`where=` masks, `initial=` values), and the statistics
// JAX builds from reductions: var/std, count_nonzero, median. Each follows the op sequence of
// JAX's jnp implementation so float results round the same way.
#pragma once

#include <optional>
#include <vector>

#include "array/array.h"
#include "array/reduce.h"

namespace pz::array {

// jnp.sum/prod/max/min/mean/any/all with `where` (a bool mask broadcastable with `a`: masked-out
// elements count as the op's identity) and `initial` (a scalar combined with every result, which
// also lets max/min reduce empty axes). max/min need `initial` when given `where`.
// `axes` as in Reduce (normalised; nullopt = all).
Array ReduceWhere(ReduceOp op, const Array& a, std::optional<std::vector<int>> axes, bool keepdims,
                  std::optional<DType> dtype, const std::optional<Array>& where,
                  const std::optional<Array>& initial);

// jnp.var (and jnp.std when `sqrt`): the mean of squared deviations from the mean, divided by
// count - correction (NaN where that is not positive), computed in float32 for 16-bit floats and
// integers. `dtype` sets the result dtype.
Array Variance(const Array& a, std::optional<std::vector<int>> axes, bool keepdims,
               std::optional<DType> dtype, double correction, const std::optional<Array>& where,
               bool sqrt);

// jnp.count_nonzero: int32 counts of a != 0.
Array CountNonzero(const Array& a, std::optional<std::vector<int>> axes, bool keepdims);

// jnp.median: the midpoint of the two middle elements of the sorted axes (NaN if any is NaN).
Array Median(const Array& a, std::optional<std::vector<int>> axes, bool keepdims);

}  // namespace pz::array
