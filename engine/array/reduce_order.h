// The order in which JAX on CPU adds (multiplies) the elements of a float32 reduction, so that our
// sums round exactly as real JAX's do. XLA's CPU compiler picks one of two schemes:
//
//   * Tree of windows (XLA's TreeReductionRewriter): while some reduced dimension is longer than
//     32, the operand is cut into windows of up to 32 along every reduced dimension ("same"
//     padding, the smaller half of the padding in front), each window is folded from the
//     identity in row-major order, and the window results are reduced the same way. A reduction
//     whose reduced dimensions are all at most 32 long is one row-major fold. Products always take
//     this path; so do sums of fewer than 4096 elements.
//   * YNNPACK (sums of 4096 or more elements): rows of 16 lanes, grouped in tiles of 64 rows; in
//     each lane a tile is a left fold of blocks of 16 rows (each a fold of four blocks of 4 rows),
//     then blocks of 4 rows, then the leftover rows together; tiles add into the lane's total
//     with Kahan's compensation, and the 16 lanes are added by halving (lane i + lane i+8, then
//     i+4, i+2, i+1).
//
// The second scheme was read off real JAX 0.10.2 (probing which elements meet first with
// cancelling values, then checked on random data, tests/tools/gen_array_expected.py). It matches
// bit for bit in the cases the tests pin down; where XLA splits one long reduction across threads
// its result depends on the machine's core count, and ours stays within 2 ulp of it.
#pragma once

#include <cstdint>
#include <span>

namespace pz::array {

// Reduces the elements x[i * stride] for i over the row-major index space `dims` (the reduced
// dimensions, outermost first), with XLA's tree of windows. Starts from 0 (sum) or 1 (product).
float XlaTreeReduce(const float* x, int64_t stride, std::span<const int64_t> dims, bool product);

// True when JAX hands a float sum of `elements` input elements to YNNPACK.
bool SumUsesYnnpack(int64_t elements);

// YNNPACK's sum of one row of `k1` contiguous floats (lanes, tiles and the halving tree).
float YnnRowSum(const float* x, int64_t k1);
// The same for `rows` consecutive rows of `k1` floats each, into out[0 .. rows).
void YnnRowSums(const float* x, int64_t rows, int64_t k1, float* out);

// YNNPACK's sums down the columns: out[j] += sum over r < count of x[r * stride + j], for
// j < width, each column in the tile order above (no lanes: every column is its own lane).
void YnnColumnSums(const float* x, int64_t count, int64_t stride, int64_t width, float* out);

}  // namespace pz::array
