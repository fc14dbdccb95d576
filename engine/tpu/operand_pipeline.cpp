// The per-operand pipeline of one core (see core_machine.h): a block's window, fetch into its
// VMEM buffer, write-back to HBM, the bounds and revisit checks of `tpu` semantics, and the
// clamped every-step copies of `interpret` semantics.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "array/creation.h"
#include "tpu/core_machine.h"
#include "tpu/memory.h"

namespace pz::tpu {

using array::Array;

Window WindowOf(const kernel::BlockMapping& op, const std::vector<int64_t>& index) {
  Window w;
  w.rank = op.block.size();
  for (size_t d = 0; d < op.block.size(); ++d) {
    w.start[d] = op.block[d].WindowStart(index[d]);
    w.size[d] = op.block[d].WindowSize();
  }
  return w;
}

OperandState CoreMachine::MakeState(const BlockMapping& op) {
  OperandState s;
  if (op.space == kernel::MemorySpace::kAny) {
    // Not pipelined: the kernel gets the HBM array itself (DMA only).
    return s;
  }
  s.buffer.data = Poison(op.ref_shape, op.dtype, run_.zero_uninitialized);
  s.poison = Poison(op.ref_shape, op.dtype, run_.zero_uninitialized);
  Track(s.buffer);
  if (op.is_output) {
    int64_t total = 1;
    for (size_t d = 0; d < op.block.size(); ++d) {
      const kernel::BlockDim& b = op.block[d];
      int64_t n = b.kind == kernel::BlockDim::Kind::kBlocked && b.size > 0
                      ? (op.shape[d] + b.size - 1) / b.size
                      : op.shape[d] + b.pad_lo + b.size;
      s.blocks_per_dim.push_back(std::max<int64_t>(n, 1));
      total = total > (int64_t{1} << 22) ? total : total * std::max<int64_t>(n, 1);
    }
    if (total <= (int64_t{1} << 22)) s.visit_table.assign(static_cast<size_t>(total), {-1, -1});
  }
  s.own = s.buffer.data;
  s.full_data = FullRank(s.buffer.data, op);
  if (s.buffer.tracked) s.full_shadow = FullRank(s.buffer.initialized, op);
  return s;
}

void CoreMachine::Fail(size_t k, std::string message, std::vector<std::string> notes,
                       std::optional<SourceSpan> span) {
  const BlockMapping& op = OperandAt(k);
  if (trace_) {
    trace_->failed_step = step_;
    trace_->failed_operand = static_cast<int>(k);
    trace_->failure = message;
  }
  throw EmulationError{.kind = EmulationError::Kind::kIndexError,
                       .message = std::move(message),
                       .span = span.value_or(op.span),
                       .notes = std::move(notes)};
}

void CoreMachine::CheckInBounds(size_t k, const Window& w, const std::vector<int64_t>& index) {
  const BlockMapping& op = OperandAt(k);
  for (size_t d = 0; d < w.rank; ++d) {
    int64_t n = op.shape[d];
    bool outside = w.start[d] + w.size[d] <= 0 || (w.start[d] >= n && n > 0);
    if (outside) FailOutOfBounds(k, w, index, d);
  }
}

void CoreMachine::FailOutOfBounds(size_t k, const Window& w, const std::vector<int64_t>& index,
                                  size_t d) {
  kernel::BlockWindow window;
  window.start.assign(w.start.begin(), w.start.begin() + static_cast<std::ptrdiff_t>(w.rank));
  window.size.assign(w.size.begin(), w.size.begin() + static_cast<std::ptrdiff_t>(w.rank));
  kernel::BlockIndexError error =
      kernel::OutOfBoundsBlock(mapping_, OperandAt(k), point_, index, window, static_cast<int>(d));
  Fail(k, std::move(error.message), std::move(error.notes), error.span);
}

int64_t CoreMachine::Transfer(size_t k, const Window& w, bool to_buffer, bool poison_rest) {
  const BlockMapping& op = OperandAt(k);
  OperandState& s = states_[k];
  size_t rank = w.rank;
  int64_t lo[array::kMaxRank], blo[array::kMaxRank], extent[array::kMaxRank];
  bool partial = false;
  int64_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = op.shape[d];
    int64_t a = std::max<int64_t>(w.start[d], 0);
    int64_t b = std::max(std::min<int64_t>(w.start[d] + w.size[d], n), a);
    lo[d] = a;
    blo[d] = a - w.start[d];
    extent[d] = b - a;
    count *= extent[d];
    if (extent[d] != w.size[d]) partial = true;
  }
  Array& full = s.full_data;
  int64_t bytes = count * static_cast<int64_t>(array::ItemSize(op.dtype));
  if (core_.track_hbm && !interpret_) {
    // Megacore race check: write-backs of outputs, fetches of inputs aliased to an output
    // (the only HBM reads another core's writes can reach).
    int b = HbmBufferOf(mapping_, IsOutput(k), IsOutput(k) ? k - mapping_.inputs.size() : k);
    if (!to_buffer) {
      StampBox(AccessArray(access_.writes, b, op.shape), lo, extent, rank,
               static_cast<int32_t>(step_));
    } else if (b < static_cast<int>(mapping_.outputs.size())) {
      StampBox(AccessArray(access_.reads, b, op.shape), lo, extent, rank,
               static_cast<int32_t>(step_));
    }
  }
  if (to_buffer) {
    s.shadow_set = false;
    if (partial && poison_rest)
      s.buffer.data.Assign(Poison(op.ref_shape, op.dtype, run_.zero_uninitialized));
    CopyBox(Hbm(k), lo, full, blo, extent, rank);
    if (s.buffer.tracked) {
      Array& shadow = s.full_shadow;
      if (partial) std::memset(shadow.data<uint8_t>(), 0, static_cast<size_t>(shadow.size()));
      // Output data read back (interpret semantics) counts as initialised only where
      // something was written (or it came from an aliased input).
      if (IsOutput(k)) {
        ShadowFromWriter(result_.writer[k - mapping_.inputs.size()], lo, shadow, blo, extent, rank);
      } else {
        FillBox(shadow, blo, extent, rank, 1);
      }
    }
  } else {
    CopyBox(full, blo, Hbm(k), lo, extent, rank);
    if (IsOutput(k)) {
      // Written = stored by the kernel: elements of the block it never stored reach HBM as
      // garbage and count as never written.
      StampWriter(s.buffer.tracked ? &s.full_shadow : nullptr, blo,
                  result_.writer[k - mapping_.inputs.size()], lo, extent, rank, step_);
    }
  }
  return bytes;
}

