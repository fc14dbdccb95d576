// The emulated TPU core running one pallas_call: the grid loop and the HBM <-> VMEM pipeline of
// blocked operands (pallas-semantics.md §3.2 in `tpu` semantics, §3.4 HLO-interp in `interpret`
// semantics), scratch and scalar-prefetch SMEM, and the checks that turn silent hardware
// misbehaviour into errors (out-of-range block indices, non-consecutive output revisits).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "array/array.h"
#include "kernel/ir.h"
#include "support/source.h"
#include "tpu/executor.h"
#include "tpu/options.h"

namespace pz::tpu {

struct BlockDim {
  enum class Kind { kBlocked, kSqueezed, kElement };
  Kind kind = Kind::kBlocked;
  int64_t size = 1;
  int64_t pad_lo = 0;  // kElement: virtual padding before the dimension
};

// A blocked input or output of the call.
struct Operand {
  std::string name;  // the kernel's parameter name, e.g. "x_ref"
  bool is_output = false;
  array::Shape shape;  // the full (HBM) array
  array::DType dtype = array::DType::kFloat32;
  kernel::MemorySpace space = kernel::MemorySpace::kVmem;
  std::vector<BlockDim> block;  // one per array dimension
  array::Shape ref_shape;       // what the kernel sees (squeezed dimensions dropped)
  // Grid indices (and prefetch refs) -> block indices; null means the whole array at block
  // (0, ..., 0).
  std::shared_ptr<const kernel::Function> index_map;
  SourceSpan span;                      // the index map (or the pallas_call, without one)
  std::vector<std::string> map_params;  // the index map's parameter names, when known
};

struct CallPlan {
  std::string name;
  SourceSpan span;  // the pl.pallas_call expression
  std::vector<int64_t> grid;
  std::vector<Operand> inputs;
  std::vector<Operand> outputs;
  std::vector<kernel::RefType> prefetch;  // whole arrays in SMEM
  std::vector<kernel::RefType> scratch;
  std::map<int, int> aliases;  // input operand -> output operand
  // compiler_params' dimension_semantics, one entry per grid axis ("parallel", "arbitrary", ...);
  // empty when not given (every axis "arbitrary"). `semantics_span` is the CompilerParams call.
  std::vector<std::string> dimension_semantics;
  SourceSpan semantics_span;
  // Refs in order: prefetch, inputs, outputs, scratch, then pl.run_scoped buffers.
  std::shared_ptr<const kernel::Function> kernel;
  // "line 12" for a span, in messages that name a second place (DMA diagnostics).
  std::function<std::string(SourceSpan)> line_of;
};

// The block index of every operand (inputs, then outputs) at each grid step of one call, as the
// pipeline computed it from the index maps; recorded when EmulatorOptions::record_blocks is set.
struct BlockTrace {
  int64_t total_steps = 0;  // the grid's size; `steps` holds at most kMaxSteps of them
  // steps[t][k]: the block index of operand k at grid step t (for kElement dimensions, the
  // element offset the index map returned).
  std::vector<std::vector<std::vector<int64_t>>> steps;
  // The step and operand at which the pipeline stopped the call (an out-of-range block index,
  // an output revisit), with the error's message; -1 when it did not.
  int64_t failed_step = -1;
  int failed_operand = -1;
  std::string failure;
  // Enough for every course diagram; a longer grid is recorded in part.
  static constexpr int64_t kMaxSteps = 4096;
};

struct CallResult {
  std::vector<array::Array> outputs;
  // Per output: int32 per element, the linearised grid step whose write-back last stored it
  // (row-major over the grid, see UnravelIndex); -1 where none did (the element is garbage), -2
  // where it still holds the aliased input's value. Warnings count never-written elements from
  // it, and `check` names the step that wrote each block.
  std::vector<array::Array> writer;
  Counters counters;
  UninitializedRead uninitialized;
  // Per output in pl.ANY: the block shape of the DMAs that wrote it, when they all wrote boxes of
  // one shape at multiples of it (so `check` can draw a block map); empty otherwise.
  std::vector<std::vector<int64_t>> dma_blocks;
  // With more than one core: each core's counters (`counters` holds their sums) and its range
  // of linearised grid steps [first, end).
  std::vector<Counters> core_counters;
  std::vector<std::pair<int64_t, int64_t>> core_steps;
  // Why a run asked for several cores used one ("" when it did not ask, or split the grid).
  std::string megacore_note;
};

// The linearised grid steps [first, end) each of `cores` TensorCores runs (megacore): the leading
// `parallel_axes` axes form the parallel sub-grid, cut into contiguous chunks of
// ceil(points / cores) points (as JAX's TPU interpret mode does); a core whose chunk is empty
// gets an empty range. With no parallel axes, core 0 runs everything.
std::vector<std::pair<int64_t, int64_t>> SplitGrid(const std::vector<int64_t>& grid,
                                                   int parallel_axes, int cores);
// The number of leading "parallel" entries of `dimension_semantics`.
int LeadingParallelAxes(const std::vector<std::string>& dimension_semantics);

// An index map that only picks grid indices and constants (`lambda i, j: (i, 0)`): per result,
// the grid axis it returns (>= 0) or -1 with the constant.
struct DirectMap {
  bool ok = false;
  std::vector<std::pair<int, int64_t>> entries;
};
DirectMap AnalyzeIndexMap(const kernel::Function& f);

// ---- One core's run (megacore.cpp runs several) ---------------------------------------------

// Which part of the grid a core runs and how.
struct CoreSpec {
  int core = 0;
  int64_t first = 0, end = 0;  // linearised grid steps [first, end)
  // Record HBM accesses (CoreResult::access) for the race check.
  bool track_hbm = false;
  // Serialises calls back into the interpreter (Apply, jax.debug.print, the step `tick`) when
  // cores run on threads; null with one core.
  std::mutex* callbacks = nullptr;
  // Records the block indices of every step (RunCall's `trace`); only with one core.
  BlockTrace* trace = nullptr;
};

// The HBM elements one core touched. HBM buffers are numbered outputs first, then the inputs
// that are not aliased to an output (an aliased input is its output's buffer; HbmBufferOf).
// Per buffer an int32 stamp per element (an empty array where the core never touched it):
// -1 untouched; >= 0 the last linearised grid step whose write-back (fetch) reached it; <= -2 a
// DMA, dmas[-stamp - 2].
struct HbmAccess {
  struct Dma {
    int64_t step = 0;
    SourceSpan span;
  };
  std::vector<array::Array> writes, reads;
  std::vector<Dma> dmas;
};
int HbmBufferOf(const CallPlan& plan, bool is_output, size_t index);
int NumHbmBuffers(const CallPlan& plan);

struct CoreResult {
  CallResult result;
  HbmAccess access;
};

// Runs the steps of `core` (its own VMEM, SMEM, scratch, semaphores and DMA engine; private
// copies of the HBM arrays, merged by the caller).
CoreResult RunCore(const CallPlan& plan, const std::vector<array::Array>& prefetch,
                   const std::vector<array::Array>& inputs, const EmulatorOptions& options,
                   const std::function<void()>& tick, const CoreSpec& core);

// Runs the call. Throws EmulationError for emulator-detected mistakes; exceptions from Apply
// instructions (Python errors) and from `tick` pass through. When `trace` is given, the block
// indices of every step are recorded there as they are used (also when the call fails).
CallResult RunCall(const CallPlan& plan, const std::vector<array::Array>& prefetch,
                   const std::vector<array::Array>& inputs, const EmulatorOptions& options,
                   const std::function<void()>& tick, BlockTrace* trace = nullptr);

}  // namespace pz::tpu
