// Grid points split into parts: when a call has few chains (plan.h) and its body treats the rows
// (or columns, or both) of its blocks independently, each grid point runs as several parts on
// several CUDA blocks, each part over a slice of every block along the split dimensions.
//
// The split is a rewrite at the level of Pallas itself: the kernel over blocks a factor smaller
// along the split dimensions, one new "parallel" grid axis per split (right after the last
// parallel axis, so a part's sequential steps stay consecutive), and index maps that return
// `block * factor + part`. Each part gets its own scratch, sized to its slice.
//
// Which dimensions may split comes from unifying the dimensions of every value and ref of the body
// (elementwise ops and broadcasts, loads and stores of whole refs, the free dimensions of a
// product with those of its result, transposes). A class of dimensions splits when none of them
// is reduced over, contracted, indexed, made by iota, reshaped, or carried through control flow;
// when its dimensions have one size; when every output has one of them; and when no value has
// two of them (a product of a block with its own transpose). Kernels with DMAs, semaphores,
// scoped buffers, prints or random bits never split.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda/plan.h"
#include "kernel/grid_mapping.h"
#include "kernel/program.h"

namespace pz::cuda {

// Splits go on (halving the largest part) until the call has this many chains or no part can
// halve without dropping below kMinPart elements along its dimension (kMinProductPart for the
// rows and columns of a product, so that its tiles keep their staged form on a GPU).
inline constexpr int64_t kTargetChains = 1024;
inline constexpr int64_t kMinPart = 64;
inline constexpr int64_t kMinProductPart = 128;

struct PointSplit {
  kernel::KernelProgram program;  // the kernel over the parts of its blocks
  kernel::GridMapping mapping;    // with the part axes
  // Per axis of `mapping.grid`: the original axis, or -1 for a part axis.
  std::vector<int> original_axis;
  int64_t parts = 1;  // per grid point
  std::string note;   // for --stats: "each grid point in 4 parts (x_ref dimension 0 in 2, ...)"
};

// The split of `program` over `mapping` (whose chains `split` gives), or nullopt when the body
// does not allow one or the call has chains enough.
std::optional<PointSplit> SplitGridPoints(const kernel::KernelProgram& program,
                                          const kernel::GridMapping& mapping,
                                          const GridSplit& split);

// The linear grid step of the original call that linear step `step` of the split one is a part of.
int64_t OriginalStep(const PointSplit& split, const std::vector<int64_t>& original_grid,
                     int64_t step);

}  // namespace pz::cuda
