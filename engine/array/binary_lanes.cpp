// F32LanesFor (binary_lanes.h): eight floats a step in AVX2, the tail one at a time by the same
// operations on single lanes. Written with target attributes rather than a translation unit built
// for AVX2, so that nothing here is a template another unit could instantiate differently.
#include "array/binary_lanes.h"

#include "array/isa.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PZ_BINARY_LANES 1
#endif

namespace pz::array {

namespace {

#ifdef PZ_BINARY_LANES

#define PZ_AVX2 __attribute__((target("avx2,fma")))

struct Add {
  PZ_AVX2 static __m256 Apply(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
};
struct Sub {
  PZ_AVX2 static __m256 Apply(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
};
struct Mul {
  PZ_AVX2 static __m256 Apply(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
};
// Max (kMax) or Min: NaN when either is NaN (the default quiet NaN, as the scalar kernel
// returns); of equal values, the one without the sign bit for max (their bitwise and) and the one
// with it for min (their bitwise or); else the larger or the smaller.
template <bool kMax>
struct Extreme {
  PZ_AVX2 static __m256 Apply(__m256 a, __m256 b) {
    constexpr int kPicksA = kMax ? _CMP_GT_OQ : _CMP_LT_OQ;
    __m256 picked = _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, kPicksA));
    __m256 tie = kMax ? _mm256_and_ps(a, b) : _mm256_or_ps(a, b);
    __m256 r = _mm256_blendv_ps(picked, tie, _mm256_cmp_ps(a, b, _CMP_EQ_OQ));
    __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    return _mm256_blendv_ps(r, nan, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
  }
};

template <typename Op>
PZ_AVX2 void Lanes(const float* x, int64_t x_step, const float* y, int64_t y_step, float* out,
                   int64_t n) {
  int64_t whole = n - n % 8;
  __m256 xs = _mm256_set1_ps(*x), ys = _mm256_set1_ps(*y);
  for (int64_t i = 0; i < whole; i += 8) {
    __m256 a = x_step == 0 ? xs : _mm256_loadu_ps(x + i);
    __m256 b = y_step == 0 ? ys : _mm256_loadu_ps(y + i);
    _mm256_storeu_ps(out + i, Op::Apply(a, b));
  }
  for (int64_t i = whole; i < n; ++i) {
    __m256 a = _mm256_set1_ps(x[i * x_step]), b = _mm256_set1_ps(y[i * y_step]);
    out[i] = _mm256_cvtss_f32(Op::Apply(a, b));
  }
}

#undef PZ_AVX2

#endif

}  // namespace

F32BinaryLanes F32LanesFor(BinaryOp op) {
#ifdef PZ_BINARY_LANES
  static const bool avx2 = RuntimeIsa() >= Isa::kAvx2Fma;
  if (!avx2) return nullptr;
  switch (op) {
    case BinaryOp::kAdd:
      return &Lanes<Add>;
    case BinaryOp::kSub:
      return &Lanes<Sub>;
    case BinaryOp::kMul:
      return &Lanes<Mul>;
    case BinaryOp::kMaximum:
      return &Lanes<Extreme<true>>;
    case BinaryOp::kMinimum:
      return &Lanes<Extreme<false>>;
    default:
      return nullptr;
  }
#else
  (void)op;
  return nullptr;
#endif
}

}  // namespace pz::array
