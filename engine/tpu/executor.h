// Runs kernel IR on concrete arrays: the body of a kernel once per grid step, an index map once
// per grid point. Refs are bound to buffers (block buffers in VMEM, SMEM, scratch) owned by the
// pipeline; loads copy out of them (a load of a whole buffer shares it until something writes
// the buffer while the value is still live), stores copy in. A per-element "initialised" shadow
// lets the executor notice reads of poisoned memory.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "array/array.h"
#include "array/fused_rows.h"
#include "array/reduce.h"
#include "kernel/backend.h"
#include "kernel/ir.h"
#include "support/diagnostic.h"
#include "support/source.h"
#include "tpu/options.h"
#include "tpu/probe.h"

namespace pz::array {
class CorePrng;
}  // namespace pz::array

namespace pz::tpu {

class BranchCounter;

// A failure found while running a kernel, at an instruction (or a BlockSpec): the backend
// interface's CallError, thrown as it is out of TpuBackend::Run.
using EmulationError = kernel::CallError;

// Memory a ref is bound to: a contiguous buffer of the ref's shape, and its shadow (one uint8
// per element, 1 = holds data the program put there) when tracking is on.
struct RefBuffer {
  array::Array data;         // contiguous, offset 0 (unless `borrowed`)
  array::Array initialized;  // kUInt8, same shape, contiguous; only when `tracked`
  bool tracked = false;
  // `data` is a strided view of an input's window in HBM instead of a copy of it: the pipeline
  // does this for a block wholly inside its array when the kernel only ever loads from the ref
  // and nothing writes that HBM array during the call, so the two cannot be told apart. Its
  // shadow is all set.
  bool borrowed = false;
  // The store or DMA that last wrote the buffer (empty before any), for `check`'s divergence
  // search.
  SourceSpan last_write;
  uint64_t writes = 0;  // stores and DMAs into the buffer so far (with `last_write`)
  // Scratch under the carry check (EmulatorOptions::carry_axes): its shadow marks with 2 what an
  // earlier point of those axes stored, and this is set while any such element may be left.
  bool stale = false;
};

// The first read of uninitialised memory seen during a pallas_call.
struct UninitializedRead {
  bool seen = false;
  SourceSpan span;
  std::string ref;
  std::vector<int64_t> grid_point;
};

// The first read, during a pallas_call, of scratch holding what an earlier point of the carry
// axes (EmulatorOptions::carry_axes) stored there, or (ref -1) the first draw from the core's
// generator in the state such a point left it in.
struct CarriedRead {
  bool seen = false;
  SourceSpan span;
  kernel::RefId ref = -1;
  std::vector<int64_t> grid_point;
};

// One DMA or semaphore operation, for the time-line of `--stats --timeline`.
struct DmaEvent {
  enum class Kind { kStart, kWait, kSignal, kSemaphoreWait };
  Kind kind = Kind::kStart;
  int64_t step = 0;            // linear grid step
  std::vector<int64_t> point;  // the grid step's indices
  SourceSpan span;             // the instruction
  int64_t amount = 0;          // bytes (DMAs) or the count added / waited for (semaphores)
  std::string what;            // "x_hbm -> buf on sem" or the semaphore's name
};

struct Counters {
  int64_t grid_steps = 0;
  int64_t hbm_bytes_read = 0;
  int64_t hbm_bytes_written = 0;
  int64_t flops = 0;            // of the primitives run (Instr::cost)
  int64_t mxu_flops = 0;        // the part of `flops` from products (the MXU's share)
  int64_t transcendentals = 0;  // exp, log, tanh, ... elements of the primitives run
  int64_t vmem_high_water = 0;
  // DMAs started by the kernel, and their bytes per (source, destination) memory space.
  int64_t dma_count = 0;
  std::map<std::pair<kernel::MemorySpace, kernel::MemorySpace>, int64_t> dma_bytes;
  // Bytes of the copies during whose flight (start to the wait that took them) the kernel loaded
  // or stored vector data: the copies that overlapped compute.
  int64_t dma_bytes_overlapped = 0;
  // Only with EmulatorOptions::timeline; at most kMaxTimelineEvents, then `timeline_dropped`.
  std::vector<DmaEvent> timeline;
  int64_t timeline_dropped = 0;
};
inline constexpr size_t kMaxTimelineEvents = 10000;

class DmaEngine;

// What the executor needs from the pipeline while running.
struct ExecContext {
  const std::vector<int64_t>* grid_point = nullptr;  // for ProgramId
  std::vector<RefBuffer*> refs;                      // per RefId of the function
  Semantics semantics = Semantics::kTpu;
  UninitializedRead* uninitialized = nullptr;  // null: not tracked
  CarriedRead* carried = nullptr;              // null: not tracked
  Counters* counters = nullptr;
  DmaEngine* dma = nullptr;  // DMAs and semaphores; null in index maps
  // Called once per loop iteration and grid step; may throw to stop a runaway kernel.
  std::function<void()> tick;
  // Held around every call back into the interpreter (jax.debug.print and `tick`) when several
  // cores run on threads: the interpreter is single-threaded. Null with one core. Primitives
  // never take it.
  std::mutex* callbacks = nullptr;
  // The core's random number generator (pltpu.prng_seed / prng_random_bits); null in index maps.
  array::CorePrng* prng = nullptr;
  // Under the carry check (`carried` set): the generator holds the state an earlier point of the
  // carry axes left; a draw before the next seed is a CarriedRead of no ref (-1).
  bool prng_carried = false;
  // Counts the branches `pl.when` / `lax.cond` take, when a step record is kept; else null.
  BranchCounter* branches = nullptr;
  // A failing program's re-run (probe.h): where NaN are born, comparisons tried flipped; else
  // null.
  Probe* probe = nullptr;
  // Fresh run_scoped buffers start as zeros, not poison (kernel::RunOptions::zero_uninitialized).
  bool zero_uninitialized = false;
  // A load past the end of a ref reads uninitialised values there (poison) instead of being an
  // error (InterpretParams(out_of_bounds_reads="uninitialized")): a TPU does not bounds-check.
  bool out_of_bounds_reads_uninitialized = false;
  // "(2, 0)" for messages.
  std::string GridPointString() const;
};

class Executor {
 public:
  Executor(const kernel::Function& function, ExecContext& context);
  // Runs the function with its params bound to `params`; returns its yields.
  std::vector<array::Array> Run(const std::vector<array::Array>& params);
  // Runs a function without params or yields (a kernel body), building no vectors.
  void RunBody();

