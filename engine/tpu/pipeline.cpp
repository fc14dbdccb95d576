#include "tpu/pipeline.h"

#include <fmt/format.h>

#include <array>
#include <cstring>

#include "array/creation.h"
#include "support/check.h"
#include "tpu/dma.h"

namespace pz::tpu {

using array::Array;

namespace {

// An operand's window for one block index vector: start and size per array dimension.
struct Window {
  size_t rank = 0;
  std::array<int64_t, array::kMaxRank> start{}, size{};
};

Window WindowOf(const Operand& op, const std::vector<int64_t>& index) {
  Window w;
  w.rank = op.block.size();
  for (size_t d = 0; d < op.block.size(); ++d) {
    const BlockDim& b = op.block[d];
    switch (b.kind) {
      case BlockDim::Kind::kBlocked:
        w.start[d] = index[d] * b.size;
        w.size[d] = b.size;
        break;
      case BlockDim::Kind::kSqueezed:
        w.start[d] = index[d];
        w.size[d] = 1;
        break;
      case BlockDim::Kind::kElement:
        w.start[d] = index[d] - b.pad_lo;
        w.size[d] = b.size;
        break;
    }
  }
  return w;
}

std::string WindowString(const Window& w) {
  std::string s = "[";
  for (size_t d = 0; d < w.rank; ++d) {
    s += fmt::format("{}{}:{}", d ? ", " : "", w.start[d], w.start[d] + w.size[d]);
  }
  return s + "]";
}

// Copies the box [src_lo, src_lo + extent) of `src` to [dst_lo, dst_lo + extent) of `dst` (same
// dtype, same rank), without allocating: rows along the last dimension are memcpy'd.
void CopyBox(const Array& src, const int64_t* src_lo, Array& dst, const int64_t* dst_lo,
             const int64_t* extent, size_t rank) {
  size_t item = array::ItemSize(src.dtype());
  for (size_t d = 0; d < rank; ++d) {
    if (extent[d] <= 0) return;
  }
  const std::byte* s = src.raw();
  std::byte* t = dst.raw();
  const std::vector<int64_t>& ss = src.strides();
  const std::vector<int64_t>& ts = dst.strides();
  int64_t s_base = 0, t_base = 0;
  for (size_t d = 0; d < rank; ++d) {
    s_base += src_lo[d] * ss[d];
    t_base += dst_lo[d] * ts[d];
  }
  if (rank == 0) {
    std::memcpy(t, s, item);
    return;
  }
  int64_t counter[array::kMaxRank] = {};
  size_t last = rank - 1;
  bool rows = ss[last] == 1 && ts[last] == 1;
  while (true) {
    int64_t so = s_base, to = t_base;
    for (size_t d = 0; d < last; ++d) {
      so += counter[d] * ss[d];
      to += counter[d] * ts[d];
    }
    if (rows) {
      std::memcpy(t + to * item, s + so * item, static_cast<size_t>(extent[last]) * item);
    } else {
      for (int64_t i = 0; i < extent[last]; ++i) {
        std::memcpy(t + (to + i * ts[last]) * item, s + (so + i * ss[last]) * item, item);
      }
    }
    size_t d = last;
    while (d-- > 0) {
      if (++counter[d] < extent[d]) break;
      counter[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

// Calls `row(counter)` for every row (along the last dimension) of a box of `extent`, with
// `counter` the row's offsets in the other dimensions; nothing for an empty box, and one call
// with no offsets for rank 0.
template <typename Row>
void ForEachRow(const int64_t* extent, size_t rank, Row&& row) {
  for (size_t d = 0; d < rank; ++d) {
    if (extent[d] <= 0) return;
  }
  int64_t counter[array::kMaxRank] = {};
  if (rank == 0) {
    row(counter);
    return;
  }
  size_t last = rank - 1;
  while (true) {
    row(counter);
    size_t d = last;
    while (d-- > 0) {
      if (++counter[d] < extent[d]) break;
      counter[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

// The offset of the row at `counter` (see ForEachRow) of the box at `lo` in an array.
int64_t RowOffset(const Array& a, const int64_t* lo, const int64_t* counter, size_t rank) {
  int64_t o = 0;
  for (size_t d = 0; d < rank; ++d) o += (lo[d] + (d + 1 < rank ? counter[d] : 0)) * a.strides()[d];
  return o;
}

// Sets the box [lo, lo + extent) of a contiguous uint8 shadow to `value`.
void FillBox(Array& shadow, const int64_t* lo, const int64_t* extent, size_t rank, uint8_t value) {
  uint8_t* p = shadow.data<uint8_t>();
  size_t n = rank ? static_cast<size_t>(extent[rank - 1]) : 1;
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    std::memset(p + RowOffset(shadow, lo, counter, rank), value, n);
  });
}

// Writer values (CallResult::writer) that are not grid steps.
constexpr int32_t kNeverWritten = -1;
constexpr int32_t kAliasedInput = -2;

// A write-back of the box at `shadow_lo` of a block into the box at `lo` of the output: each
// element of the int32 `writer` becomes `step` where the block's shadow byte says the kernel
// stored it, else kNeverWritten (garbage reached HBM). Without a shadow, `step` everywhere.
void StampWriter(const Array* shadow, const int64_t* shadow_lo, Array& writer, const int64_t* lo,
                 const int64_t* extent, size_t rank, int64_t step) {
  int32_t* w = writer.data<int32_t>();
  const uint8_t* f = shadow ? shadow->data<uint8_t>() : nullptr;
  int64_t n = rank ? extent[rank - 1] : 1;
  int64_t ws = rank ? writer.strides()[rank - 1] : 0;
  int64_t fs = f && rank ? shadow->strides()[rank - 1] : 0;
  auto stamp = static_cast<int32_t>(step);
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    int32_t* wr = w + RowOffset(writer, lo, counter, rank);
    if (!f) {
      for (int64_t j = 0; j < n; ++j) wr[j * ws] = stamp;
      return;
    }
    const uint8_t* fr = f + RowOffset(*shadow, shadow_lo, counter, rank);
    for (int64_t j = 0; j < n; ++j) wr[j * ws] = fr[j * fs] ? stamp : kNeverWritten;
  });
}

// The reverse, for output data read back from HBM (interpret semantics): the block's shadow
// marks as initialised the elements some write-back stored (or an aliased input provided).
void ShadowFromWriter(const Array& writer, const int64_t* lo, Array& shadow,
                      const int64_t* shadow_lo, const int64_t* extent, size_t rank) {
  const int32_t* w = writer.data<int32_t>();
  uint8_t* f = shadow.data<uint8_t>();
  int64_t n = rank ? extent[rank - 1] : 1;
  int64_t ws = rank ? writer.strides()[rank - 1] : 0;
  int64_t fs = rank ? shadow.strides()[rank - 1] : 0;
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    const int32_t* wr = w + RowOffset(writer, lo, counter, rank);
    uint8_t* fr = f + RowOffset(shadow, shadow_lo, counter, rank);
    for (int64_t j = 0; j < n; ++j) fr[j * fs] = wr[j * ws] != kNeverWritten;
  });
}

// The buffer of an operand seen with the full rank of the array (squeezed dimensions as 1).
Array FullRank(const Array& buffer, const Operand& op) {
  array::Shape shape;
  for (const BlockDim& b : op.block)
    shape.push_back(b.kind == BlockDim::Kind::kSqueezed ? 1 : b.size);
  return buffer.View(shape, array::ContiguousStrides(shape), buffer.offset());
}

// Sets the box [lo, lo + extent) of an int32 stamp array to `value`.
void StampBox(Array& stamps, const int64_t* lo, const int64_t* extent, size_t rank, int32_t value) {
  int32_t* p = stamps.data<int32_t>();
  int64_t n = rank ? extent[rank - 1] : 1;
  ForEachRow(extent, rank, [&](const int64_t* counter) {
    int32_t* row = p + RowOffset(stamps, lo, counter, rank);
    std::fill(row, row + n, value);
  });
}

struct OperandState {
  RefBuffer buffer;
  Array poison;  // what a fresh output block is reset to
  // Outputs: visits per block, in a table indexed by the linearised block index when it is small
  // enough (else in `visits`): [first step, last step], -1 when never visited.
  std::vector<std::pair<int64_t, int64_t>> visit_table;
  std::vector<int64_t> blocks_per_dim;
  int64_t current_key = -1;
  Array full_data, full_shadow;  // the buffer (and shadow) viewed with the array's rank
  std::vector<int64_t> current;  // block index resident, when `resident`
  bool resident = false;
  // Outputs: block index -> [first step, last step] of its visit (tpu semantics).
  std::map<std::vector<int64_t>, std::pair<int64_t, int64_t>> visits;
};

class Machine {
 public:
  Machine(const CallPlan& plan, const EmulatorOptions& options, const std::function<void()>& tick,
          const CoreSpec& core)
      : plan_(plan), options_(options), core_(core), trace_(core.trace) {
    if (core.callbacks != nullptr && tick) {
      tick_ = [&tick, mutex = core.callbacks] {
        std::lock_guard<std::mutex> lock(*mutex);
        tick();
      };
    } else {
      tick_ = tick;
    }
  }

  CoreResult Run(const std::vector<Array>& prefetch, const std::vector<Array>& inputs) {
    interpret_ = options_.semantics == Semantics::kInterpret;
    const kernel::Function& kernel = *plan_.kernel;
    // HBM arrays. Inputs are private copies (the kernel may write to its input blocks).
    hbm_inputs_.clear();
    for (size_t i = 0; i < inputs.size(); ++i) hbm_inputs_.push_back(Copy(inputs[i]));
    for (size_t o = 0; o < plan_.outputs.size(); ++o) {
      const Operand& op = plan_.outputs[o];
      auto alias = std::find_if(plan_.aliases.begin(), plan_.aliases.end(),
                                [&](const auto& entry) { return entry.second == (int)o; });
      result_.outputs.push_back(alias != plan_.aliases.end() ? Copy(inputs[alias->first])
                                                             : Poison(op.shape, op.dtype));
      int32_t start = alias != plan_.aliases.end() ? kAliasedInput : kNeverWritten;
      result_.writer.push_back(array::Full(
          op.shape, {static_cast<double>(start), array::DType::kInt32}, array::DType::kInt32));
    }
    result_.dma_blocks.resize(plan_.outputs.size());
    dma_uniform_.assign(plan_.outputs.size(), true);
    if (core_.track_hbm) {
      access_.writes.resize(static_cast<size_t>(NumHbmBuffers(plan_)));
      access_.reads.resize(access_.writes.size());
    }
    // Prefetch operands live in SMEM for the whole call.
    for (const Array& a : prefetch) {
      RefBuffer b{.data = Copy(a)};
      prefetch_.push_back(std::move(b));
    }
    original_prefetch_ = prefetch;
    // Per-operand buffers.
    for (const Operand& op : plan_.inputs) states_.push_back(MakeState(op));
    for (const Operand& op : plan_.outputs) states_.push_back(MakeState(op));
    for (const kernel::RefType& ref : kernel.refs) {
      if (ref.role != kernel::RefRole::kScratch && ref.role != kernel::RefRole::kScoped) continue;
      RefBuffer b{.data = Poison(ref.shape, ref.dtype)};
      Track(b);
      scratch_.push_back(std::move(b));
    }
    int64_t vmem = 0;
    for (size_t k = 0; k < states_.size(); ++k) {
      const Operand& op = OperandAt(k);
      if (op.space == kernel::MemorySpace::kVmem) {
        vmem += 2 * array::NumElements(op.ref_shape) * array::ItemSize(op.dtype);
      }
    }
    for (const kernel::RefType& ref : kernel.refs) {  // scratch and run_scoped buffers
      bool scratch = ref.role == kernel::RefRole::kScratch || ref.role == kernel::RefRole::kScoped;
      if (scratch && ref.space == kernel::MemorySpace::kVmem) {
        vmem += array::NumElements(ref.shape) * array::ItemSize(ref.dtype);
      }
    }
    result_.counters.vmem_high_water = vmem;

    // Bind the kernel's refs.
    ExecContext kctx;
    kctx.grid_point = &point_;
    kctx.semantics = options_.semantics;
    kctx.uninitialized = options_.track_uninitialized ? &result_.uninitialized : nullptr;
    kctx.counters = &result_.counters;
    kctx.tick = tick_;
    kctx.callbacks = core_.callbacks;
    for (RefBuffer& b : prefetch_) kctx.refs.push_back(&b);
    for (size_t k = 0; k < states_.size(); ++k) kctx.refs.push_back(&states_[k].buffer);
    for (RefBuffer& b : scratch_) kctx.refs.push_back(&b);
    PZ_CHECK(kctx.refs.size() == kernel.refs.size());
    DmaEngine dma(kernel, options_, plan_.line_of, result_.counters);
    kctx.dma = &dma;
    dma.on_land = [this](const DmaEndpoint& src, const DmaEndpoint& dst, int64_t step,
                         SourceSpan span) { Landed(src, dst, step, span); };
    std::vector<kernel::RefId> pipelined;  // block buffers the pipeline refills or writes back
    for (size_t k = 0; k < states_.size(); ++k) {
      if (OperandAt(k).space != kernel::MemorySpace::kAny) {
        pipelined.push_back(static_cast<kernel::RefId>(prefetch_.size() + k));
      }
    }
    Executor executor(kernel, kctx);

    // Index-map executors share one context (refs = prefetch buffers).
    map_ctx_.grid_point = &point_;
    map_ctx_.semantics = options_.semantics;
    map_ctx_.tick = tick_;
    map_ctx_.callbacks = core_.callbacks;
    for (RefBuffer& b : prefetch_) map_ctx_.refs.push_back(&b);
    for (size_t k = 0; k < states_.size(); ++k) {
      const Operand& op = OperandAt(k);
      map_executors_.push_back(op.index_map ? std::make_unique<Executor>(*op.index_map, map_ctx_)
                                            : nullptr);
      direct_.push_back(op.index_map ? AnalyzeIndexMap(*op.index_map) : DirectMap{});
    }

    // This core's share of the grid, in row-major order.
    const int64_t first = core_.first, total = core_.end;
    std::vector<std::vector<int64_t>> index(states_.size()), next_index(states_.size());
    // The grid points of this step and the next, advanced like an odometer (no allocation per
    // step).
    std::vector<int64_t> this_point = Unravel(first), next_point = this_point;
    if (first < total) {
      point_ = this_point;
      for (size_t k = 0; k < states_.size(); ++k) BlockIndex(k, index[k]);
    }
    if (trace_) trace_->total_steps = total;
    for (int64_t t = first; t < total; ++t) {
      if (tick_) tick_();
      step_ = t;
      point_.assign(this_point.begin(), this_point.end());
      if (trace_ && t < BlockTrace::kMaxSteps) trace_->steps.push_back(index);
      ++result_.counters.grid_steps;
      if (interpret_) {
        for (size_t i = 0; i < prefetch_.size(); ++i) {
          prefetch_[i].data.Assign(original_prefetch_[i]);
        }
      }
      // Block indices of the next step are computed before this step's body runs (the
      // hardware issues the next prefetch early; writes to prefetch refs cannot steer it).
      if (t + 1 < total) {
        next_point.assign(this_point.begin(), this_point.end());
        for (size_t d = next_point.size(); d-- > 0;) {
          if (++next_point[d] < plan_.grid[d]) break;
          next_point[d] = 0;
        }
        point_.swap(next_point);
        for (size_t k = 0; k < states_.size(); ++k) BlockIndex(k, next_index[k]);
        point_.swap(next_point);
      }
      for (size_t k = 0; k < states_.size(); ++k) Enter(k, index[k], t);
      dma.SetStep(t, point_);
      executor.Run({});
      dma.EndStep(pipelined);
      for (size_t k = 0; k < states_.size(); ++k) {
        bool last = t + 1 == total;
        Leave(k, index[k], last ? std::vector<int64_t>{} : next_index[k], t);
      }
      std::swap(index, next_index);
      this_point.swap(next_point);
    }
    dma.Finish();
    for (size_t o = 0; o < plan_.outputs.size(); ++o) {
      if (!dma_uniform_[o]) result_.dma_blocks[o].clear();
    }
    return CoreResult{.result = std::move(result_), .access = std::move(access_)};
  }

 private:
  const Operand& OperandAt(size_t k) const {
    return k < plan_.inputs.size() ? plan_.inputs[k] : plan_.outputs[k - plan_.inputs.size()];
  }
  bool IsOutput(size_t k) const { return k >= plan_.inputs.size(); }
  Array& Hbm(size_t k) {
    return IsOutput(k) ? result_.outputs[k - plan_.inputs.size()] : hbm_inputs_[k];
  }

  void Track(RefBuffer& b) {
    if (!options_.track_uninitialized) return;
    b.tracked = true;
    b.initialized = array::Zeros(b.data.shape(), array::DType::kUInt8);
  }

  OperandState MakeState(const Operand& op) {
    OperandState s;
    if (op.space == kernel::MemorySpace::kAny) {
      // Not pipelined: the kernel gets the HBM array itself (DMA only).
      return s;
    }
    s.buffer.data = Poison(op.ref_shape, op.dtype);
    s.poison = Poison(op.ref_shape, op.dtype);
    Track(s.buffer);
    if (op.is_output) {
      int64_t total = 1;
      for (size_t d = 0; d < op.block.size(); ++d) {
        const BlockDim& b = op.block[d];
        int64_t n = b.kind == BlockDim::Kind::kBlocked && b.size > 0
                        ? (op.shape[d] + b.size - 1) / b.size
                        : op.shape[d] + b.pad_lo + b.size;
        s.blocks_per_dim.push_back(std::max<int64_t>(n, 1));
        total = total > (int64_t{1} << 22) ? total : total * std::max<int64_t>(n, 1);
      }
      if (total <= (int64_t{1} << 22)) s.visit_table.assign(static_cast<size_t>(total), {-1, -1});
    }
    s.full_data = FullRank(s.buffer.data, op);
    if (s.buffer.tracked) s.full_shadow = FullRank(s.buffer.initialized, op);
    return s;
  }

  std::vector<int64_t> Unravel(int64_t t) const { return UnravelIndex(t, plan_.grid); }

  // The block index of operand `k` at grid point `point_`, into `index` (reusing its storage).
  void BlockIndex(size_t k, std::vector<int64_t>& index) {
    const Operand& op = OperandAt(k);
    index.clear();
    if (!op.index_map) {
      index.resize(op.block.size(), 0);
      return;
    }
    if (direct_[k].ok) {
      for (const auto& [axis, value] : direct_[k].entries) {
        index.push_back(axis >= 0 ? point_[axis] : value);
      }
      return;
    }
    std::vector<Array> params;
    for (int64_t g : point_) params.push_back(Array::Scalar(array::DType::kInt32, double(g)));
    std::vector<Array> out = map_executors_[k]->Run(params);
    for (const Array& a : out) index.push_back(a.GetInt(0));
  }

  [[noreturn]] void Fail(size_t k, std::string message, std::vector<std::string> notes) {
    const Operand& op = OperandAt(k);
    if (trace_) {
      trace_->failed_step = step_;
      trace_->failed_operand = static_cast<int>(k);
      trace_->failure = message;
    }
    throw EmulationError{.kind = EmulationError::Kind::kIndexError,
                         .message = std::move(message),
                         .span = op.span,
                         .notes = std::move(notes)};
  }

  // Checks the block is (at least partly) inside the array, as the hardware requires.
  void CheckInBounds(size_t k, const Window& w, const std::vector<int64_t>& index) {
    const Operand& op = OperandAt(k);
    for (size_t d = 0; d < w.rank; ++d) {
      int64_t n = op.shape[d];
      bool outside = w.start[d] + w.size[d] <= 0 || (w.start[d] >= n && n > 0);
      if (!outside) continue;
      Fail(k,
           fmt::format("Out-of-bounds block index {} for {} {} in grid step {}: {} {} but the "
                       "{} has shape {}",
                       TupleString(index), op.is_output ? "output" : "input", op.name,
                       TupleString(point_), op.is_output ? "writing" : "reading", WindowString(w),
                       op.is_output ? "output" : "input", array::ShapeToString(op.shape)),
           {fmt::format("dimension {} has {} elements, so block indices on it must stay below "
                        "{} (block size {})",
                        d, n,
                        (n + std::max<int64_t>(w.size[d], 1) - 1) / std::max<int64_t>(w.size[d], 1),
                        w.size[d]),
            "an index map returns block indices, not element offsets; check it against the "
            "grid (JAX's interpret=True silently clamps this, a TPU reads other memory)"});
    }
  }

  // Copies the in-bounds part of `w` between HBM and the buffer (either direction); returns the
  // bytes moved.
  int64_t Transfer(size_t k, const Window& w, bool to_buffer, bool poison_rest) {
    const Operand& op = OperandAt(k);
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
      int b = HbmBufferOf(plan_, IsOutput(k), IsOutput(k) ? k - plan_.inputs.size() : k);
      if (!to_buffer) {
        StampBox(AccessArray(access_.writes, b, op.shape), lo, extent, rank,
                 static_cast<int32_t>(step_));
      } else if (b < static_cast<int>(plan_.outputs.size())) {
        StampBox(AccessArray(access_.reads, b, op.shape), lo, extent, rank,
                 static_cast<int32_t>(step_));
      }
    }
    if (to_buffer) {
      if (partial && poison_rest) s.buffer.data.Assign(Poison(op.ref_shape, op.dtype));
      CopyBox(Hbm(k), lo, full, blo, extent, rank);
      if (s.buffer.tracked) {
        Array& shadow = s.full_shadow;
        if (partial) std::memset(shadow.data<uint8_t>(), 0, static_cast<size_t>(shadow.size()));
        // Output data read back (interpret semantics) counts as initialised only where
        // something was written (or it came from an aliased input).
        if (IsOutput(k)) {
          ShadowFromWriter(result_.writer[k - plan_.inputs.size()], lo, shadow, blo, extent, rank);
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
                    result_.writer[k - plan_.inputs.size()], lo, extent, rank, step_);
      }
    }
    return bytes;
  }

  // The stamps of HBM buffer `b` in `arrays`, allocated (all -1) on first use.
  static Array& AccessArray(std::vector<Array>& arrays, int b, const array::Shape& shape) {
    Array& a = arrays[static_cast<size_t>(b)];
    if (a.SharesStorageWith(Array())) {  // not allocated yet
      a = array::Full(shape, {-1.0, array::DType::kInt32}, array::DType::kInt32);
    }
    return a;
  }

  // The operand a kernel ref is bound to when it is a pl.ANY (HBM) operand, else -1.
  int AnyOperandOf(kernel::RefId ref) const {
    int64_t k = static_cast<int64_t>(ref) - static_cast<int64_t>(prefetch_.size());
    if (k < 0 || k >= static_cast<int64_t>(states_.size())) return -1;
    return OperandAt(static_cast<size_t>(k)).space == kernel::MemorySpace::kAny ? int(k) : -1;
  }

  // A DMA landed: a pl.ANY output it wrote records the step that started it as the writer of
  // those elements (where its source held data), and with the race check on, the HBM elements it
  // read and wrote are stamped.
  void Landed(const DmaEndpoint& src, const DmaEndpoint& dst, int64_t step, SourceSpan span) {
    int dst_k = AnyOperandOf(dst.ref), src_k = AnyOperandOf(src.ref);
    if (dst_k < 0 && src_k < 0) return;
    auto box = [](const MemRegion& r, int64_t* lo, int64_t* extent) {
      for (size_t d = 0; d < r.rank; ++d) {
        lo[d] = r.lo[d];
        extent[d] = r.hi[d] - r.lo[d] + 1;
      }
    };
    int32_t stamp = 0;
    if (core_.track_hbm) {
      stamp = static_cast<int32_t>(-2 - static_cast<int64_t>(access_.dmas.size()));
      access_.dmas.push_back({.step = step, .span = span});
    }
    int64_t lo[array::kMaxRank], extent[array::kMaxRank];
    if (dst_k >= 0 && !dst.region.empty) {
      const Operand& op = OperandAt(static_cast<size_t>(dst_k));
      size_t rank = dst.region.rank;
      box(dst.region, lo, extent);
      if (IsOutput(static_cast<size_t>(dst_k))) {
        size_t o = static_cast<size_t>(dst_k) - plan_.inputs.size();
        StampBox(result_.writer[o], lo, extent, rank, static_cast<int32_t>(step));
        if (src.tracked) {
          // Elements whose source was never written stay "never written".
          Array shadow = Copy(src.shadow);
          const uint8_t* f = shadow.data<uint8_t>();
          int32_t* w = result_.writer[o].data<int32_t>();
          int64_t n = rank ? extent[rank - 1] : 1, i = 0;
          ForEachRow(extent, rank, [&](const int64_t* counter) {
            int32_t* row = w + RowOffset(result_.writer[o], lo, counter, rank);
            for (int64_t j = 0; j < n; ++j, ++i) {
              if (f[i] == 0) row[j] = kNeverWritten;
            }
          });
        }
        std::vector<int64_t> block(extent, extent + rank);
        bool aligned = true;
        for (size_t d = 0; d < rank; ++d) aligned &= lo[d] % std::max<int64_t>(extent[d], 1) == 0;
        if (result_.dma_blocks[o].empty()) result_.dma_blocks[o] = block;
        if (!aligned || result_.dma_blocks[o] != block) dma_uniform_[o] = false;
      }
      if (core_.track_hbm) {
        bool out = IsOutput(static_cast<size_t>(dst_k));
        size_t index = out ? static_cast<size_t>(dst_k) - plan_.inputs.size() : size_t(dst_k);
        StampBox(AccessArray(access_.writes, HbmBufferOf(plan_, out, index), op.shape), lo, extent,
                 rank, stamp);
      }
    }
    if (src_k >= 0 && core_.track_hbm && !src.region.empty) {
      const Operand& op = OperandAt(static_cast<size_t>(src_k));
      bool out = IsOutput(static_cast<size_t>(src_k));
      size_t index = out ? static_cast<size_t>(src_k) - plan_.inputs.size() : size_t(src_k);
      box(src.region, lo, extent);
      StampBox(AccessArray(access_.reads, HbmBufferOf(plan_, out, index), op.shape), lo, extent,
               src.region.rank, stamp);
    }
  }

  // Interpret semantics: windows are clamped into the array (lax.dynamic_slice) when the block
  // fits; a block larger than the array keeps its start (the padding reads as poison).
  Window Clamp(const Operand& op, Window w) {
    for (size_t d = 0; d < w.rank; ++d) {
      int64_t n = op.shape[d];
      int64_t padded = op.block[d].kind == BlockDim::Kind::kBlocked && op.block[d].size > 0
                           ? (n + op.block[d].size - 1) / op.block[d].size * op.block[d].size
                           : n;
      w.start[d] = std::clamp<int64_t>(w.start[d], std::min<int64_t>(0, padded - w.size[d]),
                                       std::max<int64_t>(padded - w.size[d], 0));
    }
    return w;
  }

  // Where the visits of an output block are recorded.
  std::pair<int64_t, int64_t>& VisitOf(OperandState& s, const std::vector<int64_t>& index) {
    if (s.visit_table.empty()) {
      auto it = s.visits.find(index);
      if (it == s.visits.end()) it = s.visits.emplace(index, std::make_pair(-1, -1)).first;
      return it->second;
    }
    int64_t key = 0;
    for (size_t d = 0; d < index.size(); ++d) key = key * s.blocks_per_dim[d] + index[d];
    return s.visit_table[static_cast<size_t>(key)];
  }

  void Enter(size_t k, const std::vector<int64_t>& index, int64_t t) {
    const Operand& op = OperandAt(k);
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
    bool changed = !s.resident || s.current != index;
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
      for (const auto& entry : plan_.aliases)
        aliased |= entry.second == int(k - plan_.inputs.size());
      if (visit.first >= 0 && !aliased) {
        Fail(k,
             fmt::format("Revisited block {} of output {} in grid step {}. The block was "
                         "previously visited in grid steps {} through {}",
                         TupleString(index), op.name, TupleString(point_),
                         TupleString(Unravel(visit.first)), TupleString(Unravel(visit.second))),
             {"an output block is written back to HBM when the pipeline moves to another "
              "block, and never read back: coming back to it later starts from a fresh, "
              "uninitialised buffer and overwrites the earlier result",
              "make all grid steps that write one output block consecutive: put the "
              "reduction axis last in the grid (and mark it \"arbitrary\")"});
      }
      visit = {t, t};
      // A new output block starts as garbage: poison it so that reading it shows.
      std::memcpy(s.buffer.data.raw(), s.poison.raw(),
                  static_cast<size_t>(s.poison.size()) * array::ItemSize(op.dtype));
      if (s.buffer.tracked) {
        std::memset(s.buffer.initialized.data<uint8_t>(), 0, s.buffer.initialized.size());
      }
    } else {
      result_.counters.hbm_bytes_read += Transfer(k, w, true, true);
    }
    s.current = index;
  }

  void Leave(size_t k, const std::vector<int64_t>& index, const std::vector<int64_t>& next,
             int64_t t) {
    const Operand& op = OperandAt(k);
    if (op.space == kernel::MemorySpace::kAny) return;
    if (interpret_) {
      // Every block, inputs included, is written back each step.
      Window w = Clamp(op, WindowOf(op, index));
      int64_t bytes = Transfer(k, w, false, false);
      if (IsOutput(k)) result_.counters.hbm_bytes_written += bytes;
      return;
    }
    if (!IsOutput(k)) return;
    if (next.empty() || next != index) {
      result_.counters.hbm_bytes_written += Transfer(k, WindowOf(op, index), false, false);
    }
  }

  const CallPlan& plan_;
  const EmulatorOptions& options_;
  const CoreSpec& core_;
  std::function<void()> tick_;  // the caller's, serialised when cores run on threads
  HbmAccess access_;
  std::vector<bool> dma_uniform_;  // per output: the DMAs into it wrote blocks of one shape
  BlockTrace* trace_ = nullptr;    // CoreSpec::trace
  bool interpret_ = false;
  int64_t step_ = 0;  // the grid step running (linearised)
  CallResult result_;
  std::vector<Array> hbm_inputs_;
  std::vector<RefBuffer> prefetch_;
  std::vector<Array> original_prefetch_;
  std::vector<OperandState> states_;
  std::vector<RefBuffer> scratch_;
  std::vector<int64_t> point_;
  ExecContext map_ctx_;
  std::vector<std::unique_ptr<Executor>> map_executors_;
  std::vector<DirectMap> direct_;
};

}  // namespace

DirectMap AnalyzeIndexMap(const kernel::Function& f) {
  DirectMap m;
  std::map<kernel::ValueId, int64_t> constants;
  for (const kernel::Instr& instr : f.body.body) {
    if (instr.op != kernel::Op::kConstant || instr.constant->rank() != 0) return m;
    constants[instr.results[0]] = instr.constant->GetInt(0);
  }
  for (kernel::ValueId id : f.body.yields) {
    auto param = std::find(f.body.params.begin(), f.body.params.end(), id);
    if (param != f.body.params.end()) {
      m.entries.emplace_back(static_cast<int>(param - f.body.params.begin()), 0);
    } else if (auto c = constants.find(id); c != constants.end()) {
      m.entries.emplace_back(-1, c->second);
    } else {
      return m;
    }
  }
  m.ok = true;
  return m;
}

int HbmBufferOf(const CallPlan& plan, bool is_output, size_t index) {
  if (is_output) return static_cast<int>(index);
  if (auto alias = plan.aliases.find(static_cast<int>(index)); alias != plan.aliases.end()) {
    return alias->second;
  }
  int b = static_cast<int>(plan.outputs.size());
  for (size_t i = 0; i < index; ++i) b += plan.aliases.count(static_cast<int>(i)) == 0;
  return b;
}

int NumHbmBuffers(const CallPlan& plan) {
  return static_cast<int>(plan.outputs.size() + plan.inputs.size() - plan.aliases.size());
}

CoreResult RunCore(const CallPlan& plan, const std::vector<Array>& prefetch,
                   const std::vector<Array>& inputs, const EmulatorOptions& options,
                   const std::function<void()>& tick, const CoreSpec& core) {
  Machine machine(plan, options, tick, core);
  return machine.Run(prefetch, inputs);
}

}  // namespace pz::tpu
