// Fills the Pallas-facing parts of the builtin modules: `jax.experimental.pallas` (BlockSpec,
// GridSpec, ds, program_id, when, loop, ...), `jax.experimental.pallas.tpu` (memory spaces,
// PrefetchScalarGridSpec, CompilerParams, roll, ...), `jax.lax` control flow, `jax.debug`,
// `jax.errors`, `jax.ShapeDtypeStruct` and `jax.jit`. `pl.pallas_call` itself is added by the
// tpu layer, which runs kernels.
#pragma once

#include <string>

#include "eval/interpreter.h"

namespace pz::kernel {

// Grid context of the trace in progress, consulted by pl.program_id / pl.num_programs.
void InstallKernelModules(eval::Interpreter& interp);

// Adds the builtin `fn` to `module` as `module.name` (named so in tracebacks).
void AddBuiltin(eval::Interpreter& interp, eval::ModuleObject& module, const std::string& name,
                eval::BuiltinFunctionObject::Fn fn);

}  // namespace pz::kernel
