// Memory of the emulated core seen as boxes: copies between an HBM array and a block buffer,
// the uint8 "initialised" shadows that track poison, and the int32 stamp arrays that record which
// grid step wrote (or read) each HBM element. Used by the operand pipeline and DMA landings.
#pragma once

#include <cstdint>
#include <cstring>

#include "array/array.h"
#include "kernel/grid_mapping.h"

namespace pz::tpu {

// Writer values (kernel::CallOutcome::writer) that are not grid steps.
constexpr int32_t kNeverWritten = -1;
constexpr int32_t kAliasedInput = -2;

// Copies the box [src_lo, src_lo + extent) of `src` to [dst_lo, dst_lo + extent) of `dst` (same
// dtype, same rank), without allocating: rows along the last dimension are memcpy'd.
void CopyBox(const array::Array& src, const int64_t* src_lo, array::Array& dst,
             const int64_t* dst_lo, const int64_t* extent, size_t rank);

// Calls `row(counter)` for every row (along the last dimension) of a box of `extent`, with
// `counter` the row's offsets in the other dimensions; nothing for an empty box, and one call
// with no offsets for rank 0.
template <typename Row>
void ForEachRow(const int64_t* extent, size_t rank, Row&& row) {
  for (size_t d = 0; d < rank; ++d) {
    if (extent[d] <= 0) return;
  }
  int64_t counter[array::kMaxRank] = {};
  if (rank == 0) {
    row(counter);
    return;
  }
  size_t last = rank - 1;
  while (true) {
    row(counter);
    size_t d = last;
    while (d-- > 0) {
      if (++counter[d] < extent[d]) break;
      counter[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

// The offset of the row at `counter` (see ForEachRow) of the box at `lo` in an array.
int64_t RowOffset(const array::Array& a, const int64_t* lo, const int64_t* counter, size_t rank);

// Sets the box [lo, lo + extent) of a contiguous uint8 shadow to `value`.
void FillBox(array::Array& shadow, const int64_t* lo, const int64_t* extent, size_t rank,
             uint8_t value);

// A write-back of the box at `shadow_lo` of a block into the box at `lo` of the output: each
// element of the int32 `writer` becomes `step` where the block's shadow byte says the kernel
// stored it, else kNeverWritten (garbage reached HBM). Without a shadow, `step` everywhere.
void StampWriter(const array::Array* shadow, const int64_t* shadow_lo, array::Array& writer,
                 const int64_t* lo, const int64_t* extent, size_t rank, int64_t step);

// The reverse, for output data read back from HBM (interpret semantics): the block's shadow
// marks as initialised the elements some write-back stored (or an aliased input provided).
void ShadowFromWriter(const array::Array& writer, const int64_t* lo, array::Array& shadow,
                      const int64_t* shadow_lo, const int64_t* extent, size_t rank);

// The buffer of an operand seen with the full rank of the array (squeezed dimensions as 1).
array::Array FullRank(const array::Array& buffer, const kernel::BlockMapping& op);

// Sets the box [lo, lo + extent) of an int32 stamp array to `value`.
void StampBox(array::Array& stamps, const int64_t* lo, const int64_t* extent, size_t rank,
              int32_t value);

}  // namespace pz::tpu
