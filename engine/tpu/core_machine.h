// The machine behind RunCore (core.h), shared by its two halves: the grid loop (grid_loop.cpp:
// buffers, binding the kernel's refs, block indices from the index maps, steps, DMA landings)
// and the per-operand pipeline (operand_pipeline.cpp: fetch, write-back, bounds and revisit
// checks, interpret-mode clamping). Internal to tpu.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "array/array.h"
#include "kernel/backend.h"
#include "kernel/grid_mapping.h"
#include "tpu/block_index.h"
#include "tpu/core.h"
#include "tpu/dma.h"
#include "tpu/executor.h"

namespace pz::tpu {

// An operand's window for one block index vector: start and size per array dimension.
struct Window {
  size_t rank = 0;
  std::array<int64_t, array::kMaxRank> start, size;  // the first `rank` entries
};

// The window of `op`'s block at `index` (kElement dimensions: `index` is an element offset).
Window WindowOf(const kernel::BlockMapping& op, const std::vector<int64_t>& index);

// Input blocks of at least this many bytes may be borrowed from HBM (RefBuffer::borrowed).
inline constexpr int64_t kBorrowMinBytes = 16 * 1024;

// The pipeline's state for one blocked operand.
struct OperandState {
  RefBuffer buffer;
  array::Array poison;  // what a fresh output block is reset to
  // Outputs: visits per block, in a table indexed by the linearised block index when it is small
  // enough (else in `visits`): [first step, last step], -1 when never visited.
  std::vector<std::pair<int64_t, int64_t>> visit_table;
  std::vector<int64_t> blocks_per_dim;
  int64_t current_key = -1;
  array::Array full_data, full_shadow;  // the buffer (and shadow) viewed with the array's rank
  array::Array own;  // the buffer's own storage (`buffer.data` when not borrowed)
  // Inputs: whole blocks may be borrowed from HBM (see RefBuffer::borrowed); `shadow_set` says
  // the shadow is all set already.
  bool can_borrow = false;
  bool shadow_set = false;
  std::vector<int64_t> current;  // block index resident, when `resident`
  bool resident = false;
  // Outputs: block index -> [first step, last step] of its visit (tpu semantics).
  std::map<std::vector<int64_t>, std::pair<int64_t, int64_t>> visits;
};

class CoreMachine {
 public:
  CoreMachine(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
              const EmulatorOptions& options, const kernel::RunOptions& run, const CoreSpec& core);
  // Runs the core's steps once.
  CoreResult Run(const kernel::CallOperands& operands);

 private:
  using BlockMapping = kernel::BlockMapping;

  // Operand k of inputs-then-outputs.
  const BlockMapping& OperandAt(size_t k) const { return mapping_.operand(k); }
  bool IsOutput(size_t k) const { return k >= mapping_.inputs.size(); }
  // The HBM array (this core's copy) of operand k.
  array::Array& Hbm(size_t k) {
    return IsOutput(k) ? result_.outputs[k - mapping_.inputs.size()] : hbm_inputs_[k];
  }
  // Gives `b` a shadow when uninitialised reads are tracked.
  void Track(RefBuffer& b);
  // Where `point_` lies at another point of the carry axes than `previous`: marks what the
  // scratch under the carry check holds as an earlier point's (2 in its shadow), except what
  // `point_` itself stored there before other points' steps ran (where points resume).
  void MarkCarried(const std::vector<int64_t>& previous);
  std::vector<int64_t> Unravel(int64_t t) const { return UnravelIndex(t, mapping_.grid); }

  // ---- grid_loop.cpp --------------------------------------------------------------------------
  // The stamps of HBM buffer `b` in `arrays`, allocated (all -1) on first use.
  static array::Array& AccessArray(std::vector<array::Array>& arrays, int b,
                                   const array::Shape& shape);
  // The operand a kernel ref is bound to when it is a pl.ANY (HBM) operand, else -1.
  int AnyOperandOf(kernel::RefId ref) const;
  // A DMA landed: a pl.ANY output it wrote records the step that started it as the writer of
  // those elements (where its source held data), and with the race check on, the HBM elements
  // it read and wrote are stamped.
  void Landed(const DmaEndpoint& src, const DmaEndpoint& dst, int64_t step, SourceSpan span);

