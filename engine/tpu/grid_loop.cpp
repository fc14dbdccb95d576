// The grid loop of one core (see core_machine.h): HBM copies and buffers, binding the kernel's
// refs, block indices from the index maps, the steps in row-major order, DMA landings.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "array/creation.h"
#include "array/random.h"
#include "support/check.h"
#include "tpu/core_machine.h"
#include "tpu/memory.h"

namespace pz::tpu {

using array::Array;

namespace {

// Marks in `written` every ref some instruction of `region` does more with than load from
// (stores, DMAs either way, run_scoped allocations).
void MarkWrittenRefs(const kernel::Region& region, std::vector<bool>& written) {
  for (const kernel::Instr& instr : region.body) {
    if (instr.op != kernel::Op::kLoad) {
      for (const kernel::RefPath* path : kernel::RefPathsOf(instr)) {
        written[static_cast<size_t>(path->ref)] = true;
      }
    }
    for (kernel::RefId ref : instr.scoped) written[static_cast<size_t>(ref)] = true;
    for (const kernel::Region& inner : instr.regions) MarkWrittenRefs(inner, written);
  }
}

}  // namespace

CoreMachine::CoreMachine(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                         const EmulatorOptions& options, const kernel::RunOptions& run,
                         const CoreSpec& core)
    : program_(program),
      mapping_(mapping),
      options_(options),
      run_(run),
      core_(core),
      trace_(core.trace) {
  const std::function<void()>& tick = run.tick;
  if (core.callbacks != nullptr && tick) {
    tick_ = [&tick, mutex = core.callbacks] {
      std::lock_guard<std::mutex> lock(*mutex);
      tick();
    };
  } else {
    tick_ = tick;
  }
}

CoreResult CoreMachine::Run(const kernel::CallOperands& operands) {
  const std::vector<Array>& prefetch = operands.prefetch;
  const std::vector<Array>& inputs = operands.inputs;
  interpret_ = options_.semantics == Semantics::kInterpret;
  const kernel::Function& kernel = *program_.kernel;
  // HBM arrays. An input is a private copy where the call can write it: a pl.ANY input (DMAs
  // may land in it) or any input in interpret semantics (every block is written back). A
  // pipelined input is only ever read, so it is shared as it is.
  hbm_inputs_.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    bool written = interpret_ || mapping_.inputs[i].space == kernel::MemorySpace::kAny;
    hbm_inputs_.push_back(written || !inputs[i].IsContiguous() ? Copy(inputs[i]) : inputs[i]);
  }
  for (size_t o = 0; o < mapping_.outputs.size(); ++o) {
    const BlockMapping& op = mapping_.outputs[o];
    auto alias = std::find_if(mapping_.aliases.begin(), mapping_.aliases.end(),
                              [&](const auto& entry) { return entry.second == (int)o; });
    result_.outputs.push_back(alias != mapping_.aliases.end()
                                  ? Copy(inputs[alias->first])
                                  : Poison(op.shape, op.dtype, run_.zero_uninitialized));
    int32_t start = alias != mapping_.aliases.end() ? kAliasedInput : kNeverWritten;
    result_.writer.push_back(array::Full(
        op.shape, {static_cast<double>(start), array::DType::kInt32}, array::DType::kInt32));
  }
  result_.dma_blocks.resize(mapping_.outputs.size());
  dma_uniform_.assign(mapping_.outputs.size(), true);
  if (core_.track_hbm) {
    access_.writes.resize(static_cast<size_t>(NumHbmBuffers(mapping_)));
    access_.reads.resize(access_.writes.size());
  }
  // Prefetch operands live in SMEM for the whole call.
  for (const Array& a : prefetch) {
    RefBuffer b{.data = Copy(a)};
    prefetch_.push_back(std::move(b));
  }
  original_prefetch_ = prefetch;
  // Per-operand buffers.
  for (const BlockMapping& op : mapping_.inputs) states_.push_back(MakeState(op));
  for (const BlockMapping& op : mapping_.outputs) states_.push_back(MakeState(op));
  // Inputs the kernel only loads from, whose HBM array nothing writes during the call, borrow
  // their whole blocks instead of copying them (RefBuffer::borrowed).
  std::vector<bool> written(kernel.refs.size(), false);
  MarkWrittenRefs(kernel.body, written);
  for (size_t i = 0; i < mapping_.inputs.size(); ++i) {
    // (Small blocks are cheaper to copy than to describe as a view.)
    int64_t bytes = array::NumElements(mapping_.inputs[i].ref_shape) *
                    static_cast<int64_t>(array::ItemSize(mapping_.inputs[i].dtype));
    states_[i].can_borrow = !interpret_ && bytes >= kBorrowMinBytes &&
                            mapping_.inputs[i].space == kernel::MemorySpace::kVmem &&
                            mapping_.aliases.count(static_cast<int>(i)) == 0 &&
                            !written[prefetch_.size() + i] && hbm_inputs_[i].IsContiguous();
  }
  for (const kernel::RefType& ref : kernel.refs) {
    if (ref.role != kernel::RefRole::kScratch && ref.role != kernel::RefRole::kScoped) continue;
    RefBuffer b{.data = Poison(ref.shape, ref.dtype, run_.zero_uninitialized)};
    Track(b);
    scratch_.push_back(std::move(b));
    carries_.push_back(ref.role == kernel::RefRole::kScratch &&
                       ref.space != kernel::MemorySpace::kSemaphore && scratch_.back().tracked);
  }
  int64_t vmem = 0;
  for (size_t k = 0; k < states_.size(); ++k) {
    const BlockMapping& op = OperandAt(k);
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
  array::CorePrng prng;  // the core's generator, for the whole call
  kctx.prng = &prng;
  kctx.grid_point = &point_;
  kctx.zero_uninitialized = run_.zero_uninitialized;
  kctx.out_of_bounds_reads_uninitialized = options_.out_of_bounds_reads_uninitialized;
  kctx.semantics = options_.semantics;
  kctx.uninitialized = options_.track_uninitialized ? &result_.uninitialized : nullptr;
  bool carry_check = options_.track_uninitialized && !options_.carry_axes.empty() && !interpret_ &&
                     (std::find(carries_.begin(), carries_.end(), true) != carries_.end() ||
                      kernel::FirstOfOp(kernel.body, kernel::Op::kPrngRandomBits) != nullptr);
  kctx.carried = carry_check ? &result_.carried : nullptr;
  // Whether a point of the carry axes resumes after others' steps: an axis outside them lies
  // outside one of them. Its own earlier stores are then its own again (MarkCarried).
  const std::vector<int>& axes = options_.carry_axes;
  carry_resumes_ = false;
  for (int a : axes) {
    for (int outer = 0; outer < a; ++outer) {
      carry_resumes_ = carry_resumes_ || (mapping_.grid[static_cast<size_t>(outer)] > 1 &&
                                          std::find(axes.begin(), axes.end(), outer) == axes.end());
    }
  }
  kctx.probe = options_.probe.get();
  kctx.counters = &result_.counters;
  kctx.tick = tick_;
  kctx.callbacks = core_.callbacks;
  for (RefBuffer& b : prefetch_) kctx.refs.push_back(&b);
  for (size_t k = 0; k < states_.size(); ++k) kctx.refs.push_back(&states_[k].buffer);
  for (RefBuffer& b : scratch_) kctx.refs.push_back(&b);
  PZ_CHECK(kctx.refs.size() == kernel.refs.size());
  DmaEngine dma(kernel, options_, run_.line_of, result_.counters);
  kctx.dma = &dma;
  kctx_ = &kctx;
  CallRecording* recording = core_.recording;
  BranchCounter branches;
  if (recording != nullptr) kctx.branches = &branches;
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
  for (size_t k = 0; k < states_.size(); ++k) indexers_.emplace_back(OperandAt(k), map_ctx_);

  // This core's share of the grid, in row-major order.
  const int64_t first = core_.first, total = core_.end;
  std::vector<std::vector<int64_t>> index(states_.size()), next_index(states_.size());
  // The grid points of this step and the next, advanced like an odometer (no allocation per
  // step).
  std::vector<int64_t> this_point = Unravel(first), next_point = this_point;
  int64_t grid_steps = 1;
  for (int64_t n : mapping_.grid) grid_steps *= n;
  if (first < total && (first > 0 || total < grid_steps)) {
    dma.SetCoreShare(fmt::format(
        "TensorCore {} runs grid steps {} to {} of this call, with semaphores and DMAs of its "
        "own: a chain of copies or signals from one step to the next breaks where the cores "
        "split the grid, as it would on a megacore chip (TPU v4, v5p)",
        core_.core, TupleString(this_point), TupleString(Unravel(total - 1))));
  }
  // InterpretParams(random_seed=...): each "parallel" axis visits its coordinates in a shuffled
  // order; the kernel and the index maps see the shuffled coordinate.
  std::vector<std::vector<int64_t>> order = ParallelOrder();
  auto visible = [&](const std::vector<int64_t>& odometer, std::vector<int64_t>& out) {
    out.assign(odometer.begin(), odometer.end());
    for (size_t d = 0; d < order.size(); ++d) {
      if (!order[d].empty()) out[d] = order[d][static_cast<size_t>(odometer[d])];
    }
  };
  std::vector<int64_t> next_visible, previous_point;
  if (first < total) {
    visible(this_point, point_);
    for (size_t k = 0; k < states_.size(); ++k) indexers_[k].At(point_, index[k]);
  }
  if (trace_) trace_->total_steps = total;
  for (int64_t t = first; t < total; ++t) {
    if (tick_) tick_();
    step_ = t;
    visible(this_point, point_);
    if (carry_check && t > first) MarkCarried(previous_point);
    if (carry_check) previous_point = point_;
    if (trace_ && t < kernel::BlockTrace::kMaxSteps) trace_->steps.push_back(index);
    if (recording != nullptr) {
      branches.SetStep(t);
      recording->blocks.push_back(index);
    }
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
        if (++next_point[d] < mapping_.grid[d]) break;
        next_point[d] = 0;
      }
      visible(next_point, next_visible);
      point_.swap(next_visible);
      for (size_t k = 0; k < states_.size(); ++k) indexers_[k].At(point_, next_index[k]);
      point_.swap(next_visible);
    }
    for (size_t k = 0; k < states_.size(); ++k) Enter(k, index[k], t);
    dma.SetStep(t, point_);
    executor.RunBody();
    dma.EndStep(pipelined);
    static const std::vector<int64_t> kNoNextStep;
    for (size_t k = 0; k < states_.size(); ++k) {
      bool last = t + 1 == total;
      Leave(k, index[k], last ? kNoNextStep : next_index[k], t);  // no copy of the next index
    }
    if (recording != nullptr) {
      Snapshot(t, index, t + 1 == total ? std::vector<std::vector<int64_t>>{} : next_index);
      recording->steps_run = t + 1;
    }
    std::swap(index, next_index);
    this_point.swap(next_point);
  }
  dma.Finish();
  if (recording != nullptr) recording->branches = branches.Take();
  kctx_ = nullptr;
  for (size_t o = 0; o < mapping_.outputs.size(); ++o) {
    if (!dma_uniform_[o]) result_.dma_blocks[o].clear();
  }
  return CoreResult{.result = std::move(result_), .access = std::move(access_)};
}

