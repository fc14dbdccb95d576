// Checks of the state a grid step may take from the steps of another point of a grid's "parallel"
// axes: scratch, input blocks the kernel stores into, DMA and semaphore waits, and the core's
// random number generator. The emulated TPU runs every step in row-major order on one core, so a
// step sees what the step before left there; a megacore chip's second TensorCore, or a CUDA block
// running a point as a chain of its own, does not. The CUDA backend warns or refuses with them
// (cuda/hazards.h); the emulator's lint and call report warn with them (tpu/lint.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "kernel/ir.h"

namespace pz::kernel {

// A scratch ref that a step whose step before (in the grid's row-major order) belongs to another
// point of `point_axes` may read before writing it whole, so that on the emulated TPU, which runs
// every step in order, it sees what that other point left there. The steps judged are the first
// step of a point (the other axes of `grid` at 0) and, where a point axis lies inside another
// axis, the steps where a point resumes after other points' steps (each axis's first, second,
// middle and last index, in every combination). A ref the grid's very first step reads unwritten
// too is not judged (nothing was carried: that read sees uninitialised memory). Those points are
// what a megacore chip splits between its TensorCores and the CUDA backend runs as chains apart.
// A DMA of this device out of a ref reads it at its start, and one into all of it writes it at
// its wait; refs that other DMAs name (into a part of the ref, remote copies) are not judged,
// nor semaphores.
struct CarriedScratch {
  RefId ref = -1;             // -1 when there is none
  std::vector<int64_t> step;  // the step that reads it
  bool resumes = false;       // `step` is not its point's first: the point resumes there
};
CarriedScratch ScratchCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                          const std::vector<int>& point_axes);

// A wait (a DMA's, or a semaphore's) that at the first step of some point of `point_axes` (the
// other axes of `grid` at 0) takes what an earlier step signalled: on some path through that
// step nothing before the wait can have started its DMA or signalled its semaphore, so it waits
// for the point before. Split between a megacore chip's TensorCores, or into CUDA blocks, that
// point's wait is never satisfied. Where a point axis lies inside another axis, also a wait at a
// step where a point resumes after other points' steps, that one of those steps (looking back
// up to 64) may have signalled: on the emulated TPU it may take that signal, where a CUDA block
// running the point as a chain has only its own steps' signals. The walk tries each axis's
// first, second, middle and last index; where it cannot tell two slots of a semaphore apart, or
// cannot tell whether a branch or a loop signals, it takes the signal as made. Semaphores that
// are not the kernel's scratch, barrier semaphores and those remote copies name are not judged;
// neither is a wait that the grid's very first step cannot satisfy either (an error of every
// run).
//
// What the CUDA backend's warnings and errors of a step where a point resumes after other points'
// steps (a "parallel" axis inside another) add to their hints.
inline constexpr std::string_view kResumedHint =
    "put the \"parallel\" axes before the others, so that each point's steps run one after "
    "another";

// The hint both backends give with it (the CUDA backend adds how it runs "arbitrary" axes).
inline constexpr std::string_view kCarriedWaitHint =
    "start every copy (or send every signal) a step waits for within its own point, the first of "
    "a chain that runs ahead under `@pl.when` at the point's first step; or mark the axes the "
    "chain runs along \"arbitrary\"";
struct CarriedWait {
  const Instr* wait = nullptr;  // null when there is none
  std::vector<int64_t> step;    // the grid step where it waits for the point before
  bool resumes = false;         // `step` is not its point's first: the point resumes there
};
CarriedWait WaitCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                    const std::vector<int>& point_axes);

// A draw from the core's random number generator (pltpu.prng_random_bits) that some path through
// a step whose step before belongs to another point of `point_axes` (a point's first step, or one
// where it resumes after other points' steps: the steps of ScratchCarriedAcrossPoints) reaches
// before the step seeds the generator, so that on the emulated TPU, which runs every step on one
// core, it draws from the generator as another point left it. Where the known program ids do not
// decide a branch, it counts as seeding only if every branch seeds; a loop's seeds do not count
// after it. None when the grid's very first step may draw unseeded too.
//
// The hint both backends give with it.
inline constexpr std::string_view kCarriedDrawHint =
    "seed the generator at every grid step before drawing, e.g. `pltpu.prng_seed(seed, "
    "pl.program_id(0))` at the top of the kernel, so that each point's bits depend on that point "
    "alone";
struct CarriedDraw {
  const Instr* draw = nullptr;  // null when there is none
  std::vector<int64_t> step;
  bool resumes = false;  // `step` is not its point's first: the point resumes there
};
CarriedDraw DrawCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                    const std::vector<int>& point_axes);

// The block index an input's index map gives at a grid step; nullopt where it cannot be told
// (an index map that reads scalar-prefetch values the caller does not have).
using BlockIndexAt = std::function<std::optional<std::vector<int64_t>>(
    RefId input, const std::vector<int64_t>& step)>;

// An input block buffer that the body stores into and that a step may read before writing it
// whole, while its block is the one the steps just before it (in the grid's row-major order) had
// resident and one of them, of another point of `point_axes`, may have stored into elements the
// step may read (indices the known program ids decide; others reach the whole ref). The steps
// judged are those whose step before belongs to another point: the first step of a point (the
// other axes of `grid` at 0; the points of ScratchCarriedAcrossPoints), and, where a point axis
// lies inside another axis, the steps where a point resumes after another point's steps. A TPU
// fetches a block only when its index changes, so on the emulated TPU, which runs every step in
// order, that read sees the point before's stores; a megacore chip's second TensorCore, or a CUDA
// block running the point as a chain of its own, fetches the block afresh. A scalar-prefetch ref
// counts as an input whose block never changes (`block_at` gives it one index throughout): SMEM
// keeps the kernel's stores into it for the whole grid. Inputs that a DMA or semaphore names, or
// whose block `block_at` cannot tell, are not judged.
//
// The hint both backends give with it.
inline constexpr std::string_view kCarriedInputHint =
    "treat input blocks as read-only (a TPU drops what is stored into them when the block "
    "changes): keep what changes in a value, or in scratch written whole when the point starts; "
    "or mark the axes along which the block carries it \"arbitrary\"";
inline constexpr std::string_view kCarriedPrefetchHint =
    "keep state the kernel updates from step to step in a scratch ref (pltpu.SMEM(...) in "
    "scratch_shapes) written when the point starts; or mark the axes along which it carries "
    "\"arbitrary\"";
struct CarriedInput {
  RefId ref = -1;              // -1 when there is none
  std::vector<int64_t> step;   // the step that reads it
  std::vector<int64_t> store;  // a step before it, of another point, that may store into it
  bool resumes = false;        // `step` is not its point's first: the point resumes there
};
CarriedInput InputCarriedAcrossPoints(const Function& kernel, const std::vector<int64_t>& grid,
                                      const std::vector<int>& point_axes,
                                      const BlockIndexAt& block_at);

}  // namespace pz::kernel
