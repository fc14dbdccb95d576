// What a kernel's body may see of its buffers' earlier contents at a grid step: walks of the
// body (with program ids known at that step folded into its conditions) that ask whether every
// path writes a buffer whole before it reads it. The CUDA backend splits grids by them
// (cuda/plan.h); the checks of state carried from one point of a grid to another build on them
// (carried.h).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "kernel/ir.h"

namespace pz::kernel {

// Whether, at every grid step and on every path, the body stores all of ref `r` before it loads
// any of it (and nothing else reaches it: a DMA or semaphore naming it answers no), so that no
// step can see what the ref held before it.
bool WrittenWholeBeforeRead(const Function& kernel, RefId r);

// Whether at every grid step whose program ids `ids` names are those values (the other axes
// any), every path of the body stores all of ref `r` (nothing reading it before, and no DMA or
// semaphore naming it).
bool StoredWholeAt(const Function& kernel, RefId r, std::map<int, int64_t> ids);

// Whether every iteration of grid axis `axis` starts afresh, given the axes stepped in order
// (`sequential`): at each grid step where the sequential axes after it are 0, the body writes
// every scratch and output buffer whole before it reads it, on every path (conditions on
// program ids folded with those axes at 0). Its iterations then share nothing and may run as
// chains of their own (an attention kernel's query blocks, "arbitrary" but re-initialising their
// running statistics when the key axis starts again). Kernels with DMAs, semaphores, scoped
// buffers, the core's random numbers or stores into inputs never do.
bool FreshStart(const Function& kernel, int axis, const std::vector<int>& sequential);

// Whether at grid steps whose program ids `ids` names are those values, every path of the body
// stores all of ref `r` before it loads any of it (true too where nothing reads it). A DMA of
// this device out of `r` reads it at its start, and one into all of it writes it whole at its
// wait; other instructions that name `r` are not looked at (MovedOtherwise tells of them).
bool WrittenWholeBeforeReadAt(const Function& kernel, RefId r, std::map<int, int64_t> ids);

// Whether an instruction other than a load, a store or a DMA of this device that
// WrittenWholeBeforeReadAt follows (out of `r`, or into all of it) names ref `r`: a DMA into a
// part of it, a remote copy, a semaphore operation.
bool MovedOtherwise(const Function& kernel, RefId r);

}  // namespace pz::kernel
