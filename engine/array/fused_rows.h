// A chain of float32 elementwise ops computed in one pass over its result, a piece of a row at a
// time, so that the values between the ops stay in the L1 cache instead of each op sweeping the
// whole array (the executor runs `exp(s - m)` of a softmax this way, as XLA fuses it). Reductions
// over the last axis of the chain's result can ride along, each row reduced while it is at hand.
// Every element is exactly what the ops run one after the other compute: the same kernels, and
// the reductions in Reduce's order.
#pragma once

#include <optional>
#include <span>

#include "array/array.h"
#include "array/elementwise.h"
#include "array/reduce.h"

namespace pz::array {

// One op of a chain, applied to the value so far (v): op(v), or v op other (other op v with
// `other_first`).
struct ChainStep {
  std::optional<UnaryOp> unary;
  BinaryOp binary = BinaryOp::kAdd;
  const Array* other = nullptr;  // float32, broadcasting to the chain's shape
  bool other_first = false;
};

// The ops a chain may hold: float32 kernels whose result for an element depends on nothing but
// that element's operands (add, sub, mul, maximum, minimum; exp, neg, abs, square).
bool Chainable(BinaryOp op);
bool Chainable(UnaryOp op);

// The most steps a chain may hold.
inline constexpr size_t kMaxChainSteps = 8;

// A reduction of each row of the chain's result, into out[row] (rows in row-major order).
struct ChainTap {
  LastAxisReduction reduction;
  float* out = nullptr;
};

// out = the steps (at most kMaxChainSteps) applied to `source` in turn, all float32 of out's shape
// (every operand broadcasting to it), then the taps. `out` is contiguous and either disjoint from
// every operand or `source` itself (in place). False, with nothing written, where a chain cannot
// run this way: an operand whose last axis is strided, or a shape of rank 0.
bool RunChain(const Array& source, std::span<const ChainStep> steps, Array& out,
              std::span<const ChainTap> taps);

}  // namespace pz::array
