// Numpy broadcasting for the eager ops: the broadcast shape of several operands, each operand's
// strides against that shape (a stride of 0 repeats an element), and ForEachRow, the one strided
// loop the elementwise kernels run on. Dimensions are coalesced first, so a contiguous operand
// of any rank becomes a single inner row.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "array/array.h"
#include "support/check.h"

namespace pz::array {

// The shape `a` and `b` broadcast to; throws kValueError
// "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]" as JAX does.
Shape BroadcastShapes(const Shape& a, const Shape& b);
Shape BroadcastShapes(const Shape& a, const Shape& b, const Shape& c);

// Strides of one operand in elements, one per dimension of the shape they index (at most
// kMaxRank), held inline so that the elementwise kernels allocate nothing per call.
using StrideArray = std::array<int64_t, kMaxRank>;

// `a`'s own strides as a StrideArray.
StrideArray StridesOf(const Array& a);

// Strides (in elements, relative to a.raw()) that read `a` as an array of `shape`, which `a`'s
// shape must broadcast to (checked by BroadcastShapes).
StrideArray BroadcastStrides(const Array& a, const Shape& shape);

// Calls row(offsets, count, inner_strides) for every innermost row of `shape`, where operand k's
// elements of the row are at offsets[k] + i * inner_strides[k] for i < count. Dimensions that are
// contiguous for every operand are merged first, so the common case is one long row.
template <size_t N, typename F>
void ForEachRow(std::span<const int64_t> shape, const std::array<StrideArray, N>& strides,
                F&& row) {
  PZ_CHECK(shape.size() <= static_cast<size_t>(kMaxRank));
  // Coalesce: drop size-1 dims, merge a dim into the previous one when every operand steps
  // evenly.
  int64_t dims[kMaxRank];
  std::array<StrideArray, N> merged;
  size_t rank = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] == 0) return;
    if (shape[axis] == 1) continue;
    bool can_merge = rank > 0;
    for (size_t k = 0; k < N && can_merge; ++k) {
      can_merge = merged[k][rank - 1] == strides[k][axis] * shape[axis];
    }
    if (can_merge) {
      dims[rank - 1] *= shape[axis];
      for (size_t k = 0; k < N; ++k) merged[k][rank - 1] = strides[k][axis];
    } else {
      dims[rank] = shape[axis];
      for (size_t k = 0; k < N; ++k) merged[k][rank] = strides[k][axis];
      ++rank;
    }
  }
  std::array<int64_t, N> offsets{};
  std::array<int64_t, N> inner{};
  if (rank == 0) {
    row(offsets, int64_t{1}, inner);
    return;
  }
  const size_t last = rank - 1;
  for (size_t k = 0; k < N; ++k) inner[k] = merged[k][last];
  int64_t index[kMaxRank] = {};
  while (true) {
    row(offsets, dims[last], inner);
    size_t axis = last;
    while (axis-- > 0) {
      if (++index[axis] < dims[axis]) {
        for (size_t k = 0; k < N; ++k) offsets[k] += merged[k][axis];
        break;
      }
      index[axis] = 0;
      for (size_t k = 0; k < N; ++k) offsets[k] -= merged[k][axis] * (dims[axis] - 1);
    }
    if (axis == static_cast<size_t>(-1)) return;
  }
}

}  // namespace pz::array
