// ExpF32 (exp_f32.h): glibc's expf (sysdeps/ieee754/flt-32/e_expf.c, as built with FMA) in
// vector lanes: exp(x) = 2^(k/32) * 2^(r/32) with k = round(x * 32 / ln 2), a table of 2^(i/32)
// and a cubic in r, all in double precision and rounded to float once. Inputs outside (-88, 88),
// NaN included, take the library call; with the flush, those outside (-87, 87) do, so that the
// lanes' results (at least exp(-87), about 1.6e-38) are never subnormal and need no flush. AVX2
// runs four values at a time and gathers the table entries; AVX-512 runs eight and picks them from
// registers (two two-register permutes and a blend), which measured about 1.6 times faster.
#include "array/exp_f32.h"

#include <cmath>
#include <cstring>

#include "array/isa.h"

#if defined(__x86_64__) && defined(__GLIBC__)
#include <immintrin.h>
#define PZ_EXP_F32_LANES 1
#endif

namespace pz::array {

namespace {

// exp of one value by the library, flushed (exp_f32.h) if Flush.
template <bool Flush>
float LibraryExp(float x) {
  return Flush ? FlushSubnormal(std::exp(x)) : std::exp(x);
}

#ifdef PZ_EXP_F32_LANES

double FromBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// glibc's __exp2f_data: 2^(i/32) less i << 47 (so that adding k << 47 scales by 2^(k/32)).
constexpr uint64_t kTable[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540};
constexpr uint64_t kInvLn2N = 0x40471547652b82fe;  // 32 / ln 2
constexpr uint64_t kShift = 0x4338000000000000;    // 0x1.8p52: adding it rounds to an integer
constexpr uint64_t kC0 = 0x3ebc6af84b912394;       // the cubic's coefficients, r^3 to r
constexpr uint64_t kC1 = 0x3f2ebfce50fac4f3;
constexpr uint64_t kC2 = 0x3f962e42ff0c52d6;
// Inputs of this magnitude or more (and NaN) take the library's call: glibc's own fast path ends at
// 88; with the flush, at 87 (exp(x) is subnormal below about -87.34).
template <bool Flush>
constexpr float kFastBound = Flush ? 87.0f : 88.0f;

template <bool Flush>
__attribute__((target("avx2,fma"))) void ExpLanes(const float* in, float* out, int64_t n) {
  const __m256d inv_ln2n = _mm256_set1_pd(FromBits(kInvLn2N));
  const __m256d shift = _mm256_set1_pd(FromBits(kShift));
  const __m256d c0 = _mm256_set1_pd(FromBits(kC0));
  const __m256d c1 = _mm256_set1_pd(FromBits(kC1));
  const __m256d c2 = _mm256_set1_pd(FromBits(kC2));
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256i index_mask = _mm256_set1_epi64x(31);
  const __m128 sign = _mm_set1_ps(-0.0f);
  const __m128 bound = _mm_set1_ps(kFastBound<Flush>);
  const auto* table = reinterpret_cast<const long long*>(kTable);
  int64_t whole = n - n % 4;
  for (int64_t i = 0; i < whole; i += 4) {
    __m128 x = _mm_loadu_ps(in + i);
    // (Not below the bound: at or above it, or NaN.)
    if (_mm_movemask_ps(_mm_cmpnlt_ps(_mm_andnot_ps(sign, x), bound)) != 0) {
      for (int k = 0; k < 4; ++k) out[i + k] = LibraryExp<Flush>(in[i + k]);
      continue;
    }
    __m256d xd = _mm256_cvtps_pd(x);
    __m256d kd = _mm256_fmadd_pd(inv_ln2n, xd, shift);
    __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, shift);
    __m256d r = _mm256_fmsub_pd(inv_ln2n, xd, kd);
    __m256i t = _mm256_i64gather_epi64(table, _mm256_and_si256(ki, index_mask), 8);
    __m256d s = _mm256_castsi256_pd(_mm256_add_epi64(t, _mm256_slli_epi64(ki, 47)));
    __m256d z = _mm256_fmadd_pd(r, c0, c1);
    __m256d r2 = _mm256_mul_pd(r, r);
    __m256d y = _mm256_fmadd_pd(r, c2, one);
    y = _mm256_fmadd_pd(z, r2, y);
    _mm_storeu_ps(out + i, _mm256_cvtpd_ps(_mm256_mul_pd(y, s)));
  }
  for (int64_t i = whole; i < n; ++i) out[i] = LibraryExp<Flush>(in[i]);
}

// GCC 12's AVX-512 headers start some conversions from _mm512_undefined, which its
// -Wmaybe-uninitialized reports as a use of an uninitialised value, a false alarm.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define PZ_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))

// The constants of the AVX-512 lanes, in registers for the whole loop.
struct Exp512 {
  __m512d inv_ln2n, shift, c0, c1, c2, one;
  // The table in four registers of eight entries; bit 4 of an index picks the upper pair.
  __m512i table0, table1, table2, table3, upper_half;
};

// exp of eight floats in the fast range.
PZ_AVX512 [[gnu::always_inline]] inline __m256 Exp8(const Exp512& k, __m256 x) {
  __m512d xd = _mm512_cvtps_pd(x);
  __m512d kd = _mm512_fmadd_pd(k.inv_ln2n, xd, k.shift);
  __m512i ki = _mm512_castpd_si512(kd);
  kd = _mm512_sub_pd(kd, k.shift);
  __m512d r = _mm512_fmsub_pd(k.inv_ln2n, xd, kd);
  __m512i lower = _mm512_permutex2var_epi64(k.table0, ki, k.table1);
  __m512i upper = _mm512_permutex2var_epi64(k.table2, ki, k.table3);
  __m512i t = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(ki, k.upper_half), lower, upper);
  __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64(ki, 47)));
  __m512d z = _mm512_fmadd_pd(r, k.c0, k.c1);
  __m512d r2 = _mm512_mul_pd(r, r);
  __m512d y = _mm512_fmadd_pd(r, k.c2, k.one);
  y = _mm512_fmadd_pd(z, r2, y);
  return _mm512_cvtpd_ps(_mm512_mul_pd(y, s));
}