std::vector<std::vector<int64_t>> CoreMachine::ParallelOrder() const {
  std::vector<std::vector<int64_t>> order(mapping_.grid.size());
  if (!options_.parallel_order_seed || interpret_) return order;
  // As JAX's TPU interpret mode draws them: key(seed); for each "parallel" axis in turn, the
  // key splits into the next key and a subkey, and the axis visits jax.random.permutation(subkey,
  // n) of its coordinates.
  array::Array key = array::Key(static_cast<int64_t>(*options_.parallel_order_seed));
  for (size_t d = 0; d < order.size() && d < mapping_.dimension_semantics.size(); ++d) {
    if (mapping_.dimension_semantics[d] != "parallel") continue;
    array::Array keys = array::SplitKey(key, 2).Contiguous();
    const uint32_t* words = keys.data<uint32_t>();
    array::Array next = array::Array::Empty(array::DType::kUInt32, {2});
    array::Array subkey = array::Array::Empty(array::DType::kUInt32, {2});
    std::memcpy(next.raw(), words, 2 * sizeof(uint32_t));
    std::memcpy(subkey.raw(), words + 2, 2 * sizeof(uint32_t));
    key = next;
    array::Array perm = array::Permutation(subkey, mapping_.grid[d]).Contiguous();
    order[d].assign(perm.data<int32_t>(), perm.data<int32_t>() + perm.size());
  }
  return order;
}

