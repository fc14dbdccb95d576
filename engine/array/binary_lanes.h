// The float32 binary ops kernels spend most time in (add, sub, mul, max, min) in AVX2 lanes,
// picked at run time (isa.h). Each computes exactly what the scalar kernel of
// elementwise_binary_kernels.h computes: the arithmetic is the same IEEE operation per element,
// and max / min keep XLA's rules (NaN if either is NaN, max(-0, +0) = +0, min(-0, +0) = -0).
#pragma once

#include <cstdint>

#include "array/elementwise.h"

namespace pz::array {

// out[i] = x[i * x_step] op y[i * y_step] for i < n, with steps of 0 (one value broadcast) or 1.
// `out` may be `x` or `y` (in place) but must not otherwise overlap them.
using F32BinaryLanes = void (*)(const float* x, int64_t x_step, const float* y, int64_t y_step,
                                float* out, int64_t n);

// The lanes of `op` on this CPU, or null (no AVX2, PZ_ISA=baseline, or not one of the five ops).
F32BinaryLanes F32LanesFor(BinaryOp op);

}  // namespace pz::array
