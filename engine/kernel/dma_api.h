// The Pallas TPU API for DMAs and semaphores, traced into DmaStart / DmaWait / Semaphore* /
// RunScoped instructions: `pltpu.SemaphoreType`, `pltpu.make_async_copy` (descriptors with
// `.start()` / `.wait()`), `pltpu.async_copy`, `pltpu.sync_copy`, `pl.semaphore_signal/wait/read`
// (and the older `pltpu.` spellings) and `pl.run_scoped`. Static mistakes (shape or dtype
// mismatches, the wrong kind of semaphore) are raised while tracing.
#pragma once

#include <string>

#include "eval/interpreter.h"
#include "eval/value.h"
#include "kernel/ir.h"

namespace pz::kernel {

// Adds the DMA and semaphore API to the pl and pltpu modules.
void InstallDmaApi(eval::Interpreter& interp);

// The ref type a scratch description stands for: `pltpu.VMEM(shape, dtype)`,
// `pltpu.SMEM(...)`, `pltpu.SemaphoreType.DMA` or `.REGULAR` (0-d), `SemaphoreType.DMA((n,))`.
// `role` is kScratch (pallas_call scratch_shapes) or kScoped (pl.run_scoped). Raises TypeError
// for anything else and ValueError for buffers in HBM.
RefType ScratchRefType(eval::Interpreter& interp, const eval::Value& value, std::string name,
                       RefRole role);

}  // namespace pz::kernel