  // Per grid axis, the order its coordinates are visited in when EmulatorOptions::
  // parallel_order_seed shuffles it (a "parallel" axis), else empty (in order).
  std::vector<std::vector<int64_t>> ParallelOrder() const;

  // After step `t` (`index`: its block indices, `next`: the next step's, empty after the last):
  // copies the scratch buffers, the resident output blocks and the pl.ANY outputs into the step
  // record.
  void Snapshot(int64_t t, const std::vector<std::vector<int64_t>>& index,
                const std::vector<std::vector<int64_t>>& next);

  // ---- operand_pipeline.cpp -------------------------------------------------------------------
  OperandState MakeState(const BlockMapping& op);
  // Stops the call at operand `k` (recording where in the block trace), reported at `span` (by
  // default the operand's index map).
  [[noreturn]] void Fail(size_t k, std::string message, std::vector<std::string> notes,
                         std::optional<SourceSpan> span = std::nullopt);
  // Checks the block is (at least partly) inside the array, as the hardware requires.
  void CheckInBounds(size_t k, const Window& w, const std::vector<int64_t>& index);
  [[noreturn]] [[gnu::cold]] void FailOutOfBounds(size_t k, const Window& w,
                                                  const std::vector<int64_t>& index, size_t d);
  // Makes input `k`'s buffer a view of its window `w` in HBM when it may borrow it (see
  // RefBuffer::borrowed) and `w` lies wholly inside the array; else gives the buffer its own
  // storage back. Returns whether it borrowed.
  bool Borrow(size_t k, const Window& w);
  // Copies the in-bounds part of `w` between HBM and the buffer (either direction); returns the
  // bytes moved.
  int64_t Transfer(size_t k, const Window& w, bool to_buffer, bool poison_rest);
  // Interpret semantics: windows are clamped into the array (lax.dynamic_slice) when the block
  // fits; a block larger than the array keeps its start (the padding reads as poison).
  Window Clamp(const BlockMapping& op, Window w);
  // Where the visits of an output block are recorded.
  std::pair<int64_t, int64_t>& VisitOf(OperandState& s, const std::vector<int64_t>& index);
  // Before step `t`'s body: makes block `index` of operand `k` resident (fetching an input,
  // starting a fresh output block, checking bounds and revisits).
  void Enter(size_t k, const std::vector<int64_t>& index, int64_t t);
  // After step `t`'s body: writes the block back when the next step (`next`, empty after the
  // last) moves to another one (every step in interpret semantics).
  void Leave(size_t k, const std::vector<int64_t>& index, const std::vector<int64_t>& next,
             int64_t t);

  const kernel::KernelProgram& program_;
  const kernel::GridMapping& mapping_;
  const EmulatorOptions& options_;
  const kernel::RunOptions& run_;
  const CoreSpec& core_;
  std::function<void()> tick_;  // the caller's, serialised when cores run on threads
  HbmAccess access_;
  std::vector<bool> dma_uniform_;        // per output: the DMAs into it wrote blocks of one shape
  kernel::BlockTrace* trace_ = nullptr;  // CoreSpec::trace
  bool interpret_ = false;
  int64_t step_ = 0;  // the grid step running (linearised)
  CallResult result_;
  std::vector<array::Array> hbm_inputs_;
  std::vector<RefBuffer> prefetch_;
  std::vector<array::Array> original_prefetch_;
  std::vector<OperandState> states_;
  std::vector<RefBuffer> scratch_;
  std::vector<int64_t> point_;
  ExecContext map_ctx_;
  ExecContext* kctx_ = nullptr;         // the kernel's, while Run runs
  std::vector<uint64_t> seen_writes_;   // per ref: RefBuffer::writes at its last snapshot
  std::vector<BlockIndexer> indexers_;  // per operand, over map_ctx_
  std::vector<bool> carries_;           // per scratch_ buffer: under the carry check
  // Per scratch_ buffer under the carry check, where points resume after others' steps: per
  // element, the point that stored what its shadow marks as an earlier point's (2), or -1.
  std::vector<std::vector<int32_t>> owners_;
  bool carry_resumes_ = false;  // a point of the carry axes resumes after other points' steps
};

}  // namespace pz::tpu
