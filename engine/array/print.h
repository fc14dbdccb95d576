// Text forms of arrays, matching numpy 2.x's arrayprint and JAX's Array.__repr__ with default
// print options (line width 75, summarisation above 1000 elements with 3 edge items, floats in
// numpy's "maxprec" mode with precision 8). Used by `print(x)`, `repr(x)` and notebook output.
#pragma once

#include <string>

#include "array/array.h"

namespace pz::array {

enum class PrintStyle {
  kStr,        // str(x) / print(x): "[[0. 1. 2.]\n [3. 4. 5.]]"
  kJaxRepr,    // repr of a jax Array: "Array([0., 1.], dtype=float32)"
  kNumpyRepr,  // repr of a numpy ndarray: "array([0., 1.], dtype=float32)"
};

// The text numpy/JAX print for `a` in `style`. kJaxRepr appends ", weak_type=True" for weakly
// typed arrays as JAX does.
std::string FormatArray(const Array& a, PrintStyle style);

// str() of one element of `dtype` as a numpy scalar prints it ("2.0", "1e+06", "True", "3");
// bfloat16 prints as ml_dtypes does ("%g").
std::string FormatScalar(DType dtype, double value);

}  // namespace pz::array
