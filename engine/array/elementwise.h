// Elementwise eager ops: binary arithmetic/comparison/bitwise ops, unary math, where, clip and
// cast, with numpy broadcasting and JAX's type promotion (weak Python scalars included). Results
// match jax.numpy on CPU: XLA's integer division by zero, 16-bit floats computed in float32 and
// rounded after every primitive step. Used by the evaluator's jnp module and by the tpu executor.
#pragma once

#include <optional>

#include "array/array.h"

namespace pz::array {

enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,       // true divide: integers and bools give float32
  kFloorDiv,  // jnp.floor_divide (Python floor semantics, floats too)
  kMod,       // jnp.remainder (sign of the divisor)
  kPow,       // jnp.power: a rank-0 integer exponent is lax.integer_pow (result in a's dtype);
              // integer arrays use the low 6 bits of the exponent, as JAX does
  kMaximum,   // NaN-propagating
  kMinimum,
  kBitAnd,
  kBitOr,
  kBitXor,
  kLShift,
  kRShift,  // arithmetic for signed, logical for unsigned
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kLogicalAnd,
  kLogicalOr,
  kAtan2,
};

enum class UnaryOp {
  kNeg,
  kPos,
  kAbs,
  kInvert,  // bool: logical not; integers: ~x
  kLogicalNot,
  kExp,
  kExp2,
  kLog,
  kLog1p,
  kExpm1,
  kSqrt,
  kRsqrt,
  kTanh,
  kSin,
  kCos,
  kTan,
  kErf,
  kSigmoid,  // jax.nn.sigmoid
  kSign,
  kFloor,
  kCeil,
  kRound,  // half to even, like jnp.round
  kIsNan,
  kIsInf,
  kIsFinite,
  kSquare,
  kReciprocal,
};

// `a op b` with broadcasting and promotion; the result is weak iff both operands are.
// Comparisons and logical ops give bool. Throws kTypeError for dtypes JAX rejects (bitwise ops
// on floats, shifts on bools, subtracting bools) and kValueError for shapes that do not
// broadcast.
Array Binary(BinaryOp op, const Array& a, const Array& b);
// The same, into `slot`: the result replaces it, written into its storage when `slot` is
// Reusable for the result (a kernel's value of the previous grid step), else freshly allocated.
// `slot` may be `a` or `b` itself when it is Reusable for the result: the kernels read each
// element before writing it (the executor computes into a dying operand's storage that way).
void BinaryInto(BinaryOp op, const Array& a, const Array& b, Array& slot);

// `op(a)` with JAX's result dtype (exp of an integer is float32, floor of an integer stays an
// integer, isnan is bool). Throws kTypeError/kValueError as JAX does (-x of bool, ~x of float).
Array Unary(UnaryOp op, const Array& a);
// The same, into `slot` (as BinaryInto; `slot` may be `a` itself when Reusable for the result).
void UnaryInto(UnaryOp op, const Array& a, Array& slot);

// lax.integer_pow: `a` to the static power `y` by repeated multiplication (bool becomes int32;
// a negative power of an integer is a TypeError).
Array IntegerPow(const Array& a, int64_t y);
// jnp.where(cond, x, y): cond is tested for != 0, x and y are promoted, all three broadcast.
Array Where(const Array& cond, const Array& x, const Array& y);

// jnp.clip(x, lo, hi) = minimum(maximum(x, lo), hi), with promotion.
Array Clip(const Array& x, const std::optional<Array>& lo, const std::optional<Array>& hi);

// The values converted to `dtype` (convert_element_type semantics).
Array Cast(const Array& a, DType dtype);

}  // namespace pz::array
