// The values of jax.random's streams one draw at a time (the threefry draws, the uniform and the
// normal of a draw) and the loops that make many of them: AVX2 lanes (random_lanes.h) where
// RuntimeIsa() allows them and a check at first use finds them equal to the scalar loops here,
// split across the hardware threads when long. Internal to the array layer (random.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "array/dtype.h"

namespace pz::array::draws {

// out[i] = the xor of the two threefry2x32 words of key (k0, k1) at the 64-bit counter
// first + i, split (high, low): element i of the partitionable stream that starts at `first`.
void FillBits(uint32_t k0, uint32_t k1, uint64_t first, uint32_t* out, size_t n);

// The float in [0, 1) that jax.random.uniform builds from one draw in `dtype`.
float UnitFloat(uint32_t bits, DType dtype);
// The uniform value of one draw in [lo, hi), the bounds already rounded to `dtype`.
float UniformOfDraw(uint32_t bits, DType dtype, float lo, float hi);
// jax.random.normal's value of one draw in `dtype`.
float NormalOfDraw(uint32_t bits, DType dtype);

// out[i] = UniformOfDraw(bits[i], float32, lo, hi) and NormalOfDraw(bits[i], float32), for
// i < n, in lanes and threads where they can.
void UniformF32(const uint32_t* bits, float* out, size_t n, float lo, float hi);
void NormalF32(const uint32_t* bits, float* out, size_t n);

}  // namespace pz::array::draws
