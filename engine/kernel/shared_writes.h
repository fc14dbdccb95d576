// Two points of a call's parallel axes writing the same elements of an array in HBM (an operand
// in pl.ANY, which only DMAs reach): a megacore chip's TensorCores, or the CUDA blocks that run
// the points as chains apart, race on them, while one core running every step in order keeps the
// last point's data. Found by walking the body at sampled grid steps with the program ids known.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "kernel/ir.h"

namespace pz::kernel {

// The hint both backends give with it.
inline constexpr std::string_view kSharedWriteHint =
    "give each point its own part of the array (derive the DMA's window from the program ids of "
    "the parallel axes), or mark the axes whose points write the same elements \"arbitrary\"";

struct SharedWrite {
  RefId ref = -1;                 // -1 when there is none
  const Instr* first = nullptr;   // the DMA start at `first_step`
  const Instr* second = nullptr;  // the DMA start at `second_step`
  std::vector<int64_t> first_step, second_step;
  std::vector<int64_t> element;  // an element of `ref` both write
};

// Whether two grid steps run apart (on two cores, or in two chains); they always differ.
using StepsApart = std::function<bool(const std::vector<int64_t>&, const std::vector<int64_t>&)>;

// A pair of DMA starts of this device, at two grid steps that `apart` says run apart, whose
// destinations in one pl.ANY operand share an element. The steps tried are every combination of
// each axis's first, second, middle and last index. Only DMAs whose every index is known there
// (constants and the program ids, folded) and that run on every path count: one under a branch
// the walk cannot decide, or in a loop, is not judged; nor are remote copies.
SharedWrite AnyWrittenApart(const Function& kernel, const std::vector<int64_t>& grid,
                            const StepsApart& apart);

}  // namespace pz::kernel
