// random_lanes.h: threefry2x32 and jax.random's float32 uniform and normal in AVX2 + FMA lanes.
// Each function mirrors a scalar loop of random_draws.cpp operation for operation (the same
// roundings in the same order), which random_draws.cpp checks before it uses them.
#include "array/random_lanes.h"

#include <cstring>

#include "array/random.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PZ_RANDOM_LANES 1
#endif

namespace pz::array::lanes {

#ifdef PZ_RANDOM_LANES

namespace {

#define PZ_AVX2 __attribute__((target("avx2,fma")))
#define PZ_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

constexpr uint32_t kThreefryParity = 0x1BD11BDA;

// One threefry round with rotation R.
template <int R>
PZ_AVX2_INLINE void Round(__m256i& x0, __m256i& x1) {
  x0 = _mm256_add_epi32(x0, x1);
  x1 = _mm256_or_si256(_mm256_slli_epi32(x1, R), _mm256_srli_epi32(x1, 32 - R));
  x1 = _mm256_xor_si256(x1, x0);
}

// Four rounds with rotations R0..R3.
template <int R0, int R1, int R2, int R3>
PZ_AVX2_INLINE void Rounds(__m256i& x0, __m256i& x1) {
  Round<R0>(x0, x1);
  Round<R1>(x0, x1);
  Round<R2>(x0, x1);
  Round<R3>(x0, x1);
}

// The key injection after block `b` (0-based): x0 += ks[(b + 1) % 3], x1 += ks[(b + 2) % 3] + b
// + 1.
PZ_AVX2_INLINE void Inject(__m256i& x0, __m256i& x1, uint32_t add0, uint32_t add1) {
  x0 = _mm256_add_epi32(x0, _mm256_set1_epi32(static_cast<int>(add0)));
  x1 = _mm256_add_epi32(x1, _mm256_set1_epi32(static_cast<int>(add1)));
}

PZ_AVX2 void FillBitsAvx2(uint32_t k0, uint32_t k1, uint64_t first, uint32_t* out, size_t n) {
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ kThreefryParity};
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t count = first + i;
    auto low = static_cast<uint32_t>(count);
    __m256i x0, x1;
    if (low <= 0xFFFFFFF8u) {  // the eight low words do not wrap
      x0 = _mm256_set1_epi32(static_cast<int>(count >> 32));
      x1 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(low)), iota);
    } else {
      alignas(32) uint32_t high_words[8], low_words[8];
      for (int l = 0; l < 8; ++l) {
        high_words[l] = static_cast<uint32_t>((count + l) >> 32);
        low_words[l] = static_cast<uint32_t>(count + l);
      }
      x0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(high_words));
      x1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(low_words));
    }
    Inject(x0, x1, ks[0], ks[1]);
    Rounds<13, 15, 26, 6>(x0, x1);
    Inject(x0, x1, ks[1], ks[2] + 1);
    Rounds<17, 29, 16, 24>(x0, x1);
    Inject(x0, x1, ks[2], ks[0] + 2);
    Rounds<13, 15, 26, 6>(x0, x1);
    Inject(x0, x1, ks[0], ks[1] + 3);
    Rounds<17, 29, 16, 24>(x0, x1);
    Inject(x0, x1, ks[1], ks[2] + 4);
    Rounds<13, 15, 26, 6>(x0, x1);
    Inject(x0, x1, ks[2], ks[0] + 5);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_xor_si256(x0, x1));
  }
  for (; i < n; ++i) {
    uint64_t count = first + i;
    auto [b0, b1] =
        Threefry2x32(k0, k1, static_cast<uint32_t>(count >> 32), static_cast<uint32_t>(count));
    out[i] = b0 ^ b1;
  }
}

PZ_AVX2_INLINE __m256 Bits(uint32_t word) {
  return _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(word)));
}
PZ_AVX2_INLINE __m256 Float(float value) { return _mm256_set1_ps(value); }
PZ_AVX2_INLINE __m256 Select(__m256 mask, __m256 if_true, __m256 if_false) {
  return _mm256_blendv_ps(if_false, if_true, mask);
}
PZ_AVX2_INLINE __m256i SelectInt(__m256i mask, __m256i if_true, __m256i if_false) {
  return _mm256_blendv_epi8(if_false, if_true, mask);
}