bool CoreMachine::Borrow(size_t k, const Window& w) {
  OperandState& s = states_[k];
  const BlockMapping& op = OperandAt(k);
  bool inside = s.can_borrow;
  for (size_t d = 0; d < w.rank && inside; ++d) {
    inside = w.start[d] >= 0 && w.start[d] + w.size[d] <= op.shape[d];
  }
  if (!inside) {
    if (s.buffer.borrowed) {
      s.buffer.data = s.own;
      s.buffer.borrowed = false;
    }
    return false;
  }
  const Array& hbm = Hbm(k);
  std::vector<int64_t> strides;
  int64_t offset = hbm.offset();
  for (size_t d = 0; d < w.rank; ++d) {
    offset += w.start[d] * hbm.strides()[d];
    if (op.block[d].kind != kernel::BlockDim::Kind::kSqueezed) strides.push_back(hbm.strides()[d]);
  }
  s.buffer.data = hbm.View(op.ref_shape, std::move(strides), offset);
  s.buffer.borrowed = true;
  if (s.buffer.tracked && !s.shadow_set) {
    std::memset(s.buffer.initialized.data<uint8_t>(), 1, s.buffer.initialized.size());
    s.shadow_set = true;
  }
  return true;
}

Window CoreMachine::Clamp(const BlockMapping& op, Window w) {
  for (size_t d = 0; d < w.rank; ++d) {
    int64_t n = op.shape[d];
    int64_t padded = op.block[d].kind == kernel::BlockDim::Kind::kBlocked && op.block[d].size > 0
                         ? (n + op.block[d].size - 1) / op.block[d].size * op.block[d].size
                         : n;
    w.start[d] = std::clamp<int64_t>(w.start[d], std::min<int64_t>(0, padded - w.size[d]),
                                     std::max<int64_t>(padded - w.size[d], 0));
  }
  return w;
}

