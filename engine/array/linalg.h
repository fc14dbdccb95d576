// Linear algebra on eager arrays: lax.dot_general and the jax.numpy products built on it
// (jnp.dot, jnp.matmul, jnp.einsum). Every product is lowered to one batched GEMM
// (batch, M, K) x (batch, K, N): floating inputs run through Eigen in float32 with float32
// accumulation and are rounded once to the result dtype; integer and bool inputs accumulate
// exactly and wrap to the result dtype, as XLA does on CPU.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "array/array.h"

namespace pz::array {

// lax.dot_general's dimension numbers: which axes of each operand are contracted (summed over
// in pairs) and which are batch axes (matched in pairs and kept in front of the result).
struct DotDimensionNumbers {
  // lhs_contracting[i] of lhs pairs with rhs_contracting[i] of rhs; equal lengths and sizes.
  std::vector<int> lhs_contracting;
  std::vector<int> rhs_contracting;
  // lhs_batch[i] of lhs pairs with rhs_batch[i] of rhs; equal lengths and sizes.
  std::vector<int> lhs_batch;
  std::vector<int> rhs_batch;
};

// A checked dot_general: its dimension numbers with axes normalised, the free (neither batch
// nor contracting) axes of each side, and the result's shape and dtype. Throws ArrayError as
// DotGeneral does for dimension numbers that do not fit the shapes.
struct DotPlan {
  DotDimensionNumbers dims;
  std::vector<int> lhs_free, rhs_free;
  Shape shape;
  DType dtype = DType::kFloat32;
};
DotPlan PlanDotGeneral(const Shape& lhs, DType lhs_dtype, const Shape& rhs, DType rhs_dtype,
                       const DotDimensionNumbers& dims, std::optional<DType> preferred_element_type,
                       std::string_view fn_name = "jax.lax.dot_general");

// lax.dot_general: the result has the batch dims, then lhs's free dims, then rhs's free dims,
// each in operand order. The result dtype is `preferred_element_type` when given, else the
// promoted input dtype (bool x bool is bool: a logical or of ands). Negative axes count from the
// end. Throws kTypeError/kValueError naming `fn_name` and both shapes for invalid dimensions.
Array DotGeneral(const Array& lhs, const Array& rhs, const DotDimensionNumbers& dims,
                 std::optional<DType> preferred_element_type,
                 std::string_view fn_name = "jax.lax.dot_general");

// The same, into `slot`: the result replaces it, written into its storage when `slot` is
// Reusable for it (a kernel's value of the previous grid step), else freshly allocated.
void DotGeneralInto(const Array& lhs, const Array& rhs, const DotDimensionNumbers& dims,
                    std::optional<DType> preferred_element_type, std::string_view fn_name,
                    Array& slot);

// out = addend + lax.dot_general(lhs, rhs) in one pass (a copy of the addend, unless `out` is
// the addend itself, then the product accumulated into it), when that gives exactly what the
// product and an add would: float32 operands, addend and result, `out` a contiguous float32
// array of the product's shape sharing no storage with the operands, and a product Eigen's
// blocked kernel sums in one panel of k (gemm.h). With `row_scale`, a contiguous float32 (m, 1)
// array for an (m, n) result, out = row_scale * addend + lax.dot_general(lhs, rhs) in the same
// pass, exactly as the multiply and then the add. Returns false, touching nothing, otherwise.
bool DotGeneralAccumulate(const Array& lhs, const Array& rhs, const DotDimensionNumbers& dims,
                          std::optional<DType> preferred_element_type, const Array& addend,
                          Array& out, const Array* row_scale = nullptr);

// jnp.dot: 0-d operands multiply, 1-D x 1-D is the inner product, N-D x 1-D contracts the last
// axes, N-D x M-D contracts the last axis of `a` with the second-to-last of `b`.
Array Dot(const Array& a, const Array& b, std::optional<DType> preferred_element_type,
          std::string_view fn_name = "jnp.dot");

// jnp.matmul (`a @ b`): 1-D operands are promoted to matrices and the added axis removed again;
// leading (batch) axes broadcast against each other as numpy broadcasting does.
Array Matmul(const Array& a, const Array& b, std::optional<DType> preferred_element_type,
             std::string_view fn_name = "jnp.matmul");

// jnp.einsum with two operands, e.g. "bij,bjk->bik"; without `->` the output is the `...` axes
// followed by the letters that occur exactly once, sorted. A letter repeated within one operand
// takes its diagonal ("ii,i->i"), letters absent from the output are summed, and `...` and
// size-1 axes broadcast against the other operand as in numpy.
Array Einsum(std::string_view subscripts, const Array& a, const Array& b,
             std::optional<DType> preferred_element_type, std::string_view fn_name = "jnp.einsum");
// jnp.einsum with one operand: transposes ("ij->ji"), sums ("ij->i") and traces ("ii->").
Array Einsum(std::string_view subscripts, const Array& a,
             std::optional<DType> preferred_element_type, std::string_view fn_name = "jnp.einsum");

// The singular values of each matrix in the last two axes of a float array, in descending order
// (jnp.linalg.svd(a, compute_uv=False)): computed in double precision and rounded once to the
// dtype, so they are the correctly rounded values LAPACK approximates.
Array SingularValues(const Array& a);

}  // namespace pz::array