// fdlibm's log1pf (glibc's sysdeps/ieee754/flt-32/s_log1pf.c) for arguments in (-1, 0.41422):
// the main branches, both computed and selected per lane. Lanes that need another branch
// (|x| < 2^-29, x <= -1, or a reduced argument with no mantissa bits) are set in `odd`.
PZ_AVX2_INLINE __m256 Log1pf(__m256 x, __m256& odd) {
  const __m256 one = Float(1.0f);
  const __m256i hx = _mm256_castps_si256(x);
  const __m256i ax = _mm256_and_si256(hx, _mm256_set1_epi32(0x7fffffff));
  // ax >= 0x3f800000 (x <= -1 or x >= 1), ax < 0x31000000 (tiny), hx >= 0x3ed413d7 (x >= 0.41422).
  __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x3f7fffff)),
                                _mm256_cmpgt_epi32(_mm256_set1_epi32(0x31000000), ax));
  bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(hx, _mm256_set1_epi32(0x3ed413d6)));
  // k = 0 where -0.2929 < x < 0.41422: hx > 0 or hx <= (int32)0xbe95f61f.
  const __m256i small =
      _mm256_or_si256(_mm256_cmpgt_epi32(hx, _mm256_setzero_si256()),
                      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(0xbe95f620u)), hx));
  // Elsewhere: u = 1 + x, k its exponent, c the rounding correction over u.
  __m256 u = _mm256_add_ps(one, x);
  __m256i hu = _mm256_castps_si256(u);
  __m256i k = _mm256_sub_epi32(_mm256_srai_epi32(hu, 23), _mm256_set1_epi32(127));
  __m256 k_positive = _mm256_castsi256_ps(_mm256_cmpgt_epi32(k, _mm256_setzero_si256()));
  __m256 c = Select(k_positive, _mm256_sub_ps(one, _mm256_sub_ps(u, x)),
                    _mm256_sub_ps(x, _mm256_sub_ps(u, one)));
  c = _mm256_div_ps(c, u);
  hu = _mm256_and_si256(hu, _mm256_set1_epi32(0x007fffff));
  __m256i halve = _mm256_cmpgt_epi32(hu, _mm256_set1_epi32(0x3504f6));
  __m256 normalized = _mm256_castsi256_ps(_mm256_or_si256(
      hu, SelectInt(halve, _mm256_set1_epi32(0x3f000000), _mm256_set1_epi32(0x3f800000))));
  k = _mm256_sub_epi32(k, halve);  // halve is -1 where set: k += 1
  hu = SelectInt(halve, _mm256_srli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(0x00800000), hu), 2),
                 hu);
  __m256 f_reduced = _mm256_sub_ps(normalized, one);
  // The k = 0 branch: f = x, hu = 1.
  __m256 f = Select(_mm256_castsi256_ps(small), x, f_reduced);
  k = _mm256_andnot_si256(small, k);
  hu = SelectInt(small, _mm256_set1_epi32(1), hu);
  c = _mm256_andnot_ps(_mm256_castsi256_ps(small), c);
  bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(hu, _mm256_setzero_si256()));
  odd = _mm256_castsi256_ps(bad);

  __m256 hfsq = _mm256_mul_ps(_mm256_mul_ps(Float(0.5f), f), f);
  __m256 s = _mm256_div_ps(f, _mm256_add_ps(Float(2.0f), f));
  __m256 z = _mm256_mul_ps(s, s);
  __m256 r = Bits(0x3E178897);  // Lp7, then Horner with separate multiply and add
  for (uint32_t lp :
       {0x3E1CD04Fu, 0x3E3A3325u, 0x3E638E29u, 0x3E924925u, 0x3ECCCCCDu, 0x3F2AAAABu}) {
    r = _mm256_add_ps(Bits(lp), _mm256_mul_ps(z, r));
  }
  r = _mm256_mul_ps(z, r);
  __m256 s_term = _mm256_mul_ps(s, _mm256_add_ps(hfsq, r));
  __m256 no_k = _mm256_sub_ps(f, _mm256_sub_ps(hfsq, s_term));
  __m256 kf = _mm256_cvtepi32_ps(k);
  __m256 ln2_hi = Bits(0x3f317180), ln2_lo = Bits(0x3717f7d1);
  __m256 with_k = _mm256_sub_ps(
      _mm256_mul_ps(kf, ln2_hi),
      _mm256_sub_ps(
          _mm256_sub_ps(hfsq, _mm256_add_ps(s_term, _mm256_add_ps(_mm256_mul_ps(kf, ln2_lo), c))),
          f));
  __m256 k_zero = _mm256_castsi256_ps(_mm256_cmpeq_epi32(k, _mm256_setzero_si256()));
  return Select(k_zero, no_k, with_k);
}

