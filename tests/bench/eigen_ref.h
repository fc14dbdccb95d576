// The Eigen references of kernel_bench.cpp: the same arithmetic as the benchmarked Pallas
// programs, written directly with Eigen. eigen_ref.cpp is compiled once per instruction set
// (baseline x86-64, x86-64-v3, and -march=native for the machine that builds the benchmarks),
// each copy in its own namespace with Eigen's renamed, so the copies share no symbol.
#pragma once

#include <cstdint>

#define PZ_EIGEN_REF_DECLARE(isa)                                                              \
  namespace pz::bench::isa {                                                                   \
  /* out = x @ y (n x n, row-major) as g^3 products of b x b tiles into a tile accumulator. */ \
  void MatmulSameTiles(const float* x, const float* y, float* out, int64_t n, int64_t b);      \
  /* Flash attention's two block products per step (heads h, T = S = t, head dim d). */        \
  void FlashSameDots(const float* q, const float* k, const float* v, float* out, int64_t h,    \
                     int64_t t, int64_t d, int64_t b);                                         \
  /* The whole flash kernel: the products and the online softmax. */                           \
  void FlashFullMath(const float* q, const float* k, const float* v, float* out, int64_t h,    \
                     int64_t t, int64_t d, int64_t b);                                         \
  }

PZ_EIGEN_REF_DECLARE(ref_baseline)
PZ_EIGEN_REF_DECLARE(ref_v3)
PZ_EIGEN_REF_DECLARE(ref_native)
