// Array creation routines of jax.numpy and jax.lax (zeros, ones, full, arange, linspace, eye,
// iota, tril/triu), computed with the same arithmetic JAX uses so values match bit for bit.
// Callers (the Python bindings) resolve dtype=None from the Python arguments first, using
// ScalarDType and JAX's promotion.
#pragma once

#include <optional>

#include "array/array.h"

namespace pz::array {

// A Python scalar argument: its value and the dtype JAX gives it (int → int32, float → float32,
// bool → bool).
struct ScalarArg {
  double value = 0;
  DType dtype = DType::kInt32;
};

// jnp.zeros / jnp.ones / jnp.empty (empty is zero-filled).
Array Zeros(const Shape& shape, DType dtype = DType::kFloat32);
Array Ones(const Shape& shape, DType dtype = DType::kFloat32);
Array Empty(const Shape& shape, DType dtype = DType::kFloat32);
// jnp.full(shape, fill_value, dtype): dtype defaults to the fill value's dtype; the result is
// weakly typed then, as in JAX.
Array Full(const Shape& shape, ScalarArg fill, std::optional<DType> dtype = std::nullopt);

// jnp.arange(start, stop, step, dtype). With one argument it is `stop`. dtype defaults to the
// promotion of the arguments' dtypes. Length ceil((stop - start) / step); a zero step is a
// ValueError (JAX raises ZeroDivisionError, which ArrayError has no kind for).
Array Arange(ScalarArg start, std::optional<ScalarArg> stop = std::nullopt,
             std::optional<ScalarArg> step = std::nullopt,
             std::optional<DType> dtype = std::nullopt);

// jnp.linspace(start, stop, num, endpoint, dtype): start * (1 - t) + stop * t in the
// computation dtype, t = iota / div (for float32 in the fused form XLA's CPU backend computes);
// integer dtypes take the floor. dtype defaults to float32.
Array Linspace(double start, double stop, int64_t num = 50, bool endpoint = true,
               std::optional<DType> dtype = std::nullopt);

// jnp.eye(N, M, k, dtype): ones on the k-th diagonal.
Array Eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0,
          DType dtype = DType::kFloat32);

// lax.iota(dtype, size) and lax.broadcasted_iota(dtype, shape, dimension).
Array Iota(DType dtype, int64_t size);
Array BroadcastedIota(DType dtype, const Shape& shape, int dimension);

// jnp.tril / jnp.triu: zero the elements above (tril) or below (triu) the k-th diagonal of the
// last two axes. Arrays of rank < 2 are a ValueError.
Array Tril(const Array& a, int64_t k = 0);

// jnp.diagonal: the `offset` diagonal of the planes spanned by axis1 and axis2 (normalised),
// which are removed from the shape and replaced by a last axis of the diagonal's length.
Array Diagonal(const Array& a, int64_t offset, int axis1, int axis2);
// jnp.diag: a 1-D `v` becomes a square matrix with v on diagonal k; a 2-D `v` gives its
// diagonal k. Raises ValueError for other ranks.
Array Diag(const Array& v, int64_t k = 0);
Array Triu(const Array& a, int64_t k = 0);

}  // namespace pz::array
