// Reading and writing NumPy `.npy` files (format versions 1.0–3.0), so learners can bring their
// own data and keep results. 64-bit data is narrowed to 32 bits on load, as JAX does without x64.
#pragma once

#include <string>

#include "array/array.h"

namespace pz::array {

// Writes `a` as a version 1.0 .npy file; throws ArrayError (kValueError) when the file cannot be
// written. bfloat16 has no standard .npy type and is saved as float32.
void SaveNpy(const std::string& path, const Array& a);
// Reads a .npy file of bool, (u)int8/16/32/64 or float16/32/64 data, C or Fortran order.
// Throws ArrayError (kValueError) naming the problem for unreadable or unsupported files.
Array LoadNpy(const std::string& path);

}  // namespace pz::array
