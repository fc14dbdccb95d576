// NumPy/JAX indexing of arrays: integers, slices, None, Ellipsis (views, no copy), integer-array
// and boolean-mask indices (gathers), and the functional updates behind `x.at[idx].set/add/...`.
// Unlike JAX, which silently clamps out-of-range static indices, an index outside the array is
// an IndexError here: a learner should hear about it.
#pragma once

#include <optional>
#include <vector>

#include "array/array.h"

namespace pz::array {

struct Index {
  enum class Kind { kInt, kSlice, kNewAxis, kEllipsis, kArray };
  Kind kind = Kind::kInt;
  int64_t value = 0;                         // kInt
  std::optional<int64_t> start, stop, step;  // kSlice (nullopt = omitted)
  Array array;                               // kArray: integer or bool dtype
};

// a[index]
Array GetIndexed(const Array& a, const std::vector<Index>& index);

enum class UpdateOp { kSet, kAdd, kMultiply, kMin, kMax };

// The result of `a.at[index].<op>(values)`: a new array equal to `a` with the indexed elements
// updated (values broadcast to the indexed shape and cast to a's dtype; repeated indices
// accumulate for add/multiply/min/max, the last write wins for set).
Array UpdateIndexed(const Array& a, const std::vector<Index>& index, const Array& values,
                    UpdateOp op);

}  // namespace pz::array
