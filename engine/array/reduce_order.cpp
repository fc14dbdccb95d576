// JAX's CPU summation orders (reduce_order.h).
#include "array/reduce_order.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "array/isa.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace pz::array {

namespace {

constexpr int64_t kWindow = 32;            // XLA's reduce-window size on CPU
constexpr int64_t kYnnMinElements = 4096;  // below this XLA keeps the reduction for itself
constexpr int64_t kLanes = 16;
constexpr int64_t kTileRows = 64;

float Combine(bool product, float acc, float v) { return product ? acc * v : acc + v; }

// One row-major fold over `dims` of x[i * stride], from the identity.
float Fold(const float* x, int64_t stride, int64_t count, bool product) {
  float acc = product ? 1.0f : 0.0f;
  for (int64_t i = 0; i < count; ++i) acc = Combine(product, acc, x[i * stride]);
  return acc;
}

// One reduce-window level: windows of min(d, 32) along every dimension, "same" padding.
std::vector<float> WindowLevel(const float* x, int64_t stride, std::vector<int64_t>& dims,
                               bool product) {
  size_t rank = dims.size();
  std::vector<int64_t> window(rank), outs(rank), low(rank), in_strides(rank, 1);
  int64_t out_count = 1;
  for (size_t i = 0; i < rank; ++i) {
    window[i] = std::min(dims[i], kWindow);
    outs[i] = (dims[i] + window[i] - 1) / window[i];
    low[i] = (outs[i] * window[i] - dims[i]) / 2;
    out_count *= outs[i];
  }
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * dims[i];
  std::vector<float> result(static_cast<size_t>(out_count));
  std::vector<int64_t> o(rank, 0), k(rank, 0);
  for (int64_t w = 0; w < out_count; ++w) {
    float acc = product ? 1.0f : 0.0f;
    std::fill(k.begin(), k.end(), 0);
    while (true) {
      int64_t flat = 0;
      bool inside = true;
      for (size_t i = 0; i < rank && inside; ++i) {
        int64_t at = o[i] * window[i] + k[i] - low[i];
        inside = at >= 0 && at < dims[i];
        flat += at * in_strides[i];
      }
      if (inside) acc = Combine(product, acc, x[flat * stride]);
      size_t i = rank;
      while (i > 0 && ++k[i - 1] == window[i - 1]) k[--i] = 0;
      if (i == 0) break;
    }
    result[static_cast<size_t>(w)] = acc;
    size_t i = rank;
    while (i > 0 && ++o[i - 1] == outs[i - 1]) o[--i] = 0;
  }
  dims = outs;
  return result;
}

using Lanes = std::array<float, kLanes>;

// total += x with Kahan's compensation (as YNNPACK adds whole tiles into a lane's total). Once
// the total is infinite or NaN the compensation means nothing and is dropped, so that it cannot
// turn an infinite sum into NaN (inf - inf): JAX sums -inf and finite values to -inf.
inline void KahanStep(float x, float& total, float& error) {
  float y = x - error;
  float t = total + y;
  error = std::isfinite(t) ? (t - total) - y : 0.0f;
  total = t;
}

// The lanes of YNNPACK's tile order over `rows` rows of `width` floats (row r at row(r)),
// accumulated into `total`: blocks of 4 rows, blocks of 16 rows, tiles of 64 rows, and the
// tiles added with Kahan's compensation.
// `zero` is an accumulator of zeros of the right width.
template <typename Acc, typename RowFn>
void TileOrder(int64_t rows, RowFn row, const Acc& zero, Acc& total) {
  auto add_rows = [&](Acc& acc, int64_t first, int64_t count) {
    Acc local = zero;
    for (int64_t r = first; r < first + count; ++r) local.Add(row(r));
    acc.Add(local);
  };
  Acc error = zero;  // Kahan's running compensation, per lane
  for (int64_t tile = 0; tile < rows; tile += kTileRows) {
    int64_t count = std::min(kTileRows, rows - tile);
    Acc acc = zero;
    int64_t s = 0;
    for (; count - s >= 16; s += 16) {
      Acc block = zero;
      for (int64_t q = 0; q < 16; q += 4) add_rows(block, tile + s + q, 4);
      acc.Add(block);
    }
    for (; count - s >= 4; s += 4) add_rows(acc, tile + s, 4);
    if (s < count) add_rows(acc, tile + s, count - s);
    total.KahanAdd(acc, error);
  }
}

struct LaneAcc {
  Lanes v{};
  void Add(const float* x) {
    for (int64_t i = 0; i < kLanes; ++i) v[static_cast<size_t>(i)] += x[i];
  }
  void Add(const LaneAcc& o) { Add(o.v.data()); }
  void KahanAdd(const LaneAcc& o, LaneAcc& error) {
    for (size_t i = 0; i < v.size(); ++i) KahanStep(o.v[i], v[i], error.v[i]);
  }
};

// Accumulators for a run of up to kColumnChunk columns.
constexpr int64_t kColumnChunk = 256;
struct ColumnAcc {
  int64_t width = 0;
  std::array<float, kColumnChunk> v{};
  void Add(const float* x) {
    for (int64_t i = 0; i < width; ++i) v[static_cast<size_t>(i)] += x[i];
  }
  void Add(const ColumnAcc& o) { Add(o.v.data()); }
  void KahanAdd(const ColumnAcc& o, ColumnAcc& error) {
    for (size_t i = 0; i < static_cast<size_t>(width); ++i) KahanStep(o.v[i], v[i], error.v[i]);
  }
};

}  // namespace

