// Max and min reductions of one row (reduce.cpp's Extreme and LastAxisReduction): the row loop
// every dtype has, and for float32 the same in SSE or AVX2 lanes (reduce_extreme.cpp), each
// giving exactly the loop's answer: NaN propagates, and a zero extreme is the row's first zero.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "array/element.h"

namespace pz::array {

#if defined(__SSE2__)
constexpr bool kF32ExtremeLanes = true;
#else
constexpr bool kF32ExtremeLanes = false;
#endif

// The extreme of a float32 row in the widest lanes this CPU has (AVX2 from 32 elements, SSE from
// 16); nullopt when the row is too short for them, or holds a NaN.
std::optional<float> ExtremeF32InLanes(bool is_max, const float* x, int64_t n);

// Max or min of each of `rows` rows of n floats from x into out, four rows at a time in AVX2
// lanes where the CPU has them and the rows are long enough for them (32 elements, as
// ExtremeF32InLanes); false (nothing written) otherwise.
bool ExtremeF32Rows(bool is_max, const float* x, int64_t rows, int64_t n, float* out);

// Max (min) of a float row that holds no NaN, equal to the sequential loop of Extreme: eight
// independent lanes, then the lanes. Equal non-zero floats are the same bits; when the extreme is
// zero, the loop keeps the first zero of the row (+0 and -0 compare equal), and so does this.
template <DType D, bool kMax>
float NanFreeExtreme(const StorageOf<D>* x, int64_t n) {
  constexpr int kLanes = 8;
  auto better = [](float v, float best) { return (kMax ? v > best : v < best) ? v : best; };
  float lanes[kLanes];
  for (int k = 0; k < kLanes; ++k) lanes[k] = Element<D>::Load(x[k]);
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes) {
    for (int k = 0; k < kLanes; ++k) lanes[k] = better(Element<D>::Load(x[i + k]), lanes[k]);
  }
  for (; i < n; ++i) lanes[0] = better(Element<D>::Load(x[i]), lanes[0]);
  float best = lanes[0];
  for (int k = 1; k < kLanes; ++k) best = better(lanes[k], best);
  if (best == 0) {
    for (int64_t j = 0; j < n; ++j) {
      if (Element<D>::Load(x[j]) == 0) return Element<D>::Load(x[j]);
    }
  }
  return best;
}

// Max or min of one row; NaN propagates.
template <DType D>
ComputeOf<D> ExtremeRow(bool is_max, const StorageOf<D>* x, int64_t n) {
  using C = ComputeOf<D>;
  if constexpr (D == DType::kFloat32) {
    if (std::optional<float> lanes = ExtremeF32InLanes(is_max, x, n)) return *lanes;
  }
  // (Where float32 has lanes, a row they declined is short or holds a NaN: the loop below.)
  if constexpr (std::is_same_v<C, float> && !(D == DType::kFloat32 && kF32ExtremeLanes)) {
    if (n >= 16) {
      bool nan = false;
      for (int64_t i = 0; i < n; ++i) nan |= std::isnan(Element<D>::Load(x[i]));
      if (!nan) return is_max ? NanFreeExtreme<D, true>(x, n) : NanFreeExtreme<D, false>(x, n);
    }
  }
  C best = Element<D>::Load(x[0]);
  for (int64_t i = 1; i < n; ++i) {
    C v = Element<D>::Load(x[i]);
    if constexpr (std::is_same_v<C, float>) {
      if (std::isnan(best)) break;
      if (std::isnan(v) || (is_max ? v > best : v < best)) best = v;
    } else {
      if (is_max ? v > best : v < best) best = v;
    }
  }
  return best;
}

}  // namespace pz::array
