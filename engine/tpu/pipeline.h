// The emulated TPU core running one pallas_call: the grid loop and the HBM <-> VMEM pipeline of
// blocked operands (pallas-semantics.md §3.2 in `tpu` semantics, §3.4 HLO-interp in `interpret`
// semantics), scratch and scalar-prefetch SMEM, and the checks that turn silent hardware
// misbehaviour into errors (out-of-range block indices, non-consecutive output revisits).
#pragma once

#include <functional>
#include <map>
#include <memory>
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
  SourceSpan span;  // the index map (or the pallas_call, without one)
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
};

// Runs the call. Throws EmulationError for emulator-detected mistakes; exceptions from Apply
// instructions (Python errors) and from `tick` pass through. When `trace` is given, the block
// indices of every step are recorded there as they are used (also when the call fails).
CallResult RunCall(const CallPlan& plan, const std::vector<array::Array>& prefetch,
                   const std::vector<array::Array>& inputs, const EmulatorOptions& options,
                   const std::function<void()>& tick, BlockTrace* trace = nullptr);

}  // namespace pz::tpu
