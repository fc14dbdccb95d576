// jax.lax operations that jax.numpy has no spelling of: clamp, bitcast_convert_type,
// dynamic_slice and the shifts. Each is one primitive (array/prims.def).
#pragma once

#include <vector>

#include "array/array.h"

namespace pz::array {

// lax.clamp(lo, x, hi): min(max(x, lo), hi). lo and hi are scalars or of x's shape, all three of
// one dtype (lax does not promote: a Python float is float32, a Python int int32).
Array Clamp(const Array& lo, const Array& x, const Array& hi);

// lax.bitcast_convert_type: the same bits read as another dtype. A narrower dtype adds a trailing
// axis of (old width / new width) elements; a wider one needs a trailing axis of (new width /
// old width) elements and removes it.
Array BitcastConvertType(const Array& x, DType dtype);

// lax.dynamic_slice(x, starts, sizes): the block of `sizes` at the (traced) scalar integer
// `starts`, each clamped into [0, dim - size] as XLA does.
Array DynamicSlice(const Array& x, const std::vector<Array>& starts, const Shape& sizes);

// lax's shifts, of integers of one dtype: shift_right_logical shifts zeros in and
// shift_right_arithmetic the sign bit, whatever the signedness of the dtype.
Array ShiftRightLogical(const Array& x, const Array& y);
Array ShiftRightArithmetic(const Array& x, const Array& y);
Array ShiftLeft(const Array& x, const Array& y);

}  // namespace pz::array