std::pair<int64_t, int64_t>& CoreMachine::VisitOf(OperandState& s,
                                                  const std::vector<int64_t>& index) {
  if (s.visit_table.empty()) {
    auto it = s.visits.find(index);
    if (it == s.visits.end()) it = s.visits.emplace(index, std::make_pair(-1, -1)).first;
    return it->second;
  }
  int64_t key = 0;
  for (size_t d = 0; d < index.size(); ++d) key = key * s.blocks_per_dim[d] + index[d];
  return s.visit_table[static_cast<size_t>(key)];
}

void CoreMachine::Enter(size_t k, const std::vector<int64_t>& index, int64_t t) {
  const BlockMapping& op = OperandAt(k);
  if (op.space == kernel::MemorySpace::kAny) {
    states_[k].buffer.data = Hbm(k);
    return;
  }
  OperandState& s = states_[k];
  if (interpret_) {
    // Every block, outputs included, is re-read from the full array each step.
    Window w = Clamp(op, WindowOf(op, index));
    result_.counters.hbm_bytes_read += Transfer(k, w, true, true);
    s.current = index;
    return;
  }
  bool changed = !s.resident || !array::SameDims(s.current, index);
  s.resident = true;
  if (!changed) {
    if (IsOutput(k)) VisitOf(s, index).second = t;
    return;
  }
  Window w = WindowOf(op, index);
  CheckInBounds(k, w, index);
  if (IsOutput(k)) {
    std::pair<int64_t, int64_t>& visit = VisitOf(s, index);
    bool aliased = false;
    for (const auto& entry : mapping_.aliases)
      aliased |= entry.second == int(k - mapping_.inputs.size());
    if (visit.first >= 0 && !aliased) {
      Fail(k,
           fmt::format("Revisited block {} of output {} in grid step {}. The block was "
                       "previously visited in grid steps {} through {}",
                       TupleString(index), op.name, TupleString(point_),
                       TupleString(Unravel(visit.first)), TupleString(Unravel(visit.second))),
           {"an output block is written back to HBM when the pipeline moves to another "
            "block, and never read back: coming back to it later starts from a fresh, "
            "uninitialised buffer and overwrites the earlier result",
            "make all grid steps that write one output block consecutive: the grid axes "
            "that do not move it (reductions) go last, marked \"arbitrary\", after every "
            "axis that picks the block"});
    }
    visit = {t, t};
    // A new output block starts as garbage, whatever the buffer held (the last block's values,
    // on a TPU and in JAX's interpret mode): poison it so that reading it shows. With memory
    // zeroed (InterpretParams(uninitialized_memory="zero")) the buffer keeps the last block's
    // values, as JAX's interpret mode keeps them; only its first block starts as zeros.
    if (!run_.zero_uninitialized) {
      std::memcpy(s.buffer.data.raw(), s.poison.raw(),
                  static_cast<size_t>(s.poison.size()) * array::ItemSize(op.dtype));
    }
    if (s.buffer.tracked) {
      std::memset(s.buffer.initialized.data<uint8_t>(), 0, s.buffer.initialized.size());
    }
  } else if (Borrow(k, w)) {
    result_.counters.hbm_bytes_read +=
        array::NumElements(op.ref_shape) * static_cast<int64_t>(array::ItemSize(op.dtype));
  } else {
    result_.counters.hbm_bytes_read += Transfer(k, w, true, true);
  }
  s.current = index;
}

void CoreMachine::Leave(size_t k, const std::vector<int64_t>& index,
                        const std::vector<int64_t>& next, int64_t t) {
  const BlockMapping& op = OperandAt(k);
  if (op.space == kernel::MemorySpace::kAny) return;
  if (interpret_) {
    // Every block, inputs included, is written back each step.
    Window w = Clamp(op, WindowOf(op, index));
    int64_t bytes = Transfer(k, w, false, false);
    if (IsOutput(k)) result_.counters.hbm_bytes_written += bytes;
    return;
  }
  if (!IsOutput(k)) return;
  if (next.empty() || !array::SameDims(next, index)) {
    result_.counters.hbm_bytes_written += Transfer(k, WindowOf(op, index), false, false);
  }
}
}  // namespace pz::tpu
