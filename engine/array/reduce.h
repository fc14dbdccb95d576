// Reductions (jnp.sum/prod/max/min/mean/any/all/argmax/argmin), logsumexp, softmax and cumsum,
// with JAX's result dtypes (sum of int8 is int32, of uint8 uint32, of bf16 bf16 accumulated in
// float32) and error messages. Float sums and products add in JAX's CPU order (reduce_order.h);
// cumsum reproduces XLA's blocked scan bit for bit.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "array/array.h"

namespace pz::array {

enum class ReduceOp { kSum, kProd, kMax, kMin, kMean, kAny, kAll, kArgMax, kArgMin };

// The jnp name of `op` ("sum", "argmax", ...), as JAX's messages name it.
std::string_view ReduceName(ReduceOp op);
// The dtype jnp.sum and jnp.prod give by default: bool and narrow integers widen to 32 bits.
DType SumDType(DType d);

// Reduces `a` over `axes` (normalised to [0, rank), sorted, unique; nullopt = all axes).
// kArgMax/kArgMin take at most one axis (nullopt = the flattened array) and give int32, the
// first occurrence, NaN counting as the extreme. `dtype` overrides the accumulation and result
// dtype of kSum/kProd/kMean. Throws kValueError for empty kMax/kMin/kArgMax/kArgMin.
Array Reduce(ReduceOp op, const Array& a, std::optional<std::vector<int>> axes, bool keepdims,
             std::optional<DType> dtype = std::nullopt);

// A float32 sum, max or min over the last axis of a contiguous array of one shape, a row at a
// time: each row reduced exactly as Reduce reduces it (the sum's order depends on the whole
// array's size). For loops that have each row at hand, such as the executor's fused chains.
class LastAxisReduction {
 public:
  // nullopt where Reduce takes another path: another op or dtype, other axes, rows shorter
  // than two.
  static std::optional<LastAxisReduction> For(ReduceOp op, DType dtype, const Shape& shape,
                                              const std::optional<std::vector<int>>& axes,
                                              std::optional<DType> result_dtype);
  // The results of `rows` consecutive rows of row_length() floats from `x`, into
  // out[0 .. rows) (several rows at once where that is quicker).
  void Rows(const float* x, int64_t rows, float* out) const;
  int64_t row_length() const { return n_; }

 private:
  LastAxisReduction(ReduceOp op, bool ynn, int64_t n) : op_(op), ynn_(ynn), n_(n) {}
  ReduceOp op_;
  bool ynn_;  // the sum in YNNPACK's order, else in XLA's tree of windows
  int64_t n_;
};

// jax.nn.logsumexp: log(sum(exp(a - max))) + max, with a non-finite max replaced by 0.
Array LogSumExp(const Array& a, std::optional<std::vector<int>> axes, bool keepdims);

// jnp.cumsum along `axis` (nullopt = the flattened array). Bool gives int32; other dtypes keep
// theirs and accumulate in it (int8 wraps, bf16 rounds after every add), as JAX does.
Array CumSum(const Array& a, std::optional<int> axis);

// jax.nn.softmax over `axes`: exp(a - max) / sum(exp(a - max)).
Array Softmax(const Array& a, std::optional<std::vector<int>> axes);

// jax.nn.log_softmax over `axes`: (a - max) - log(sum(exp(a - max))).
Array LogSoftmax(const Array& a, std::optional<std::vector<int>> axes);

}  // namespace pz::array