 private:
  void RunRegion(const kernel::Region& region);
  void RunInstr(const kernel::Instr& instr);
  // A primitive: array::RunPrim on the operands' values, its cost added to the counters.
  void RunPrim(const kernel::Instr& instr);
  // Adds a primitive's cost to the counters (when kept).
  void Count(const kernel::Instr& instr);
  // RunPrim under a Probe: a flipped comparison computes its twin, and results are searched for
  // a NaN or infinity born there.
  void RunProbedPrim(const kernel::Instr& instr);
  void TraceNonFinite(const kernel::Instr& instr);
  // Under a Probe capturing this step: records what `instr` made (probe.h's CapturedValue).
  void Capture(const kernel::Instr& instr);
  void RunInstrUncaptured(const kernel::Instr& instr);
  // The memory an access reaches, as a box of the ref's buffer (the same box of its shadow),
  // without building views.
  struct Place {
    RefBuffer* buffer = nullptr;
    size_t rank = 0;
    int64_t offset = 0;                                   // elements into the buffer's storage
    std::array<int64_t, array::kMaxRank> shape, strides;  // the first `rank` entries
    bool whole = false;                                   // every element of the buffer, in order
  };
  // Checks dynamic indices against the bounds. A place that is `whole` leaves `shape` and
  // `strides` unset where the access names the whole ref by static indices: read it through its
  // buffer.
  Place Locate(const kernel::Instr& instr, const kernel::RefPath& path, bool is_write);
  // True when `path` is `ref[...]` or its like: one indexer of full static slices, the only
  // access Locate may find whole.
  bool StaticWhole(const kernel::RefPath& path) const;
  // Whether `indexer` reaches past `place` (out_of_bounds_reads="uninitialized" reads).
  bool OutOfBounds(const kernel::Indexer& indexer, const Place& place) const;
  // The window `indexer` selects from `place`, copied into a fresh buffer whose elements past
  // the end hold poison.
  Place UninitializedWindow(const kernel::Indexer& indexer, const Place& place);
  // The memory an access reaches as views of the ref's buffer and of its shadow.
  struct Window {
    array::Array data;
    array::Array initialized;  // only when `tracked`
    bool tracked = false;
    bool stale = false;  // RefBuffer::stale
  };
  Window Resolve(const kernel::Instr& instr, const kernel::RefPath& path, bool is_write);
  static array::Array DataView(const Place& place);
  // Records the first read of uninitialised memory (a load, or the source of a DMA), and the
  // first of what an earlier point of the carry axes left in scratch (CarriedRead).
  void NoteRead(const kernel::Instr& instr, kernel::RefId ref, const Window& window);
  void NoteRead(const kernel::Instr& instr, kernel::RefId ref, const Place& place);
  void NoteCarried(const kernel::Instr& instr, kernel::RefId ref);
  // Whether the place's box of its buffer's shadow holds a 2 (all of it for a whole place, which
  // has no box): what an earlier point of the carry axes stored.
  static bool HoldsStale(const Place& place);
  // `may_take`: RegionPlan::takes holds the load.
  void Load(const kernel::Instr& instr, bool may_take = false);
  void Store(const kernel::Instr& instr);
  // A store of a whole scratch buffer from a value nothing else holds and nothing reads after
  // it: the buffer takes the value's storage (and the dead value the buffer's old storage)
  // instead of copying. Not while a DMA is in flight (its ends hold views of buffers).
  bool SwapIntoScratch(const kernel::Instr& instr, const Place& place, array::Array& value);
  // Before `instr` writes `buffer` (every buffer a DMA may land in, when null): the values
  // still to be read after it that share the buffer's storage (loads of whole buffers, and what
  // was computed from them without copying) get copies of their own.
  void DetachViews(const kernel::Instr& instr, const RefBuffer* buffer);
  // Liveness, for DetachViews: instructions numbered in program order (pre-order, nested regions
  // inside their instruction); a value is live strictly between def_ and last_use_.
  void Number(const kernel::Region& region, int depth);
  void MarkUses(const kernel::Region& region, int depth, std::vector<int32_t>& outer);
  void Use(kernel::ValueId value, int depth, int32_t at, const std::vector<int32_t>& outer);
  // What RunRegion does beyond running each instruction, planned once per region:
  // - `x + dot_general(a, b)` as one accumulating product (array::DotGeneralAccumulate) where the
  //   product is read only by the add right after it: no zeroed result, no separate add. The
  //   values are those of the two instructions run one after the other; they run apart when
  //   DotGeneralAccumulate declines. An addend that is `scale * x` (a float32 (m, 1) column
  //   times x), made earlier in the body and read by nothing but the add, is made in the same
  //   pass: the product adds to each element of x scaled as it reads it (`alpha * acc + p @ v`).
  // - An elementwise op computed into the storage of an operand that dies there (its last use,
  //   of the result's type) when nothing else holds that storage: `exp(s - m)` then needs no
  //   buffers beyond `s`'s.
  // - A chain of float32 elementwise ops, each value but the last read only by the next op, as
  //   one pass over the result in pieces of rows (array::RunChain), with reductions of the
  //   result over its last axis later in the body computed along: `exp(s - m)` and its row sum
  //   read `s` once.
  // - A whole load of a scratch buffer whose contents nothing reads again before a whole store
  //   refills them, in straight-line code: the value takes the buffer's storage, so that ops
  //   consuming it may write in place (`acc_ref[...] = alpha * acc_ref[...] + dot(p, v)` then
  //   copies nothing), and the buffer holds spare storage meanwhile.
  // None under a Probe, which reads operands after their instruction ran.
  static constexpr size_t kNoMul = ~size_t{0};
  struct DotAdd {
    size_t dot = 0;            // index of the dot_general in its region's body; the add follows
    kernel::ValueId addend;    // the add's other operand
    bool addend_dies = false;  // the add is its last use
    bool declined = false;     // DotGeneralAccumulate declined once: run them apart from then on
    // The addend's mul when it is `scale * x` made in the same pass: its body index (kNoMul when
    // none), its operands and whether x dies there. RunRegion skips the mul, and runs it when
    // the product declines.
    size_t mul = kNoMul;
    kernel::ValueId scale = 0, x = 0;
    bool x_dies = false;
  };
  struct Chain {
    std::vector<size_t> ops;   // body indices, in order; only constants between them
    kernel::ValueId source;    // the operand of the first op the pass reads as its value
    bool source_dies = false;  // the first op is its last use: it may hold the result
    std::vector<size_t> taps;  // body indices of reductions of the last op's result
    bool declined = false;     // array::RunChain declined once: run the ops apart from then on
  };
  struct RegionPlan {
    std::vector<DotAdd> dot_adds;  // in body order
    std::vector<Chain> chains;     // in body order
    // Per body index: bit k set when operand k of an elementwise op may hold its result.
    std::vector<uint8_t> in_place;
    // Per body index: a reduction a chain has computed in this run of the region.
    std::vector<uint8_t> tapped;
    // Per body index: a load that may take its buffer's storage (empty when none may).
    std::vector<uint8_t> takes;
    // Per body index: a mul a DotAdd makes with its product (DotAdd::mul; empty when none).
    std::vector<uint8_t> deferred;
  };
  // Plans the loads of `plan` that may take their buffer's storage.
  void PlanTakes(const kernel::Region& region, RegionPlan& plan);
  // Such a load, when nothing but the buffer (and the slot's previous load of it) holds its
  // storage; false (nothing done) otherwise.
  bool TakeBuffer(const kernel::Instr& instr, const Place& place);
  void PlanRegion(const kernel::Region& region);
  // Finds the `scale * x` addend of `fused` (DotAdd::mul), if it has one.
  void PlanScaledAddend(const kernel::Region& region, DotAdd& fused);
  // Runs body[fused.dot] and the add after it (and the addend's deferred mul); false when they
  // must run apart (the deferred mul has then run, nothing else).
  bool RunDotAdd(const kernel::Region& region, RegionPlan& plan, DotAdd& fused);
  // The product and the add of `fused` (with the addend's mul when `scaled`) as one accumulating
  // product; false (nothing run) when DotGeneralAccumulate declines.
  bool RunAccumulatingProduct(const kernel::Region& region, DotAdd& fused, bool scaled);
  // The slot of float32 value `id`, holding storage of its shape that nothing else holds: its
  // previous storage when it may be overwritten, else new.
  array::Array& F32Slot(kernel::ValueId id);
  // The row reduction a float32 last-axis reduce_sum / max / min of `operand` runs, else nullopt.
  static std::optional<array::LastAxisReduction> LastAxisOf(const kernel::Instr& instr,
                                                            const kernel::ValueType& operand);
  // Such a reduction of a contiguous array, into its result's slot; false (nothing run) for any
  // other instruction.
  bool RunLastAxisReduction(const kernel::Instr& instr);
  // Plans the chains of `plan` (after its dot_adds, whose adds start none).
  void PlanChains(const kernel::Region& region, RegionPlan& plan);
  // Runs the ops of `chain` (and its taps); false (nothing run) when they must run apart.
  bool RunChain(const kernel::Region& region, RegionPlan& plan, Chain& chain);
  // Runs the elementwise `instr` into the storage of one of the `operands` (RegionPlan::in_place)
  // that nothing else holds; false (nothing run) when none qualifies.
  bool RunInPlace(const kernel::Instr& instr, uint8_t operands);
  // DMA and semaphore instructions (dma.cpp holds their semantics).
  void RunDmaInstr(const kernel::Instr& instr);
  // pltpu.prng_seed / prng_random_bits on the core's generator.
  void RunPrngInstr(const kernel::Instr& instr);
  [[noreturn]] void Fail(const kernel::Instr& instr, EmulationError::Kind kind, std::string message,
                         std::vector<std::string> notes = {});
  int64_t ScalarInt(kernel::ValueId id) const;

