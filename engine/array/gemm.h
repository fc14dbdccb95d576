// The float32 GEMMs behind lax.dot_general, built once per instruction set and picked at run
// time (isa.h): gemm_isa.cpp is compiled for baseline x86-64, x86-64-v3 (AVX2 + FMA) and
// x86-64-v4 (AVX-512), each copy inside its own namespace with Eigen's namespace renamed, so that
// no template two copies instantiate is one symbol to the linker (a test checks the objects'
// symbols for that). The copies may differ in the last bits of long sums (their blocking of k
// differs), but each computes an element the same way whatever the product's shape.
#pragma once

#include <cstdint>

#include "array/isa.h"

namespace pz::array::gemm {

// `batch` matrices of f32 data: element (i, j) of matrix p at data[p * batch_stride +
// i * row_stride + j * col_stride], with row_stride or col_stride 1.
struct Strided {
  const float* data = nullptr;
  int64_t batch_stride = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// c[p] = a[p] * b[p] for p < batch; a is m x k, b is k x n, c contiguous row-major m x n.
// Contiguous: a and b contiguous row-major. Strided: any layout Eigen reads in place (only for
// products Eigen computes with its blocked kernel, whose result does not depend on the layout);
// with `accumulate`, c[p] += a[p] * b[p] instead (see single_panel), and with a `row_scale` as
// well (single_panel products of batch 1 only), c[i][j] = row_scale[i] * c[i][j] + (a * b)[i][j]:
// the scaled element is rounded before the sum is added, as a multiply and then an add would
// give it, in one pass over c. A product whose depth is one panel runs Eigen's GEMM loop from its
// packing and kernel routines (gemm_isa.cpp), so that a width split for consistent sums packs a
// once, and the kernel reads each element of c once: 0 (c = a * b needs no zeroing first), c, or
// its scaled value. Deeper products are Eigen products.
struct Kernels {
  void (*contiguous)(const float* a, const float* b, float* c, int64_t batch, int64_t m, int64_t k,
                     int64_t n);
  void (*strided)(const Strided& a, const Strided& b, float* c, int64_t batch, int64_t m, int64_t k,
                  int64_t n, bool accumulate, const float* row_scale);
  // True when the blocked kernel sums all of k in one panel for an m x k x n product it
  // computes (the strided kernel's products; small ones and vectors take other paths): each
  // element of the product is then a sum formed in registers and added to c once, so an
  // accumulating product gives c + (a * b) bit for bit, as a product and an add would. (With k
  // in several panels, the first panel's sum would be added to c before the second's.)
  bool (*single_panel)(int64_t m, int64_t k, int64_t n);
};

// The kernels of one instruction set (each level falls back to the one below in builds without
// it; kAvx512 multiplies with the AVX2 copy unless FullWidthAvx512()).
const Kernels& KernelsFor(Isa isa);
// The kernels of RuntimeIsa().
inline const Kernels& Best() { return KernelsFor(RuntimeIsa()); }

}  // namespace pz::array::gemm
