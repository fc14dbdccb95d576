// exp of float32 arrays, the one transcendental hot in kernels (softmax, flash attention). The
// values are exactly the C library's expf: on x86-64 with AVX2 and FMA, glibc's expf algorithm
// (the FMA variant its own dispatch picks on such CPUs) runs four values at a time, eight with
// AVX-512; elsewhere, or when a check at first use finds the C library computing differently,
// each value is a call.
#pragma once

#include <cmath>
#include <cstdint>

namespace pz::array {

// XLA on CPU flushes subnormal results of exp (and of what it builds on exp) to zero.
inline float FlushSubnormal(float v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
}

// out[i] = std::exp(in[i]) for i < n, bit for bit; with flush_subnormals, a subnormal result is
// +0 instead (XLA's CPU exp), in the same pass.
void ExpF32(const float* in, float* out, int64_t n, bool flush_subnormals = false);

}  // namespace pz::array
