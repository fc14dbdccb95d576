// What the CUDA backend refuses, or warns of, because it computes every step's block indices
// before a call runs and runs the points of the call's parallel axes as chains apart, each on a
// CUDA block of its own: state a kernel carries from one point to the next on the emulated TPU
// (which runs every step in order) does not reach the next chain.
#pragma once

#include <vector>

#include "cuda/plan.h"
#include "kernel/backend.h"

namespace pz::cuda {

// Refuses (kernel::CallError at the write) a kernel that writes a scalar-prefetch ref an index
// map reads: later steps' block indices would follow the write on the emulated TPU, not here.
void CheckPrefetchWrites(const kernel::KernelProgram& program, const kernel::GridMapping& mapping);

// Refuses a kernel whose wait, at the first step of a chain of `split`, takes a DMA or a signal
// of the chain before (kernel::WaitCarriedAcrossPoints): on CUDA it would never end.
void CheckWaitsWithinChains(const kernel::KernelProgram& program,
                            const kernel::GridMapping& mapping, const GridSplit& split);

// The warnings of a call whose chains may see something other than the emulator's in-order run
// does, at the read, where a chain starts or resumes after another chain's steps (a "parallel"
// axis inside an "arbitrary" one): scratch read there before it is written whole
// (kernel::ScratchCarriedAcrossPoints), and an input block read there with another chain's
// stores still in it on the emulated TPU (kernel::InputCarriedAcrossPoints, the blocks from
// `table`).
// Empty for a split of one chain.
std::vector<kernel::CallWarning> ChainWarnings(const kernel::KernelProgram& program,
                                               const kernel::GridMapping& mapping,
                                               const GridSplit& split, const StepTable& table,
                                               const TableLayout& layout);

}  // namespace pz::cuda
