// jax.lax operations that jax.numpy has no spelling of: clamp, bitcast_convert_type,
// dynamic_slice and the logical right shift. Each is one primitive (array/prims.def).
#pragma once

#include <vector>

#include "array/array.h"

namespace pz::array {

// lax.clamp(lo, x, hi): min(max(x, lo), hi) in x's dtype. lo and hi are scalars or of x's shape
// and of x's dtype (weakly typed Python numbers are converted to it).
Array Clamp(const Array& lo, const Array& x, const Array& hi);

// lax.bitcast_convert_type: the same bits read as another dtype. A narrower dtype adds a trailing
// axis of (old width / new width) elements; a wider one needs a trailing axis of (new width /
// old width) elements and removes it.
Array BitcastConvertType(const Array& x, DType dtype);

// lax.dynamic_slice(x, starts, sizes): the block of `sizes` at the (traced) scalar integer
// `starts`, each clamped into [0, dim - size] as XLA does.
Array DynamicSlice(const Array& x, const std::vector<Array>& starts, const Shape& sizes);

// lax.shift_right_logical: zeros shifted in, for signed integers too.
Array ShiftRightLogical(const Array& x, const Array& y);

}  // namespace pz::array
