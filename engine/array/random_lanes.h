// jax.random's hot loops eight values at a time with AVX2 and FMA (random.cpp picks them when
// RuntimeIsa() allows and a check at first use finds them agreeing with its own scalar loops bit
// for bit). Compiled without floating-point contraction, so that every multiply and add rounds
// where the scalar code's does.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pz::array::lanes {

// Whether this build has the lanes at all (x86-64 with GCC or Clang).
bool Built();

// out[i] = the xor of the two threefry2x32 words of key (k0, k1) at the 64-bit counter
// first + i, split (high, low).
void FillBits(uint32_t k0, uint32_t k1, uint64_t first, uint32_t* out, size_t n);

// The float32 uniforms in [lo, hi) jax.random.uniform makes of 32-bit draws (scalar bounds).
void UniformF32(const uint32_t* bits, float* out, size_t n, float lo, float hi);

// The float32 standard normals jax.random.normal makes of 32-bit draws: the uniform in
// (nextafter(-1, 0), 1) of each draw, through erf_inv (XLA's float32 polynomial around the C
// library's log1pf, here fdlibm's, as glibc has it) and times sqrt(2). Lanes whose log1pf needs
// one of fdlibm's rare branches (tiny or exact arguments) call `fallback` for that value.
void NormalF32(const uint32_t* bits, float* out, size_t n, float (*fallback)(uint32_t bits));

}  // namespace pz::array::lanes
