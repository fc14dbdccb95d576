// The float32 max and min of reduce_extreme.h in SSE and AVX2 lanes.
#include "array/reduce_extreme.h"

#include <cmath>
#include <optional>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "array/isa.h"

namespace pz::array {

namespace {

// The end of the lane-parallel extremes: the elements past the lanes (`whole` on), then the
// lanes' values, and the row's first zero when the extreme is zero; nullopt on a NaN.
template <bool kMax>
std::optional<float> FinishExtreme(const float* x, int64_t n, int64_t whole, float* lanes,
                                   int count) {
  auto pick = [](float v, float best) { return (kMax ? v > best : v < best) ? v : best; };
  for (int64_t i = whole; i < n; ++i) {
    if (std::isnan(x[i])) return std::nullopt;
    lanes[0] = pick(x[i], lanes[0]);
  }
  float best = lanes[0];
  for (int k = 1; k < count; ++k) best = pick(lanes[k], best);
  if (best == 0) {
    for (int64_t j = 0; j < n; ++j) {
      if (x[j] == 0) return x[j];
    }
  }
  return best;
}

#if defined(__SSE2__)
// NanFreeExtreme for float32 in SSE lanes (maxps(v, best) is `v > best ? v : best` exactly,
// minps likewise), looking for NaNs on the way: nullopt when the row holds one.
template <bool kMax>
std::optional<float> ExtremeF32Lanes(const float* x, int64_t n) {
  auto better = [](__m128 v, __m128 best) {
    return kMax ? _mm_max_ps(v, best) : _mm_min_ps(v, best);
  };
  __m128 a = _mm_loadu_ps(x), b = _mm_loadu_ps(x + 4);
  __m128 nan = _mm_or_ps(_mm_cmpunord_ps(a, a), _mm_cmpunord_ps(b, b));
  int64_t whole = n - n % 8;
  for (int64_t i = 8; i < whole; i += 8) {
    __m128 u = _mm_loadu_ps(x + i), v = _mm_loadu_ps(x + i + 4);
    nan = _mm_or_ps(nan, _mm_or_ps(_mm_cmpunord_ps(u, u), _mm_cmpunord_ps(v, v)));
    a = better(u, a);
    b = better(v, b);
  }
  if (_mm_movemask_ps(nan) != 0) return std::nullopt;
  float lanes[8];
  _mm_storeu_ps(lanes, a);
  _mm_storeu_ps(lanes + 4, b);
  return FinishExtreme<kMax>(x, n, whole, lanes, 8);
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// ExtremeF32Lanes in AVX2 lanes: sixteen at a time in two registers (vmaxps is maxps per lane).
// Which lane an element meets does not change a NaN-free maximum, zeros aside, which both
// resolve by the row's first zero.
template <bool kMax>
__attribute__((target("avx2"))) inline __m256 Better8(__m256 v, __m256 best) {
  return kMax ? _mm256_max_ps(v, best) : _mm256_min_ps(v, best);
}

// The extremes of R rows of n >= 32 floats (row r at x + r * n) into found[r], nullopt for a
// row holding a NaN: sixteen elements of a row at a time in two registers, then the lanes and the
// elements past them (FinishExtreme). With R > 1 the rows' dependent maxima interleave; each
// row's are those it has alone.
template <bool kMax, int R>
__attribute__((target("avx2"))) void ExtremeF32RowsAvx2(const float* x, int64_t n,
                                                        std::optional<float>* found) {
  __m256 a[R], b[R], nan[R];
  for (int r = 0; r < R; ++r) {
    a[r] = _mm256_loadu_ps(x + r * n);
    b[r] = _mm256_loadu_ps(x + r * n + 8);
    nan[r] = _mm256_or_ps(_mm256_cmp_ps(a[r], a[r], _CMP_UNORD_Q),
                          _mm256_cmp_ps(b[r], b[r], _CMP_UNORD_Q));
  }
  int64_t whole = n - n % 16;
  for (int64_t i = 16; i < whole; i += 16) {
    for (int r = 0; r < R; ++r) {
      __m256 u = _mm256_loadu_ps(x + r * n + i), v = _mm256_loadu_ps(x + r * n + i + 8);
      nan[r] = _mm256_or_ps(nan[r], _mm256_or_ps(_mm256_cmp_ps(u, u, _CMP_UNORD_Q),
                                                 _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
      a[r] = Better8<kMax>(u, a[r]);
      b[r] = Better8<kMax>(v, b[r]);
    }
  }
  for (int r = 0; r < R; ++r) {
    if (_mm256_movemask_ps(nan[r]) != 0) {
      found[r] = std::nullopt;
      continue;
    }
    __m256 best = Better8<kMax>(b[r], a[r]);
    __m128 half = kMax ? _mm_max_ps(_mm256_extractf128_ps(best, 1), _mm256_castps256_ps128(best))
                       : _mm_min_ps(_mm256_extractf128_ps(best, 1), _mm256_castps256_ps128(best));
    float lanes[4];
    _mm_storeu_ps(lanes, half);
    found[r] = FinishExtreme<kMax>(x + r * n, n, whole, lanes, 4);
  }
}
#endif

}  // namespace

std::optional<float> ExtremeF32InLanes(bool is_max, const float* x, int64_t n) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx2 = RuntimeIsa() >= Isa::kAvx2Fma;
  if (avx2 && n >= 32) {
    std::optional<float> found;
    if (is_max) {
      ExtremeF32RowsAvx2<true, 1>(x, n, &found);
    } else {
      ExtremeF32RowsAvx2<false, 1>(x, n, &found);
    }
    return found;
  }
#endif
#if defined(__SSE2__)
  if (n >= 16) return is_max ? ExtremeF32Lanes<true>(x, n) : ExtremeF32Lanes<false>(x, n);
#endif
  (void)is_max;
  (void)x;
  (void)n;
  return std::nullopt;
}

bool ExtremeF32Rows(bool is_max, const float* x, int64_t rows, int64_t n, float* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx2 = RuntimeIsa() >= Isa::kAvx2Fma;
  if (!avx2 || n < 32) return false;
  constexpr int kRows = 4;
  int64_t r = 0;
  for (; r + kRows <= rows; r += kRows) {
    std::optional<float> found[kRows];
    if (is_max) {
      ExtremeF32RowsAvx2<true, kRows>(x + r * n, n, found);
    } else {
      ExtremeF32RowsAvx2<false, kRows>(x + r * n, n, found);
    }
    // (A row with a NaN takes the one-row path's way, which returns it.)
    for (int j = 0; j < kRows; ++j)
      out[r + j] = found[j] ? *found[j] : ExtremeRow<DType::kFloat32>(is_max, x + (r + j) * n, n);
  }
  for (; r < rows; ++r) out[r] = ExtremeRow<DType::kFloat32>(is_max, x + r * n, n);
  return true;
#else
  (void)is_max;
  (void)x;
  (void)rows;
  (void)n;
  (void)out;
  return false;
#endif
}

}  // namespace pz::array
