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

// What an integer index out of bounds does (JAX's `mode=` of `.at[...]`): kStrict raises
// IndexError (numpy, and this engine's kernels); kClip clamps it into range (JAX's reads);
// kDrop drops the updates it addresses (JAX's updates); kFill reads a fill value instead.
// Negative indices count from the end first in every mode.
enum class IndexMode : uint8_t { kStrict, kClip, kDrop, kFill };

// a[index]. With kFill, out-of-bounds reads give `fill` (converted to a's dtype). `affected`,
// when given, receives how many elements an out-of-bounds index clamped or filled.
Array GetIndexed(const Array& a, const std::vector<Index>& index,
                 IndexMode mode = IndexMode::kStrict, double fill = 0, int64_t* affected = nullptr);

enum class UpdateOp { kSet, kAdd, kMultiply, kMin, kMax };

// The result of `a.at[index].<op>(values)`: a new array equal to `a` with the indexed elements
// updated (values broadcast to the indexed shape and cast to a's dtype; repeated indices
// accumulate for add/multiply/min/max, the last write wins for set). Out-of-bounds indices
// follow `mode` (kFill drops, as kDrop); `affected`, when given, receives how many updates an
// out-of-bounds index dropped or clamped.
Array UpdateIndexed(const Array& a, const std::vector<Index>& index, const Array& values,
                    UpdateOp op, IndexMode mode = IndexMode::kStrict, int64_t* affected = nullptr);

}  // namespace pz::array
