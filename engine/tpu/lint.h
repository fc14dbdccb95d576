// Hardware lint (`--lint`): what runs in the emulator (and in JAX's interpret mode) but a real
// TPU rejects or cannot fit: block shapes breaking the (8, 128) tiling rule (pallas-semantics.md
// §2.9), VMEM use above the scoped budget, and "parallel" grid axes that are reductions (a
// megacore race on v4 / v5p). Findings are warnings in the session.
#pragma once

#include "kernel/grid_mapping.h"
#include "tpu/pallas_call.h"

namespace pz::tpu {

// Appends the lint warnings of the call `mapping` describes to `session.warnings`.
void Lint(const kernel::GridMapping& mapping, EmulatorSession& session);

}  // namespace pz::tpu
