// A kernel program: the traced kernel body of a pallas_call, traced once over the refs its
// GridMapping gives it (the index maps are traced into the mapping's BlockMappings, as JAX
// keeps index-map jaxprs there). What a Backend runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "kernel/grid_mapping.h"
#include "kernel/ir.h"
#include "kernel/pytree.h"

namespace pz::kernel {

struct KernelProgram {
  // Refs in order: prefetch, inputs, outputs, scratch, then pl.run_scoped buffers.
  std::shared_ptr<const Function> kernel;
};

// How the kernel takes its arguments: the pytrees of the input arguments and of out_shape, and
// the scratch buffers by keyword (names, one per scratch ref) or positionally (empty).
struct KernelSignature {
  std::vector<TreeDef> inputs;  // one per input argument
  TreeDef outputs;              // out_shape's; a tuple gives one argument per entry
  std::vector<std::string> scratch_keywords;
  // One per positional scratch_shapes entry: its pytree (None gives the kernel a None argument,
  // a tuple of scratch shapes a tuple of refs), as JAX flattens scratch_shapes.
  std::vector<TreeDef> scratch;
};

// Traces `kernel_fn` over refs for `mapping`'s operands. Raises JAX's error when the kernel
// returns something other than None.
KernelProgram TraceKernel(const SpecContext& ctx, const eval::Value& kernel_fn,
                          const GridMapping& mapping, const KernelSignature& signature);

// Prints the kernel's IR, then each index map's, for `--dump-ir` / `debug=True`.
void PrintProgram(eval::Interpreter& interp, const KernelProgram& program,
                  const GridMapping& mapping);

}  // namespace pz::kernel