void CoreMachine::Snapshot(int64_t t, const std::vector<std::vector<int64_t>>& index,
                           const std::vector<std::vector<int64_t>>& next) {
  CallRecording& recording = *core_.recording;
  StepRecorder& recorder = *core_.recorder;
  if (recording.truncated) return;
  if (seen_writes_.empty()) seen_writes_.assign(kctx_->refs.size(), 0);
  auto take = [&](kernel::RefId ref, const Array& data, std::vector<int64_t> block,
                  bool written_back) {
    int64_t bytes = data.size() * static_cast<int64_t>(array::ItemSize(data.dtype()));
    if (recorder.used_bytes + bytes > recorder.budget_bytes) {
      recording.truncated = true;
      return;
    }
    recorder.used_bytes += bytes;
    const RefBuffer& buffer = *kctx_->refs[static_cast<size_t>(ref)];
    uint64_t& seen = seen_writes_[static_cast<size_t>(ref)];
    recording.snapshots.push_back({.step = t,
                                   .ref = ref,
                                   .data = Copy(data),
                                   .last_write = buffer.last_write,
                                   .written = buffer.writes != seen,
                                   .block = std::move(block),
                                   .written_back = written_back});
    seen = buffer.writes;
  };
  const kernel::Function& kernel = *program_.kernel;
  // Scratch first: where both differ after a step, the scratch is the likelier cause.
  for (size_t r = 0; r < kernel.refs.size() && !recording.truncated; ++r) {
    const kernel::RefType& type = kernel.refs[r];
    if (type.role == kernel::RefRole::kScratch && type.space != kernel::MemorySpace::kSemaphore) {
      take(static_cast<kernel::RefId>(r), kctx_->refs[r]->data, {}, false);
    }
  }
  for (size_t k = mapping_.inputs.size(); k < states_.size() && !recording.truncated; ++k) {
    auto ref = static_cast<kernel::RefId>(prefetch_.size() + k);
    if (OperandAt(k).space == kernel::MemorySpace::kAny) {
      take(ref, Hbm(k), {}, false);
    } else {
      bool back = interpret_ || next.empty() || !array::SameDims(next[k], index[k]);
      take(ref, states_[k].buffer.data, index[k], back);
    }
  }
}