// Which of eight floats are outside the fast range (all bits set in their lanes).
template <bool Flush>
PZ_AVX512 [[gnu::always_inline]] inline __m256 Large8(__m256 x) {
  __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  return _mm256_cmp_ps(magnitude, _mm256_set1_ps(kFastBound<Flush>), _CMP_NLT_UQ);
}

// Eight floats: in lanes when all are in the fast range, else by the library.
template <bool Flush>
PZ_AVX512 [[gnu::always_inline]] inline void Exp8Checked(const Exp512& k, const float* in,
                                                         float* out) {
  __m256 x = _mm256_loadu_ps(in);
  if (_mm256_movemask_ps(Large8<Flush>(x)) != 0) {
    for (int j = 0; j < 8; ++j) out[j] = LibraryExp<Flush>(in[j]);
    return;
  }
  _mm256_storeu_ps(out, Exp8(k, x));
}

// Thirty-two floats a turn (four independent groups of eight keep both FMA pipes busy: 1.2 times
// the speed of one group a turn), eight at a time where one is outside the fast range.
template <bool Flush>
PZ_AVX512 void ExpLanes512(const float* in, float* out, int64_t n) {
  Exp512 k;
  k.inv_ln2n = _mm512_set1_pd(FromBits(kInvLn2N));
  k.shift = _mm512_set1_pd(FromBits(kShift));
  k.c0 = _mm512_set1_pd(FromBits(kC0));
  k.c1 = _mm512_set1_pd(FromBits(kC1));
  k.c2 = _mm512_set1_pd(FromBits(kC2));
  k.one = _mm512_set1_pd(1.0);
  k.table0 = _mm512_loadu_si512(kTable);
  k.table1 = _mm512_loadu_si512(kTable + 8);
  k.table2 = _mm512_loadu_si512(kTable + 16);
  k.table3 = _mm512_loadu_si512(kTable + 24);
  k.upper_half = _mm512_set1_epi64(16);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 x0 = _mm256_loadu_ps(in + i), x1 = _mm256_loadu_ps(in + i + 8);
    __m256 x2 = _mm256_loadu_ps(in + i + 16), x3 = _mm256_loadu_ps(in + i + 24);
    __m256 large = _mm256_or_ps(_mm256_or_ps(Large8<Flush>(x0), Large8<Flush>(x1)),
                                _mm256_or_ps(Large8<Flush>(x2), Large8<Flush>(x3)));
    if (_mm256_movemask_ps(large) != 0) {
      for (int g = 0; g < 32; g += 8) Exp8Checked<Flush>(k, in + i + g, out + i + g);
      continue;
    }
    __m256 e0 = Exp8(k, x0), e1 = Exp8(k, x1);
    __m256 e2 = Exp8(k, x2), e3 = Exp8(k, x3);
    _mm256_storeu_ps(out + i, e0);
    _mm256_storeu_ps(out + i + 8, e1);
    _mm256_storeu_ps(out + i + 16, e2);
    _mm256_storeu_ps(out + i + 24, e3);
  }
  for (; i + 8 <= n; i += 8) Exp8Checked<Flush>(k, in + i, out + i);
  for (; i < n; ++i) out[i] = LibraryExp<Flush>(in[i]);
}

