// Hardware lint (`--lint`): what runs in the emulator (and in JAX's interpret mode) but a real
// TPU rejects or cannot fit: block shapes breaking the (8, 128) tiling rule (pallas-semantics.md
// §2.9), VMEM use above the scoped budget, and "parallel" grid axes that are reductions (a
// megacore race on v4 / v5p), or whose points hand scratch on to the next (the same chips give
// each TensorCore scratch of its own). Findings are warnings in the session.
#pragma once

#include "kernel/backend.h"
#include "kernel/grid_mapping.h"
#include "kernel/program.h"
#include "tpu/pallas_call.h"

namespace pz::tpu {

// Appends the lint warnings of the call (its traced kernel, `mapping` and the operands it passes,
// whose scalar-prefetch arrays index maps may read) to `session.warnings`.
void Lint(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
          const kernel::CallOperands& operands, EmulatorSession& session);

}  // namespace pz::tpu
