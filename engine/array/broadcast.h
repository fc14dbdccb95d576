// Numpy broadcasting for the eager ops: the broadcast shape of several operands, each operand's
// strides against that shape (a stride of 0 repeats an element), and ForEachRow, the one strided
// loop the elementwise kernels run on. Dimensions are coalesced first, so a contiguous operand
// of any rank becomes a single inner row.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "array/array.h"

namespace pz::array {

// The shape `a` and `b` broadcast to; throws kValueError
// "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]" as JAX does.
Shape BroadcastShapes(const Shape& a, const Shape& b);
Shape BroadcastShapes(const Shape& a, const Shape& b, const Shape& c);

// Strides (in elements, relative to a.raw()) that read `a` as an array of `shape`, which `a`'s
// shape must broadcast to (checked by BroadcastShapes).
std::vector<int64_t> BroadcastStrides(const Array& a, const Shape& shape);

// Calls row(offsets, count, inner_strides) for every innermost row of `shape`, where operand k's
// elements of the row are at offsets[k] + i * inner_strides[k] for i < count. Dimensions that are
// contiguous for every operand are merged first, so the common case is one long row.
template <size_t N, typename F>
void ForEachRow(const Shape& shape, const std::array<std::vector<int64_t>, N>& strides, F&& row) {
  // Coalesce: drop size-1 dims, merge a dim into the next one when every operand steps evenly.
  std::vector<int64_t> dims;
  std::array<std::vector<int64_t>, N> st;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (shape[axis] == 0) return;
    if (shape[axis] == 1) continue;
    dims.push_back(shape[axis]);
    for (size_t k = 0; k < N; ++k) st[k].push_back(strides[k][axis]);
  }
  std::vector<int64_t> merged_dims;
  std::array<std::vector<int64_t>, N> merged;
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    bool can_merge = !merged_dims.empty();
    for (size_t k = 0; k < N && can_merge; ++k) {
      can_merge = merged[k].back() == st[k][axis] * dims[axis];
    }
    if (can_merge) {
      merged_dims.back() *= dims[axis];
      for (size_t k = 0; k < N; ++k) merged[k].back() = st[k][axis];
    } else {
      merged_dims.push_back(dims[axis]);
      for (size_t k = 0; k < N; ++k) merged[k].push_back(st[k][axis]);
    }
  }
  std::array<int64_t, N> offsets{};
  std::array<int64_t, N> inner{};
  if (merged_dims.empty()) {
    row(offsets, int64_t{1}, inner);
    return;
  }
  const size_t last = merged_dims.size() - 1;
  for (size_t k = 0; k < N; ++k) inner[k] = merged[k][last];
  std::vector<int64_t> index(last, 0);
  while (true) {
    row(offsets, merged_dims[last], inner);
    size_t axis = last;
    while (axis-- > 0) {
      if (++index[axis] < merged_dims[axis]) {
        for (size_t k = 0; k < N; ++k) offsets[k] += merged[k][axis];
        break;
      }
      index[axis] = 0;
      for (size_t k = 0; k < N; ++k) offsets[k] -= merged[k][axis] * (merged_dims[axis] - 1);
    }
    if (axis == static_cast<size_t>(-1)) return;
  }
}

}  // namespace pz::array
