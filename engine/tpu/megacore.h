// Megacore (`--cores 2`): the leading "parallel" grid axes cut into one contiguous chunk per
// TensorCore, each chunk run by its own core on its own thread, the cores' HBM accesses checked
// for races and their outputs merged (megacore.cpp explains the race model).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel/backend.h"
#include "kernel/grid_mapping.h"
#include "tpu/core.h"
#include "tpu/options.h"

namespace pz::tpu {

// The linearised grid steps [first, end) each of `cores` TensorCores runs (megacore): the leading
// `parallel_axes` axes form the parallel sub-grid, cut into contiguous chunks of
// ceil(points / cores) points (as JAX's TPU interpret mode does); a core whose chunk is empty
// gets an empty range. With no parallel axes, core 0 runs everything.
std::vector<std::pair<int64_t, int64_t>> SplitGrid(const std::vector<int64_t>& grid,
                                                   int parallel_axes, int cores);
// The number of leading "parallel" entries of `dimension_semantics`.
int LeadingParallelAxes(const std::vector<std::string>& dimension_semantics);
// The grid axes with more than one point marked "parallel" (or "core_parallel") in the mapping's
// dimension_semantics; with `leading`, only the leading "parallel" ones, which a megacore splits.
// What EmulatorOptions::carry_axes holds for `--lint` (leading) and `--emit-cuda` (all).
std::vector<int> ParallelAxes(const kernel::GridMapping& mapping, bool leading);
// "axis 0" or "axes 0, 1": those of `axes` with more than one point, for messages.
std::string AxesPhrase(const kernel::GridMapping& mapping, const std::vector<int>& axes);

// Why a run asked for several cores runs on one ("" when `chunks` split the grid).
std::string NoSplitReason(const kernel::GridMapping& mapping, const EmulatorOptions& options,
                          const std::vector<std::pair<int64_t, int64_t>>& chunks);

// What `--cores 2` split, for `--stats`: "grid axis 0 (`h`, 4 points) ..." naming the leading
// "parallel" axes whose points the cores share.
std::string SplitNote(const kernel::GridMapping& mapping, int parallel_axes, int cores);

// Runs one core per chunk of `chunks` (SplitGrid) on its own thread, then reports the first
// HBM race between them (EmulationError) or merges their outputs, writers and counters.
CallResult RunMegacore(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                       const kernel::CallOperands& operands, const EmulatorOptions& options,
                       const kernel::RunOptions& run,
                       const std::vector<std::pair<int64_t, int64_t>>& chunks);

}  // namespace pz::tpu
