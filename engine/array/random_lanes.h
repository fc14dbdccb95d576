// jax.random's hot loops eight values at a time with AVX2 and FMA (random_draws.cpp picks them
// when RuntimeIsa() allows and a check at first use finds them agreeing with its own scalar
// loops bit for bit). Compiled without floating-point contraction, so that every multiply and
// add rounds where the scalar code's does.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pz::array::lanes {

// XLA's float32 erf_inv polynomials (Giles, 2010), highest degree first: in w - 2.5 where
// w = -log1p(-x^2) < 5, else in sqrt(w) - 3. Shared by the scalar and the lane code.
inline constexpr float kErfInvSmall[9] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                                          -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                                          -0.00417768164f,  0.246640727f,    1.50140941f};
inline constexpr float kErfInvLarge[9] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                                          -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                                          0.00943887047f,   1.00167406f,     2.83297682f};

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
