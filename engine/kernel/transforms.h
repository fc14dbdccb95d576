// JAX's transformations and pytree utilities for eager programs: `jax.vmap` (the function called
// once per index of the mapped axis, outputs stacked along out_axes, so a vmapped pallas_call
// gives what JAX's batched grid gives), `jax.custom_vjp` / `jax.custom_jvp` (callable as the
// primal function; their rules are kept), and `jax.tree_util` / `jax.tree` (tree_map, flatten,
// unflatten, leaves, structure, and registering classes as pytree nodes).
#pragma once

#include "eval/interpreter.h"

namespace pz::kernel {

void InstallTransforms(eval::Interpreter& interp);

}  // namespace pz::kernel