float XlaTreeReduce(const float* x, int64_t stride, std::span<const int64_t> dims, bool product) {
  std::vector<int64_t> shape(dims.begin(), dims.end());
  auto count = [&] {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  };
  auto short_enough = [&] {
    return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d <= kWindow; });
  };
  if (short_enough() || count() == 0) return Fold(x, stride, count(), product);
  std::vector<float> level = WindowLevel(x, stride, shape, product);
  while (!short_enough()) level = WindowLevel(level.data(), 1, shape, product);
  return Fold(level.data(), 1, count(), product);
}

bool SumUsesYnnpack(int64_t elements) { return elements >= kYnnMinElements; }

namespace {

// YnnRowSum in plain C++ (LaneAcc's arrays).
float RowSumBaseline(const float* x, int64_t k1) {
  int64_t rows = (k1 + kLanes - 1) / kLanes;
  Lanes tail{};
  int64_t whole = k1 / kLanes;
  std::copy(x + whole * kLanes, x + k1, tail.begin());
  LaneAcc total;
  TileOrder(
      rows, [&](int64_t r) { return r < whole ? x + r * kLanes : tail.data(); }, LaneAcc{}, total);
  for (int64_t half = kLanes / 2; half >= 1; half /= 2) {
    for (int64_t i = 0; i < half; ++i) {
      total.v[static_cast<size_t>(i)] += total.v[static_cast<size_t>(i + half)];
    }
  }
  return 0.0f + total.v[0];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PZ_AVX2 __attribute__((target("avx2")))

// RowSumBaseline with the sixteen lanes in two AVX2 registers: the same additions in the same
// order (no instruction set changes a float addition's result).
struct Lanes16 {
  __m256 lo, hi;
};

PZ_AVX2 [[gnu::always_inline]] inline Lanes16 Zero16() {
  return {_mm256_setzero_ps(), _mm256_setzero_ps()};
}

PZ_AVX2 [[gnu::always_inline]] inline void Add16(Lanes16& acc, const Lanes16& o) {
  acc.lo = _mm256_add_ps(acc.lo, o.lo);
  acc.hi = _mm256_add_ps(acc.hi, o.hi);
}

PZ_AVX2 [[gnu::always_inline]] inline void AddRow16(Lanes16& acc, const float* x) {
  acc.lo = _mm256_add_ps(acc.lo, _mm256_loadu_ps(x));
  acc.hi = _mm256_add_ps(acc.hi, _mm256_loadu_ps(x + 8));
}

// Lanes of `t` that are finite: all ones there, zeros where t is infinite or NaN.
PZ_AVX2 [[gnu::always_inline]] inline __m256 FiniteMask(__m256 t) {
  __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), t);
  return _mm256_cmp_ps(magnitude, _mm256_set1_ps(std::numeric_limits<float>::infinity()),
                       _CMP_LT_OQ);
}

// KahanStep, lane by lane (the compensation dropped where the total is not finite).
PZ_AVX2 [[gnu::always_inline]] inline void KahanAdd16(Lanes16& total, Lanes16& error,
                                                      const Lanes16& o) {
  __m256 y = _mm256_sub_ps(o.lo, error.lo);
  __m256 t = _mm256_add_ps(total.lo, y);
  error.lo = _mm256_and_ps(_mm256_sub_ps(_mm256_sub_ps(t, total.lo), y), FiniteMask(t));
  total.lo = t;
  y = _mm256_sub_ps(o.hi, error.hi);
  t = _mm256_add_ps(total.hi, y);
  error.hi = _mm256_and_ps(_mm256_sub_ps(_mm256_sub_ps(t, total.hi), y), FiniteMask(t));
  total.hi = t;
}

