// JAX's transformations and pytree utilities for eager programs: `jax.vmap` (the function called
// once per index of the mapped axis, outputs stacked along out_axes, so a vmapped pallas_call
// gives what JAX's batched grid gives), `jax.custom_vjp` / `jax.custom_jvp` (callable as the
// primal function; their rules are kept), neutral scopes (checkpoint, named_scope, ...) in
// transforms.cpp; `jax.tree_util` / `jax.tree` (tree_map, flatten, unflatten, leaves, structure,
// and registering classes as pytree nodes) in tree_util.cpp.
#pragma once

#include "eval/interpreter.h"

namespace pz::kernel {

// Adds the transformations (and, through InstallTreeUtil, the pytree utilities) to `jax`.
void InstallTransforms(eval::Interpreter& interp);
void InstallTreeUtil(eval::Interpreter& interp);
// jax.jit (jit.cpp): the function called as it is, with JAX's checks of static arguments.
void InstallJit(eval::Interpreter& interp);

// `obj.__call__` for an extension object whose Call hook does the work: callable() and JAX's
// checks of function arguments look for it.
eval::Value CallMethod(eval::Interpreter& interp, const eval::ObjectRef& self);

}  // namespace pz::kernel