void CoreMachine::Track(RefBuffer& b) {
  if (!options_.track_uninitialized) return;
  b.tracked = true;
  b.initialized = array::Zeros(b.data.shape(), array::DType::kUInt8);
}

void CoreMachine::MarkCarried(const std::vector<int64_t>& previous) {
  const std::vector<int>& axes = options_.carry_axes;
  if (std::none_of(axes.begin(), axes.end(), [&](int a) { return point_[a] != previous[a]; })) {
    return;
  }
  // A point's own id: its place, row-major, among the points of the carry axes.
  auto id_of = [&](const std::vector<int64_t>& point) {
    int64_t id = 0;
    for (int a : axes) id = id * mapping_.grid[static_cast<size_t>(a)] + point[a];
    return static_cast<int32_t>(id);
  };
  const bool resumes = carry_resumes_;  // owners_ tells whose the stores are
  int32_t was = id_of(previous);
  int32_t now = id_of(point_);
  if (resumes && owners_.empty()) owners_.resize(scratch_.size());
  for (size_t i = 0; i < scratch_.size(); ++i) {
    if (!carries_[i]) continue;
    RefBuffer& b = scratch_[i];
    uint8_t* begin = b.initialized.data<uint8_t>();
    uint8_t* end = begin + b.initialized.size();
    if (!resumes) {
      if (std::find(begin, end, uint8_t{1}) == end) continue;  // nothing stored since the mark
      std::replace(begin, end, uint8_t{1}, uint8_t{2});
      b.stale = true;
      continue;
    }
    std::vector<int32_t>& owner = owners_[i];
    if (owner.empty()) owner.assign(static_cast<size_t>(end - begin), -1);
    bool stale = false;
    for (size_t e = 0; e < owner.size(); ++e) {
      if (begin[e] == 1) {
        begin[e] = 2;
        owner[e] = was;
      } else if (begin[e] == 2 && owner[e] == now) {
        begin[e] = 1;  // the point's own store, before other points' steps ran
      }
      stale = stale || begin[e] == 2;
    }
    b.stale = stale;
  }
  if (kctx_ != nullptr && kctx_->prng != nullptr && kctx_->prng->seeded())
    kctx_->prng_carried = true;
}