// The sums of R rows (row j at x + j * stride), each added as RowSumBaseline adds it; the rows'
// additions interleave, so that one row's dependent additions overlap another's.
template <int R>
PZ_AVX2 [[gnu::always_inline]] inline void RowSumsAvx2Body(const float* x, int64_t stride,
                                                           int64_t k1, float* out) {
  int64_t rows = (k1 + kLanes - 1) / kLanes;
  int64_t whole = k1 / kLanes;
  alignas(32) float tail[R][kLanes] = {};
  for (int j = 0; j < R; ++j)
    std::copy(x + j * stride + whole * kLanes, x + j * stride + k1, tail[j]);
  auto row = [&](int j, int64_t r) { return r < whole ? x + j * stride + r * kLanes : tail[j]; };
  // TileOrder with LaneAcc, spelled out.
  auto add_rows = [&](Lanes16(&acc)[R], int64_t first, int64_t count) PZ_AVX2 {
    Lanes16 local[R];
    for (int j = 0; j < R; ++j) local[j] = Zero16();
    for (int64_t r = first; r < first + count; ++r) {
      for (int j = 0; j < R; ++j) AddRow16(local[j], row(j, r));
    }
    for (int j = 0; j < R; ++j) Add16(acc[j], local[j]);
  };
  Lanes16 total[R], error[R];
  for (int j = 0; j < R; ++j) total[j] = error[j] = Zero16();
  for (int64_t tile = 0; tile < rows; tile += kTileRows) {
    int64_t count = std::min(kTileRows, rows - tile);
    Lanes16 acc[R];
    for (int j = 0; j < R; ++j) acc[j] = Zero16();
    int64_t s = 0;
    for (; count - s >= 16; s += 16) {
      Lanes16 block[R];
      for (int j = 0; j < R; ++j) block[j] = Zero16();
      for (int64_t q = 0; q < 16; q += 4) add_rows(block, tile + s + q, 4);
      for (int j = 0; j < R; ++j) Add16(acc[j], block[j]);
    }
    for (; count - s >= 4; s += 4) add_rows(acc, tile + s, 4);
    if (s < count) add_rows(acc, tile + s, count - s);
    for (int j = 0; j < R; ++j) KahanAdd16(total[j], error[j], acc[j]);
  }
  // The halving tree: lane i + lane i+8, then i+4, i+2, i+1.
  for (int j = 0; j < R; ++j) {
    __m256 eight = _mm256_add_ps(total[j].lo, total[j].hi);
    __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
    __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
    __m128 one = _mm_add_ss(two, _mm_shuffle_ps(two, two, 1));
    out[j] = 0.0f + _mm_cvtss_f32(one);
  }
}

template <int R>
PZ_AVX2 void RowSumsAvx2(const float* x, int64_t stride, int64_t k1, float* out) {
  RowSumsAvx2Body<R>(x, stride, k1, out);
}

// The same for rows of K1 floats, known when compiled: the tile loops unroll (about twice as
// fast for the rows of 64 to 256 that kernels' blocks have). (GCC 12, folding K1 in, warns of
// overflow in the loop over a last partial group of rows, which such K1 never reach.)
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
template <int R, int64_t K1>
PZ_AVX2 void RowSumsAvx2Of(const float* x, int64_t stride, float* out) {
  static_assert(K1 % (4 * kLanes) == 0 && K1 <= kTileRows * kLanes);
  RowSumsAvx2Body<R>(x, stride, K1, out);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Groups of four rows of k1 floats, `rows` rows from x into out; returns the rows done.
int64_t RowSumsAvx2Groups(const float* x, int64_t rows, int64_t k1, float* out) {
  auto groups = [&](auto sums) {
    int64_t r = 0;
    for (; rows - r >= 4; r += 4) sums(x + r * k1, out + r);
    return r;
  };
  switch (k1) {
    case 64:
      return groups([](const float* p, float* o) { RowSumsAvx2Of<4, 64>(p, 64, o); });
    case 128:
      return groups([](const float* p, float* o) { RowSumsAvx2Of<4, 128>(p, 128, o); });
    case 256:
      return groups([](const float* p, float* o) { RowSumsAvx2Of<4, 256>(p, 256, o); });
    default:
      return groups([k1](const float* p, float* o) { RowSumsAvx2<4>(p, k1, k1, o); });
  }
}

#undef PZ_AVX2
#endif

}  // namespace

float YnnRowSum(const float* x, int64_t k1) {
  float sum;
  YnnRowSums(x, 1, k1, &sum);
  return sum;
}

void YnnRowSums(const float* x, int64_t rows, int64_t k1, float* out) {
  int64_t r = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx2 = RuntimeIsa() >= Isa::kAvx2Fma;
  if (avx2) {
    r = RowSumsAvx2Groups(x, rows, k1, out);
    for (; r < rows; ++r) RowSumsAvx2<1>(x + r * k1, k1, k1, out + r);
  }
#endif
  for (; r < rows; ++r) out[r] = RowSumBaseline(x + r * k1, k1);
}

void YnnColumnSums(const float* x, int64_t count, int64_t stride, int64_t width, float* out) {
  for (int64_t first = 0; first < width; first += kColumnChunk) {
    ColumnAcc zero;
    zero.width = std::min(kColumnChunk, width - first);
    ColumnAcc total = zero;
    TileOrder(
        count, [&](int64_t r) { return x + r * stride + first; }, zero, total);
    for (int64_t j = 0; j < zero.width; ++j) out[first + j] += total.v[static_cast<size_t>(j)];
  }
}

}  // namespace pz::array
