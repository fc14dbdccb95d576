// The user's call spec of a `pl.pallas_call`, typed: `BlockSpec`s, the grid spec
// (`pl.GridSpec`, `pltpu.PrefetchScalarGridSpec`, or pallas_call's own `grid=` / `in_specs=` /
// `out_specs=` / `scratch_shapes=`), memory spaces and compiler params, read from the Python
// objects of the builtin modules with JAX's errors. grid_mapping.h canonicalises it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "eval/value.h"
#include "kernel/ir.h"
#include "support/source.h"

namespace pz::kernel {

// Where call-spec errors are raised: Python exceptions at the pallas_call expression.
struct SpecContext {
  eval::Interpreter& interp;
  SourceSpan span;        // the pl.pallas_call expression
  std::string call_name;  // the pallas_call's name ("add_kernel")
  bool tpu_rules = true;  // `tpu` semantics (TraceOptions::tpu_rules)

  // Raises `type(message)` at `span`, with `notes`.
  [[noreturn]] void Fail(eval::TypeObject* type, std::string message,
                         std::vector<std::string> notes = {}) const;
  [[noreturn]] void ValueError(std::string message, std::vector<std::string> notes = {}) const;
  [[noreturn]] void TypeError(std::string message) const;
};

// `pl.BlockSpec(block_shape, index_map, memory_space=...)`.
struct BlockSpec {
  // The entries as written (ints, None, `pl.Squeezed()`, `pl.Blocked(n)`, `pl.Element(n,
  // padding)`), one per array dimension once checked; nullopt when block_shape is None (the
  // whole array). MapBlockSpec canonicalises them into BlockDims.
  std::optional<std::vector<eval::Value>> block_shape;
  std::string block_shape_repr;  // the block_shape as written, for messages ("(2,)")
  // Grid indices (then the scalar-prefetch refs) -> block indices; None: block (0, ..., 0).
  eval::Value index_map;
  MemorySpace memory_space = MemorySpace::kVmem;
  SourceSpan span;  // the pl.BlockSpec(...) call
};

// The grid spec of a call, from a `pl.GridSpec`, a `pltpu.PrefetchScalarGridSpec` (a GridSpec
// with `num_scalar_prefetch`), or pallas_call's own keyword arguments.
struct GridSpec {
  std::vector<int64_t> grid;  // () for a single step
  // PrefetchScalarGridSpec: the leading operands that are whole arrays in SMEM, passed to the
  // index maps and the kernel first; 0 otherwise.
  int64_t num_scalar_prefetch = 0;
  // Pytrees of BlockSpecs matching the inputs and the outputs; nullopt when not given
  // (`no_block_spec`: every operand whole, in VMEM).
  std::optional<eval::Value> in_specs, out_specs;
  // A sequence of scratch shapes (`pltpu.VMEM(...)`, semaphores), a dict of them by the kernel's
  // keyword parameters, or None. A grid spec's dict is a tuple of its values.
  eval::Value scratch_shapes;
};

// pallas_call's arguments that make up the grid spec, as given.
struct GridSpecArgs {
  eval::Value grid_spec;  // None unless `grid_spec=` was given
  eval::Value grid, in_specs, out_specs, scratch_shapes;
  // Whether each was given with a value other than its default (`()` / None).
  bool grid_given = false, in_specs_given = false, out_specs_given = false, scratch_given = false;
};

// `pltpu.CompilerParams(dimension_semantics=..., vmem_limit_bytes=...)` (other fields are not
// read).
struct CompilerParams {
  // One entry per grid axis ("parallel", "arbitrary", ...); nullopt when not given.
  std::optional<std::vector<std::string>> dimension_semantics;
  // The scoped VMEM limit the call asks for; nullopt: the chip's default.
  std::optional<int64_t> vmem_limit_bytes;
  SourceSpan span;  // the CompilerParams(...) call
};

// The grid spec of a call; raises JAX's errors for conflicting arguments and bad grids.
GridSpec ReadGridSpec(const SpecContext& ctx, const GridSpecArgs& args);
// A grid: an int, or a tuple or list of ints (or integer scalar arrays), all non-negative.
std::vector<int64_t> ReadGrid(const SpecContext& ctx, const eval::Value& grid);
// A memory space object (`pltpu.VMEM`, `pltpu.SMEM`, `pl.ANY`, ...); None is VMEM.
MemorySpace ReadMemorySpace(const SpecContext& ctx, const eval::Value& space);
// A `pl.BlockSpec` record; raises for unsupported memory spaces.
BlockSpec ReadBlockSpec(const SpecContext& ctx, const eval::Value& spec);
// `compiler_params=` (None or a record without dimension_semantics: nothing given).
CompilerParams ReadCompilerParams(const SpecContext& ctx, const eval::Value& params);

// ---- Python functions of a call (the kernel, index maps) -------------------------------------

// The parameter names of a function (a partial's remaining ones), for messages; empty when
// unknown.
std::vector<std::string> ParamNames(const eval::Value& fn);
// The function's name ("kernel" when it has none).
std::string FunctionName(const eval::Value& fn);
// Where the function is defined (`fallback` when unknown).
SourceSpan FunctionSpan(const eval::Value& fn, SourceSpan fallback);
// The first `return VALUE` statement of `fn`'s own body (a lambda: its expression); `fallback`
// when there is none or `fn` is not a Python function.
SourceSpan ReturnSpan(const eval::Value& fn, SourceSpan fallback);

}  // namespace pz::kernel