  const kernel::Function& function_;
  ExecContext& context_;
  std::vector<array::Array> env_;
  // Copies of windows that reach past a ref's end (out_of_bounds_reads="uninitialized"), alive
  // while the access that made them runs.
  std::deque<std::unique_ptr<RefBuffer>> out_of_bounds_windows_;
  std::unordered_map<const kernel::Instr*, int32_t> position_;  // program order
  std::vector<int32_t> end_;       // per position: the last position inside its instruction
  std::vector<int32_t> def_;       // per value: where it is set
  std::vector<int32_t> last_use_;  // per value: the last position that reads it
  std::vector<int> depth_;         // per value: how deeply its region nests
  std::vector<kernel::RefId> dma_destinations_;  // refs some DmaStart writes
  // Per region with anything planned (executor_plan.cpp).
  std::unordered_map<const kernel::Region*, RegionPlan> plans_;
  RegionPlan* body_plan_ = nullptr;          // the function body's, looked up once
  std::vector<array::ChainTap> chain_taps_;  // RunChain's, kept for their capacity
};

// A new array of `shape` filled with the poison of its dtype: NaN for floats, the minimum for
// integers, True for bool (what uninitialised TPU memory is modelled as); all zeros instead with
// `zeros` (kernel::RunOptions::zero_uninitialized).
array::Array Poison(const array::Shape& shape, array::DType dtype, bool zeros);
// A copy that shares nothing with `a`.
array::Array Copy(const array::Array& a);
// The multi-index of row-major position `flat` in an array of `dims` (a grid point from a
// linearised step, a block from a block number).
std::vector<int64_t> UnravelIndex(int64_t flat, const std::vector<int64_t>& dims);

// "(2, 0)" / "(3,)" as Python prints a tuple of ints (grid points, block indices, shapes).
std::string TupleString(const std::vector<int64_t>& values);

}  // namespace pz::tpu