// jax.random.uniform's [0, 1) float32 of eight draws: their top 23 bits under the exponent of 1.0,
// minus 1.
PZ_AVX2_INLINE __m256 Unit(const uint32_t* bits) {
  __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits));
  __m256i pattern = _mm256_or_si256(_mm256_srli_epi32(b, 9), _mm256_set1_epi32(0x3F800000));
  return _mm256_sub_ps(_mm256_castsi256_ps(pattern), Float(1.0f));
}

PZ_AVX2 void UniformF32Avx2(const uint32_t* bits, float* out, size_t n, float lo_value,
                            float hi_value) {
  const __m256 lo = Float(lo_value);
  const __m256 span = Float(hi_value - lo_value);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 unit = Unit(bits + i);
    _mm256_storeu_ps(out + i, _mm256_max_ps(_mm256_fmadd_ps(unit, span, lo), lo));
  }
  if (i < n) {  // the tail through a full lane, padded
    uint32_t tail_bits[8] = {};
    float tail_out[8];
    std::memcpy(tail_bits, bits + i, (n - i) * sizeof(uint32_t));
    UniformF32Avx2(tail_bits, tail_out, 8, lo_value, hi_value);
    std::memcpy(out + i, tail_out, (n - i) * sizeof(float));
  }
}

PZ_AVX2 void NormalF32Avx2(const uint32_t* bits, float* out, size_t n,
                           float (*fallback)(uint32_t)) {
  // The uniform in [lo, 1): lo = nextafter(-1, 0) as JAX rounds it, span = 1 - lo in float32.
  const float lo_value = -1.0f + 0x1p-24f;
  const __m256 lo = Float(lo_value);
  const __m256 span = Float(1.0f - lo_value);
  const __m256 one = Float(1.0f);
  const __m256 sign = Float(-0.0f);
  const __m256 sqrt2 = Float(static_cast<float>(1.4142135623730951));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 unit = Unit(bits + i);
    __m256 v = _mm256_max_ps(_mm256_fmadd_ps(unit, span, lo), lo);
    // erf_inv(v): w = -log1p(v * -v), then a degree-8 polynomial in w - 2.5 or sqrt(w) - 3.
    __m256 odd;
    __m256 w = _mm256_xor_ps(Log1pf(_mm256_mul_ps(v, _mm256_xor_ps(v, sign)), odd), sign);
    __m256 small = _mm256_cmp_ps(w, Float(5.0f), _CMP_LT_OQ);
    w = Select(small, _mm256_sub_ps(w, Float(2.5f)), _mm256_sub_ps(_mm256_sqrt_ps(w), Float(3.0f)));
    __m256 p = Select(small, Float(kErfInvSmall[0]), Float(kErfInvLarge[0]));
    for (int c = 1; c < 9; ++c) {
      p = _mm256_fmadd_ps(p, w, Select(small, Float(kErfInvSmall[c]), Float(kErfInvLarge[c])));
    }
    odd = _mm256_or_ps(odd, _mm256_cmp_ps(_mm256_andnot_ps(sign, v), one, _CMP_EQ_OQ));
    _mm256_storeu_ps(out + i, _mm256_mul_ps(sqrt2, _mm256_mul_ps(p, v)));
    if (int lanes = _mm256_movemask_ps(odd); lanes != 0) {
      for (int l = 0; l < 8; ++l) {
        if (lanes & (1 << l)) out[i + l] = fallback(bits[i + l]);
      }
    }
  }
  for (; i < n; ++i) out[i] = fallback(bits[i]);
}

}  // namespace

bool Built() { return true; }

void FillBits(uint32_t k0, uint32_t k1, uint64_t first, uint32_t* out, size_t n) {
  FillBitsAvx2(k0, k1, first, out, n);
}

void UniformF32(const uint32_t* bits, float* out, size_t n, float lo, float hi) {
  UniformF32Avx2(bits, out, n, lo, hi);
}

void NormalF32(const uint32_t* bits, float* out, size_t n, float (*fallback)(uint32_t bits)) {
  NormalF32Avx2(bits, out, n, fallback);
}

#else

bool Built() { return false; }
void FillBits(uint32_t, uint32_t, uint64_t, uint32_t*, size_t) {}
void UniformF32(const uint32_t*, float*, size_t, float, float) {}
void NormalF32(const uint32_t*, float*, size_t, float (*)(uint32_t)) {}

#endif

}  // namespace pz::array::lanes