#undef PZ_AVX512
#pragma GCC diagnostic pop

using Lanes = void (*)(const float*, float*, int64_t);

// True when these lanes agree with the library on this machine, i.e. the C library's expf is
// the algorithm above (checked on a sweep of the fast range and its edges). The caller has
// checked that the CPU has the lanes' instructions.
bool LanesMatchLibrary(Lanes lanes) {
  constexpr int kCount = 4096;
  float in[kCount], got[kCount];
  for (int i = 0; i < kCount; ++i) {
    in[i] = -88.0f + 176.0f * static_cast<float>(i) / kCount + 1e-3f * static_cast<float>(i % 7);
  }
  in[0] = 0.0f;
  in[1] = -0.0f;
  in[2] = 1e-30f;
  in[3] = std::nextafter(88.0f, 0.0f);
  lanes(in, got, kCount);
  for (int i = 0; i < kCount; ++i) {
    float want = std::exp(in[i]);
    if (std::memcmp(&want, &got[i], sizeof want) != 0) return false;
  }
  return true;
}

#endif

}  // namespace

void ExpF32(const float* in, float* out, int64_t n, bool flush_subnormals) {
#ifdef PZ_EXP_F32_LANES
  // The check runs the unflushed lanes; the flushed ones compute as they do, on fewer inputs.
  struct Pair {
    Lanes exact = nullptr, flushed = nullptr;
  };
  static const Pair lanes = [] {
    Isa isa = RuntimeIsa();
    if (isa == Isa::kAvx512 && LanesMatchLibrary(&ExpLanes512<false>)) {
      return Pair{&ExpLanes512<false>, &ExpLanes512<true>};
    }
    if (isa >= Isa::kAvx2Fma && LanesMatchLibrary(&ExpLanes<false>)) {
      return Pair{&ExpLanes<false>, &ExpLanes<true>};
    }
    return Pair{};
  }();
  if (lanes.exact != nullptr) return (flush_subnormals ? lanes.flushed : lanes.exact)(in, out, n);
#endif
  if (flush_subnormals) {
    for (int64_t i = 0; i < n; ++i) out[i] = LibraryExp<true>(in[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
  }
}

}  // namespace pz::array
