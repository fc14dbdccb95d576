// How one call's grid runs on CUDA blocks (emit.h): which axes are "parallel" (one chain per
// point of them, each chain run by one CUDA block) and which are stepped in order inside a chain,
// and the step table the kernel reads: per step of each chain, the grid point and every
// pipelined operand's window start, computed on the host from the index maps (evaluated by the
// reference executor, so scalar-prefetch index maps work as on the emulator).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel/backend.h"
#include "kernel/fresh.h"
#include "kernel/grid_mapping.h"
#include "kernel/program.h"

namespace pz::cuda {

struct GridSplit {
  std::vector<int> parallel;    // grid axes whose points are chains
  std::vector<int> sequential;  // grid axes stepped inside a chain, in row-major order
  std::vector<int> fresh;       // the axes of `parallel` that are so by FreshStart
  int64_t chains = 1;
  int64_t steps_per_chain = 1;
  std::string note;  // why the split is what it is (for --stats)
};

// The split from the call's dimension semantics: "parallel" axes as given; without semantics,
// the axes every output's index map returns unchanged, when the kernel keeps no state between
// steps (no scratch, semaphores, DMAs or stores into inputs); else every axis in order. With
// `fresh_starts`, the outermost of the other axes join the parallel ones while each of their
// iterations starts afresh (FreshStart); with `zeroed` too (fresh memory is zeros,
// RunOptions::zero_uninitialized), only where no output buffer carries what an earlier visit
// left into a later one's write-back (LeftoverUnseen): with zeroed memory an output block's
// buffer keeps the last block's values, as the emulator keeps them.
GridSplit SplitGridForCuda(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                           bool fresh_starts = true, bool zeroed = false);

// FreshStart and WrittenWholeBeforeRead (kernel/fresh.h) decide which axes start afresh.
using kernel::FreshStart;

// Whether what a block buffer of operand `k` (an output) holds from an earlier visit of its
// window can never reach HBM: the last step of each visit stores the whole block, on every path
// (kernel::StoredWholeAt). Where it can, the emulator's new visit starts as poison (or, with
// zeroed memory, keeps the last block's values), which the CUDA kernel then makes as well: it
// poisons the buffer at each visit's first step (or, zeroed, keeps the buffer: no direct window
// in HBM and no chains apart for it).
bool LeftoverUnseen(const kernel::Function& kernel, const kernel::GridMapping& mapping, size_t k);
using kernel::WrittenWholeBeforeRead;

// Row layout of the step table: the grid indices, then per pipelined operand (inputs, then
// outputs) its window start per dimension; `operand_column[k]` is -1 for operands in pl.ANY (not
// pipelined). Then, per input the kernel stores into (`fetch_column[k]`, else -1), whether the
// emulated TPU fetches its block afresh between the chain's step before and this one: its
// buffer then holds the fetched block without the chain's earlier stores. (A chain's steps need
// not be consecutive in the grid's order: where a "parallel" axis lies inside another, other
// points' steps, with other blocks, run between them there.)
struct TableLayout {
  int64_t columns = 0;
  std::vector<int64_t> operand_column;
  std::vector<int64_t> fetch_column;
};
TableLayout LayoutOf(const kernel::Function& kernel, const kernel::GridMapping& mapping);

struct StepTable {
  std::vector<int64_t> rows;  // chains * steps_per_chain rows of `columns`
  int64_t columns = 0;
  std::vector<int64_t> linear_step;  // per row: the row-major grid step it is
};

// Evaluates the index maps at every grid point in chain order (rows of `layout.columns`: the
// grid point, per operand with column >= 0 its window start per dimension, and the fetch
// columns). Throws
// kernel::CallError for a block index out of range (tpu semantics), but with `past_edge` not for
// a window that starts past the array's end (a grid point's part wholly in the padding of its
// block: split.h). When two chains would write one output window, falls back to a single chain
// (the split's note says so).
StepTable BuildStepTable(const kernel::GridMapping& mapping, const kernel::CallOperands& operands,
                         GridSplit& split, const TableLayout& layout, const kernel::RunOptions& run,
                         bool past_edge = false);

}  // namespace pz::cuda
