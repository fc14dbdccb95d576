// Reverse-mode differentiation of eager programs: jax.grad, jax.value_and_grad, jax.vjp and
// jax.jvp, and jax.lax.stop_gradient (autodiff.cpp).
//
// How: the differentiated function runs eagerly on fresh copies of its inputs while a Tape
// listens as the thread's array::PrimRecorder. Every outermost primitive with an operand derived
// from an input is kept, with its operands and results; a value is known by the exact view of
// storage it occupies, as kernel traces know theirs (record.h). Walking the tape backwards with
// the primitives' rules (array/vjp.h) gives the cotangents of the inputs. A `jax.custom_vjp`
// function called on a differentiated value runs its `fwd` rule and is kept as one step whose
// backward pass calls its `bwd` rule: that is how a Pallas kernel with a backward kernel (flash
// attention) is differentiated. A `pallas_call` has no reverse-mode rule, as in JAX: called on a
// differentiated value it is an error that says to give it a custom_vjp. jax.jvp is the vjp of
// the backward pass (the "double vjp"), recorded on a second tape.
#pragma once

#include <optional>

#include "array/array.h"
#include "eval/interpreter.h"

namespace pz::kernel {

// Adds jax.grad, value_and_grad, vjp, jvp and lax.stop_gradient.
void InstallAutodiff(eval::Interpreter& interp);

// Whether a differentiation on this thread follows `a` (it is derived from a differentiated
// input).
bool Differentiated(const array::Array& a);

// A jax.custom_vjp function called while a differentiation follows one of its differentiable
// arguments: runs `fwd` and keeps the call as one step of the tape; returns its primal output.
// nullopt when no argument is followed (the caller then runs the primal function).
std::optional<eval::Value> CallCustomVjp(eval::Interpreter& interp, const eval::Value& fun,
                                         const eval::Value& fwd, const eval::Value& bwd,
                                         const eval::Value& nondiff_argnums,
                                         const eval::Value& nondiff_argnames, eval::CallArgs& args);

// The same for a jax.custom_jvp function: its jvp rule runs, and the transpose of its tangent
// computation is the call's backward pass.
std::optional<eval::Value> CallCustomJvp(eval::Interpreter& interp, const eval::Value& fun,
                                         const eval::Value& jvp, const eval::Value& nondiff_argnums,
                                         eval::CallArgs& args);

// Raises JAX's error when `operands` include a differentiated value: `what` (a pallas_call)
// has no reverse-mode rule.
void CheckNotDifferentiated(eval::Interpreter& interp, std::string_view what,
                            const std::vector<array::Array>& operands);

}  // namespace pz::kernel
