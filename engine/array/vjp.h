// Reverse-mode derivative rules of the primitives (prims.def): given a primitive call, its
// operands, its results and the cotangents of its results, the cotangents of its operands. This
// is the transpose of each primitive's linearisation, as JAX's `ad.defjvp` / transpose rules
// define it (ties of max and min split the cotangent in halves; a reduce_max shares it between
// every maximal element; integer and boolean values carry no cotangent). jax.grad, jax.vjp and
// jax.jvp (kernel/autodiff.cpp) walk a recorded computation backwards with these rules.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "array/prims.h"

namespace pz::array {

// A primitive with no reverse-mode rule here (sort, reduce_prod, ...): `prim` names it as JAX
// does.
struct VjpUnsupported {
  std::string prim;
  std::string why;
};

// Whether values of `dtype` carry cotangents (floating point dtypes only).
bool Differentiable(DType dtype);

// The cotangents of `inputs` given those of `outputs` (`output_cts[i]` nullopt: zero). The
// result has one entry per input; nullopt where the input carries none (an integer operand, or
// a cotangent that is zero by construction). Each cotangent has its input's shape and dtype.
// The rules are eager primitive calls: a recorder that listens hears them (jax.jvp records the
// backward pass). Throws VjpUnsupported.
std::vector<std::optional<Array>> Vjp(const PrimCall& call, const std::vector<Array>& inputs,
                                      const std::vector<Array>& outputs,
                                      const std::vector<std::optional<Array>>& output_cts);

// `ct` (of a broadcast result) summed back to `shape` (numpy broadcasting: leading axes and
// size-1 axes) and converted to `dtype`.
Array Unbroadcast(const Array& ct, const Shape& shape, DType dtype);

}  // namespace pz::array