Array& CoreMachine::AccessArray(std::vector<Array>& arrays, int b, const array::Shape& shape) {
  Array& a = arrays[static_cast<size_t>(b)];
  if (a.SharesStorageWith(Array())) {  // not allocated yet
    a = array::Full(shape, {-1.0, array::DType::kInt32}, array::DType::kInt32);
  }
  return a;
}

int CoreMachine::AnyOperandOf(kernel::RefId ref) const {
  int64_t k = static_cast<int64_t>(ref) - static_cast<int64_t>(prefetch_.size());
  if (k < 0 || k >= static_cast<int64_t>(states_.size())) return -1;
  return OperandAt(static_cast<size_t>(k)).space == kernel::MemorySpace::kAny ? int(k) : -1;
}

void CoreMachine::Landed(const DmaEndpoint& src, const DmaEndpoint& dst, int64_t step,
                         SourceSpan span) {
  if (kctx_ != nullptr && dst.ref >= 0) {
    RefBuffer& written = *kctx_->refs[static_cast<size_t>(dst.ref)];
    written.last_write = span;
    ++written.writes;
  }
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
    const BlockMapping& op = OperandAt(static_cast<size_t>(dst_k));
    size_t rank = dst.region.rank;
    box(dst.region, lo, extent);
    if (IsOutput(static_cast<size_t>(dst_k))) {
      size_t o = static_cast<size_t>(dst_k) - mapping_.inputs.size();
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
      size_t index = out ? static_cast<size_t>(dst_k) - mapping_.inputs.size() : size_t(dst_k);
      StampBox(AccessArray(access_.writes, HbmBufferOf(mapping_, out, index), op.shape), lo, extent,
               rank, stamp);
    }
  }
  if (src_k >= 0 && core_.track_hbm && !src.region.empty) {
    const BlockMapping& op = OperandAt(static_cast<size_t>(src_k));
    bool out = IsOutput(static_cast<size_t>(src_k));
    size_t index = out ? static_cast<size_t>(src_k) - mapping_.inputs.size() : size_t(src_k);
    box(src.region, lo, extent);
    StampBox(AccessArray(access_.reads, HbmBufferOf(mapping_, out, index), op.shape), lo, extent,
             src.region.rank, stamp);
  }
}

int HbmBufferOf(const kernel::GridMapping& mapping, bool is_output, size_t index) {
  if (is_output) return static_cast<int>(index);
  if (auto alias = mapping.aliases.find(static_cast<int>(index)); alias != mapping.aliases.end()) {
    return alias->second;
  }
  int b = static_cast<int>(mapping.outputs.size());
  for (size_t i = 0; i < index; ++i) b += mapping.aliases.count(static_cast<int>(i)) == 0;
  return b;
}

int NumHbmBuffers(const kernel::GridMapping& mapping) {
  return static_cast<int>(mapping.outputs.size() + mapping.inputs.size() - mapping.aliases.size());
}

CoreResult RunCore(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                   const kernel::CallOperands& operands, const EmulatorOptions& options,
                   const kernel::RunOptions& run, const CoreSpec& core) {
  CoreMachine machine(program, mapping, options, run, core);
  return machine.Run(operands);
}

}  // namespace pz::tpu
