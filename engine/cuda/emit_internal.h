// The pieces of the CUDA emitter (emit.h) shared by its files: dtypes as C types and
// expressions, index arithmetic, the writer, and the Emitter itself (emit.cpp: the kernel's
// frame, memory and control flow; emit_prims.cpp: the primitives).
#pragma once

#include <fmt/format.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "array/prims.h"
#include "cuda/emit.h"

namespace pz::cuda::detail {

using array::DType;
using array::Prim;
using array::Shape;
using kernel::Instr;
using kernel::Op;
using kernel::ValueId;

// ---- dtypes as C types -----------------------------------------------------------------------

bool IsFloat(DType d);
bool IsUnsignedInt(DType d);
bool IsSignedInt(DType d);
int Bits(DType d);

// The type an element is stored as in memory.
std::string StorageType(DType d);

// The type a value is computed in (16-bit floats as float, rounded to their precision).
std::string RegType(DType d);

// Memory -> register.
std::string LoadExpr(DType d, const std::string& lvalue);

// Register -> memory.
std::string StoreExpr(DType d, const std::string& value);

// A register value wrapped into dtype d's range (integers) or rounded to its precision.
std::string Normalize(DType d, const std::string& x);

int64_t MinOf(DType d);
int64_t MaxOf(DType d);

std::string IntLit(int64_t v);

std::string FloatLit(float f);

// A register literal of dtype d holding `v` (already representable).
std::string Literal(DType d, double v);

// A register value of dtype `from` as dtype `to` (convert_element_type).
std::string Cast(DType from, DType to, const std::string& x);

// The poison uninitialised block memory holds (tpu semantics): NaN, the minimum, True.
std::string PoisonStorage(DType d);

Shape Strides(const Shape& shape);

int64_t Count(const Shape& shape);

// The header of a loop over `count` elements, one per thread, strided over the block: 32-bit
// indices when they fit.
inline std::string ElementLoop(int64_t count) {
  return fmt::format("for ({} pz_i = threadIdx.x; pz_i < {}; pz_i += blockDim.x)",
                     count < (int64_t{1} << 30) ? "int" : "long long", count);
}

// ---- a writer with indentation ---------------------------------------------------------------

class Writer {
 public:
  void Line(const std::string& s) {
    text_.append(static_cast<size_t>(indent_) * 2, ' ');
    text_ += s;
    text_ += '\n';
  }
  void Open(const std::string& s) {
    Line(s);
    ++indent_;
  }
  void Close(const std::string& s = "}") {
    --indent_;
    Line(s);
  }
  // Closes a block and opens the next on one line ("} else {").
  void Reopen(const std::string& s) {
    --indent_;
    Line(s);
    ++indent_;
  }
  std::string& text() { return text_; }

 private:
  std::string text_;
  int indent_ = 0;
};

// The coordinates of linear index `i` in `shape` as declarations `c<prefix><d>` (size-1

// dimensions are 0 and get none); returns the names ("0" for those).
std::vector<std::string> Unravel(Writer& w, const Shape& shape, const std::string& i,
                                 const std::string& prefix);

// base + Σ coordinate * stride, skipping zero terms.
std::string Affine(const std::string& base, const std::vector<std::string>& coords,
                   const std::vector<int64_t>& strides);

// `base` + the offset of element `i` (a linear index into `shape`) at `strides`: `base + i` when
// the strides are the shape's row-major ones (size-1 dimensions aside), else the coordinates,
// declared as by Unravel, under their strides.
std::string ElementOffset(Writer& w, const std::string& base, const Shape& shape,
                          const std::vector<int64_t>& strides, const std::string& i);

// Broadcast strides of an operand of `shape` inside a result of `out` (numpy alignment).
std::vector<int64_t> BroadcastStrides(const Shape& shape, const Shape& out);

// ---- the emitter -----------------------------------------------------------------------------

// The emitter each primitive goes to (emit_prims.cpp).
enum class Family { kUnary, kBinary, kReduction, kDot, kMove, kRandom, kNotYet };
Family FamilyOf(Prim prim);

struct Slot {
  int64_t offset = 0;
  int64_t bytes = 0;
  bool is_ref = false;
};

// A view of memory: element (c_0, ..., c_n) is at base[offset + Σ c_d * strides_d].
struct Access {
  kernel::RefId ref = -1;
  std::string base;
  DType dtype = DType::kFloat32;
  bool semaphore = false;
  Shape shape;
  std::vector<int64_t> strides;
  std::string offset;
};

class Emitter {
 public:
  explicit Emitter(const EmitRequest& request)
      : req_(request), f_(*request.kernel), mapping_(*request.mapping) {}

  EmittedKernel Run();

 private:
  const kernel::ValueType& TypeOf(ValueId v) const { return f_.values[static_cast<size_t>(v)]; }
  bool IsScalar(ValueId v) const { return TypeOf(v).shape.empty(); }
  std::string Name(ValueId v) const { return fmt::format("v{}", v); }
  // The register value of element `index` of `v` (a scalar ignores the index).
  std::string Elem(ValueId v, const std::string& index) const {
    if (IsScalar(v)) return Name(v);
    if (fused_ != nullptr) {
      // A value of the fused loop is a register of the current element.
      auto reg = fused_->registers.find(v);
      if (reg != fused_->registers.end()) return reg->second;
    }
    return LoadExpr(TypeOf(v).dtype, Name(v) + "[" + index + "]");
  }
  int Number(const Instr& instr) const { return numbers_.at(&instr); }
  // What a fresh buffer of dtype `d` starts as: the poison, or zeros (EmitRequest).
  std::string Fresh(DType d) const { return req_.zero_uninitialized ? "0" : PoisonStorage(d); }
  [[noreturn]] void Fail(const Instr& instr, const std::string& what,
                         const std::string& hint = "") const {
    throw Unmappable(what, instr.span, hint);
  }

  // Fusion: consecutive elementwise instructions over one shape (loads, stores, elementwise
  // primitives, uniform constants) run as one loop over the elements, their values in registers;
  // a value is also written to its arena slot only when something outside the loop reads it.
  struct FusedLoop {
    size_t first = 0, end = 0;  // the region's instructions [first, end) in its order
    Shape shape;
    std::vector<const Instr*> members;  // in the loop, in order
    std::vector<const Instr*> hoisted;  // scalar work between members, run before the loop
    std::vector<const Instr*> unused;   // members whose values nothing reads: not emitted
    bool in_product = false;            // run as a product's epilogue (epilogue_)
  };
  struct Fused {
    std::map<ValueId, std::string> registers;  // values made in the loop so far
    std::map<const Instr*, Access> accesses;   // loads and stores, resolved before the loop
  };
  // The shape of the fused loop `instr` can join when the loop's values so far are `made`;
  // nullopt when it can join none.
  std::optional<Shape> FusedShape(const Instr& instr, const std::set<ValueId>& made) const;
  // A scalar instruction without effects that may run before a fused loop it sits in.
  bool Hoistable(const Instr& instr, const std::set<ValueId>& made,
                 const std::set<kernel::RefId>& stored) const;
  // The order `region`'s instructions are emitted in (array loads moved down to their first
  // reader where nothing writes their ref on the way).
  std::vector<const Instr*> Schedule(const kernel::Region& region) const;
  // Orders `region` and those nested in it and finds their fused loops (orders_, loops_,
  // register_only_).
  void PlanRegion(const kernel::Region& region);
  void EmitFused(const FusedLoop& loop);
  // Before a fused loop (or a product's epilogue): its hoisted scalar work, its accesses
  // resolved (their bounds checks), and a barrier when it stores.
  Fused PrepareFused(const FusedLoop& loop);
  void CountUses(const kernel::Region& region);
  // Reads of the element at window offset `offset` of a ref access, as a register value, and
  // the statement writing register value `value` there; direct windows go to HBM.
  std::string RefRead(const Access& a, const std::string& offset) const {
    return LoadExpr(a.dtype, RefRaw(a, offset));
  }
  // The stored element itself (its storage type).
  std::string RefRaw(const Access& a, const std::string& offset) const;
  std::string RefWrite(const Access& a, const std::string& offset, const std::string& value) const;
  // Pipelined operand refs read and written in HBM, without a window buffer (when the windows do
  // not fit in shared memory and nothing but loads and stores reaches them).
  bool DirectSafe(kernel::RefId r) const;
  // The device functions reading and writing element `pz_off` of a pipelined operand's window
  // in HBM (into tables_): the block fetches and write-backs use them, and a direct window's
  // loads and stores.
  void EmitWindowAccessors(kernel::RefId r, const EmittedKernel& out);
  // A block's shape with its squeezed dimensions as 1 (the layout of its buffer).
  static Shape WindowShape(const kernel::BlockMapping& op);

  // Layout.
  void NumberRegion(const kernel::Region& region);
  void CollectRegion(const kernel::Region& region);
  int64_t AddSlot(int64_t bytes, bool is_ref);
  // Emission.
  void EmitRegion(const kernel::Region& region);
  void EmitInstr(const Instr& instr);
  void EmitPrim(const Instr& instr);
  void Sync() { w_.Line("__syncthreads();"); }
  // Writes each element of `out` (loop over its elements, or all threads alike for a scalar):
  // `body` returns the register value of element `pz_i` (given the writer for declarations).
  template <typename Body>
  void ForEachElement(ValueId out, Body&& body);
  void EmitElementwise(const Instr& instr);
  std::string UnaryExpr(const Instr& instr, Prim prim, DType d, const std::string& x);
  std::string BinaryExpr(const Instr& instr, Prim prim, DType d, const std::string& a,
                         const std::string& b);
  // Reductions (emit_moves.cpp). Each result element's partials are folded by one thread, by a
  // group of 2 to 32 lanes of a warp (their partials merged by warp shuffles), or by the whole
  // block (each warp's merged partial through shared memory, then merged by the first warp);
  // ReduceShape picks the form from the counts of result elements and of elements each reduces.
  void EmitReduce(const Instr& instr);
  struct ReduceShape {
    bool block = false;  // the whole block per result element
    int64_t group = 1;   // else the lanes per result element (1: one thread alone)
  };
  static ReduceShape ShapeReduce(int64_t results, int64_t reduced, int64_t threads);
  // The block form's partials: 2 x 33 of up to 16 bytes (its offset expression), or empty when
  // no reduction of the kernel can take the block form.
  std::string reduce_at_;
  static constexpr int64_t kReducePartialBytes = 2 * 33 * 16;
  unsigned threads_ = 0;  // the block's threads (EmittedKernel::threads)
  void EmitDot(const Instr& instr);
  // A product as (batch,) M x K times K x N, with the operands' strides.
  struct MatrixProduct {
    int64_t batches = 1, m = 0, n = 0, k = 0;
    int64_t lb = 0, lm = 0, lk = 0;  // lhs strides: batch, row, contracted
    int64_t rb = 0, rk = 0, rn = 0;  // rhs strides: batch, contracted, column
    ValueId lhs = 0, rhs = 0;
    // Operands whose load is folded into the product: read from the ref (the strides are then
    // the access's).
    const Access* lhs_access = nullptr;
    const Access* rhs_access = nullptr;
  };
  // The product in that form, with the operands' strides `lst` and `rst`; nullopt if it has none.
  std::optional<MatrixProduct> MatrixForm(const Instr& instr, const Shape& lst,
                                          const Shape& rst) const;
  // Whether a product stages its operands (16-bit floats in tiles of 128 x 128 x 32, float32
  // in tiles of 128 x 128 x 16): the loads of its operands then fold into it (PlanRegion).
  bool StagesOperands(const Instr& instr) const;
  // Whether a product multiplies float32 operands into a float result.
  bool FloatProduct(const Instr& instr) const;
  // Whether a product's dtypes suit tensor cores: 16-bit float operands, a float result.
  bool TensorCoreTypes(const Instr& instr) const;
  // The stored element `index` of operand `side` (0: lhs) of a product.
  std::string Operand(const MatrixProduct& p, int side, const std::string& index) const;
  // The tensor-core form of a 16-bit float product, under `#if PZ_SM80` (prelude.h), followed
  // by `#else` (the caller writes the other form and `#endif`); false when it has none.
  bool EmitTensorCoreDot(const Instr& instr, const MatrixProduct& p);
  // The tensor-core form with tiles of both operands staged in shared memory: the block
  // computes the result 128 x 128 at a time, each of its 16 warps a 32 x 32 tile, and walks k
  // 32 at a time through two buffers per operand, the next chunk's copies in flight while the
  // current one is multiplied; false when the product's shape does not allow it or there is no
  // staging area.
  bool EmitStagedTensorCoreDot(const Instr& instr, const MatrixProduct& p);
  // Its warp's lane and 32 x 32 tile of the block's 128 x 128 (pz_warp, pz_lane, pz_wm, pz_wn),
  // which the resident accumulators' flush shares.
  void EmitWarpTile();
  // What a staged product's loops (EmitStagedLoops) hold: the accumulators (declared) for each
  // 128 x 128 tile of the result; the copies of a chunk of k (its number, an expression) into
  // its buffers; the multiplication of a staged chunk (read through pz_ta and pz_tb, pointers of
  // `element_pointer` type, buffers `buffer_elements` apart); the tile's results.
  struct StagedForm {
    std::function<void()> accumulators;
    std::string element_pointer;
    int64_t buffer_elements = 0;
    std::function<void(const std::string& chunk)> stage;
    std::function<void()> multiply;
    std::function<void()> results;
  };
  // The loops of a staged product: its tiles of 128 x 128 (pz_b, pz_m0, pz_n0; the operands'
  // offsets pz_lo, pz_ro), and in each the `chunks` chunks of k, the next one's copies in flight
  // while the current one is multiplied.
  void EmitStagedLoops(const MatrixProduct& p, int64_t chunks, const StagedForm& form);
  // How a staged operand tile is laid out: its 128 rows (lhs) or columns (rhs) by 32 of k with k
  // contiguous, or transposed (32 of k by 128, the other dimension contiguous): whichever the
  // operand's own contiguous dimension is, so that 8 neighbouring elements move as one 16-byte
  // copy. Rows are padded to 40 or 136 elements (80 or 272 bytes, an odd number of 16-byte
  // units), so that the eight rows ldmatrix reads at once fall in distinct banks.
  // Where shared memory has room (kWideStagingBytes), chunks are 64 of k (rows of 72 elements,
  // 144 bytes): half the barriers per product.
  static constexpr int64_t kStageK = 32;
  static constexpr int64_t kStageRowK = 40;    // a tile with k contiguous
  static constexpr int64_t kStageRowMN = 136;  // a tile with its other dimension contiguous
  static constexpr int64_t kStageBuffer = 128 * kStageRowK * 2;  // bytes; the larger layout
  static constexpr int64_t kStagingBytes = 4 * kStageBuffer;     // two buffers per operand
  static constexpr int64_t kWideStageK = 64;
  static constexpr int64_t kWideStagingBytes = 4 * 128 * (kWideStageK + 8) * 2;
  int64_t stage_k_ = kStageK;  // this kernel's chunk of k (16-bit products)
  int64_t StageRowK() const { return stage_k_ + 8; }
  int64_t StageBuffer() const { return std::max(128 * StageRowK(), stage_k_ * kStageRowMN) * 2; }
  // The copies of one chunk of k (`k0`) of operand `side` into buffer `buffer` of the staging
  // area: each thread one run of 8 elements, a 16-byte asynchronous copy where the run is
  // contiguous and aligned in global memory, else element by element.
  void EmitStageChunk(const MatrixProduct& p, int side, bool k_contiguous,
                      const std::string& buffer, const std::string& k0);
  // Copies the run of `elements` elements of operand `side` from element `pz_at` on (`step`
  // apart) to `pz_dst` (both declared by the caller): one asynchronous copy where the run is
  // contiguous and aligned in global memory (RunPointer), else element by element.
  // `fast`: addressed from the window's origin (EmitFastOrigins), which is not null there.
  void EmitRunCopy(const MatrixProduct& p, int side, int elements, int64_t step, bool fast);
  // Emits `copies(true)` under `if (pz_fa != nullptr)` (pz_fb for the rhs), `copies(false)`
  // after `else`, where operand `side` has a fast origin for copies of `bytes`; else only
  // `copies(false)`.
  void EmitFastOrSlow(int side, int64_t bytes, const std::function<void(bool)>& copies);
  // A pointer to the run of `elements` elements of operand `side` from element `index` on,
  // contiguous and aligned to the run's size in global memory, or null at run time; empty where
  // it can never be.
  std::string RunPointer(const MatrixProduct& p, int side, const std::string& index,
                         int elements) const;
  // Before a staged product's loops: for each operand (`elements[side]` elements a copy) that is
  // a direct window whose every run of that many elements would be aligned to its size wherever
  // the window's origin is, declares the origin (pz_fa, pz_fb: null unless the whole window lies
  // inside the array and its origin is so aligned), so that the copies address their runs from
  // it (EmitRunCopy) instead of checking each run against the array; ClearFastOrigins after the
  // loops.
  void EmitFastOrigins(const MatrixProduct& p, std::array<int, 2> elements);
  void ClearFastOrigins() { fast_bytes_ = {0, 0}; }
  std::array<int64_t, 2> fast_bytes_ = {0, 0};  // per side: the copies pz_f{a,b} serve, or 0
  // A float32 product with tiles of both operands staged in shared memory, on a GPU (sm_80 and
  // later): the block computes the result 128 x 128 at a time, each of its 512 threads a 4 x 8
  // tile, and walks k 16 at a time through two buffers per operand, filled by asynchronous
  // copies. Written as `#if ... if (blockDim.x == 512) {...} else #endif`, so that the
  // register-tiled form follows as the other branch; false (nothing written) when the product
  // does not allow it or there is no staging area.
  bool EmitStagedFloatDot(const Instr& instr, const MatrixProduct& p);
  // Its staging: tiles of kFloatStageK rows of k by 128, rows padded to 132 floats (528 bytes:
  // rows stay 16-byte aligned).
  static constexpr int64_t kFloatStageK = 16;
  static constexpr int64_t kFloatStageRow = 132;
  static_assert(4 * kFloatStageK * kFloatStageRow * 4 <= kStagingBytes);
  // The copies of chunk `k0` of float32 operand `side` into `buffer`: 16-byte copies where the
  // tile's 128 are contiguous in global memory, else one 4-byte copy per element.
  void EmitFloatStageChunk(const MatrixProduct& p, int side, const std::string& buffer,
                           const std::string& k0);
  // The elements of each copy of float32 operand `side` there: 4 where the tile's 128 are
  // contiguous in global memory and can be copied 16 bytes at a time, else 1.
  int FloatRunElements(const MatrixProduct& p, int side) const;
  int64_t staging_at_ = -1;  // its offset in shared memory, or -1
  // Resident accumulators (emit_resident.cpp): a staged tensor-core product of the kernel's body
  // whose epilogue is `acc = acc + product` on a whole float32 scratch ref of one 128 x 128 tile
  // keeps the ref's contents in its accumulators (pz_racc) across grid steps while pz_resident;
  // anything else reaching the ref flushes them back first (EmitResidentFlush), as does the end
  // of a chain.
  const Instr* resident_dot_ = nullptr;
  kernel::RefId resident_ref_ = -1;
  // Finds the product (after the staging area is placed).
  void PlanResident();
  // Whether `instr` itself (not its regions) reads or writes the resident ref.
  bool TouchesResident(const Instr& instr) const;
  void EmitResidentDeclarations();
  void EmitResidentFlush();
  // The product's accumulators: the resident registers, loaded from the ref when not resident.
  void EmitResidentAccumulators();
  // `statement` for each accumulator (u, v, q) of a warp; ResidentElement is its ref element
  // (pz_wm, pz_wn, pz_gid and pz_tig in scope).
  void EmitResidentLoop(const std::string& statement);
  std::string ResidentElement() const;
  // The m16n8k16 products of a warp's mt x nt tiles (fragments pz_af, pz_bf; accumulators pz_d).
  void EmitMmaTiles(const std::string& type, int mt, int nt);
  // The accumulators of a warp's tiles, whose first row and column are `row0` and `col0`, as
  // the product's result.
  void EmitMmaResults(const Instr& instr, const MatrixProduct& p, int mt, int nt,
                      const std::string& row0, const std::string& col0);
  // Element (row, col) of the current batch (`pz_b`) of a product's result, register value
  // `value`: stored, or handed to the product's epilogue.
  void EmitDotResult(const Instr& instr, const MatrixProduct& p, const std::string& row,
                     const std::string& col, const std::string& value);
  // The product with each thread a small tile of the result, in registers.
  void EmitTiledDot(const Instr& instr, const MatrixProduct& p);
  void EmitMove(const Instr& instr);
  // Random numbers (emit_random.cpp): jax.random's primitives, and the core generator's seeds
  // and draws, whose state (pz_prng_*) every thread keeps alike and each chain starts unseeded.
  void EmitRandom(const Instr& instr);
  void EmitPrng(const Instr& instr);
  // A print (jax.debug.print): thread 0 copies its operands into a record of the log, which the
  // host replays in grid order after the launch (cuda_backend.cpp).
  void EmitPrint(const Instr& instr);
  void EmitGatherMap(ValueId out, ValueId in, const array::Array& map);
  void EmitConstant(const Instr& instr);
  void EmitLoad(const Instr& instr);
  void EmitStore(const Instr& instr);
  void EmitDma(const Instr& instr);
  void EmitSemaphore(const Instr& instr);
  void EmitLoop(const Instr& instr);
  void EmitCond(const Instr& instr);
  void AssignCarries(const std::vector<ValueId>& targets, const std::vector<ValueId>& sources,
                     const std::vector<int64_t>& slots);
  void CopyValue(const std::string& dst_pointer, ValueId src);
  Access Resolve(const Instr& instr, const kernel::RefPath& path);
  void CopyBetween(const Access& src, const Access& dst, bool add);
  std::string Fault(const Instr& instr, DeviceFault fault, const std::vector<std::string>& detail);
  // Records `instr` and the step as the last to raise the semaphore element `sem` reaches.
  std::string NoteRaise(const Instr& instr, const Access& sem) const {
    int64_t n = std::max<int64_t>(Count(f_.refs.at(static_cast<size_t>(sem_ref_)).shape), 1);
    return fmt::format("{0}[{1} + {2}] = {3}; {0}[{4} + {2}] = pz_step;", sem.base, n, sem.offset,
                       Number(instr), 2 * n);
  }
  kernel::RefId sem_ref_ = -1;  // the semaphore ref Resolve last resolved

  const EmitRequest& req_;
  const kernel::Function& f_;
  const kernel::GridMapping& mapping_;
  Writer w_;
  Writer tables_;
  std::map<const Instr*, int> numbers_;
  std::vector<const Instr*> instrs_;
  std::vector<Slot> slots_;
  std::vector<int64_t> value_slot_;                           // per value: slot index or -1
  std::vector<int64_t> ref_slot_;                             // per ref: slot index or -1
  std::map<const Instr*, std::vector<int64_t>> carry_slots_;  // loops: per array carry
  std::map<const Instr*, std::vector<int64_t>> temp_slots_;   // loops: staging for swaps
  std::vector<std::string> coords_;                           // the current element's coordinates
  Fused* fused_ = nullptr;                                    // the fused loop being emitted
  std::map<const kernel::Region*, std::vector<const Instr*>> orders_;  // per region
  std::map<const kernel::Region*, std::vector<FusedLoop>> loops_;      // per region, in order
  std::vector<bool> register_only_;  // per value: made and read only inside one fused loop
  // Products whose result the fused loop right after them reads alone: that loop runs inside
  // the product, on each element of the result as it is made (an "epilogue").
  std::map<const Instr*, const FusedLoop*> epilogue_;
  Fused* epilogue_state_ = nullptr;  // the epilogue of the product being emitted
  // Products whose operand loads are folded into them (lhs, rhs; null where not).
  std::map<const Instr*, std::array<const Instr*, 2>> folded_;
  std::vector<int> uses_;               // per value: its readers, counted
  std::vector<bool> direct_;            // per ref: a direct window
  std::vector<bool> ref_shared_;        // per ref: its buffer is in shared memory
  std::vector<std::string> window_at_;  // per pipelined ref: its accessors' name prefix
};

template <typename Body>
void Emitter::ForEachElement(ValueId out, Body&& body) {
  const kernel::ValueType& t = TypeOf(out);
  if (fused_ != nullptr && !t.shape.empty()) {
    // Inside a fused loop: the element becomes a register, in a scope of its own for the
    // declarations `body` makes.
    std::string reg = fmt::format("e{}", out);
    w_.Line(fmt::format("{} {};", RegType(t.dtype), reg));
    w_.Open("{");
    std::string value = body(w_);
    w_.Line(fmt::format("{} = {};", reg, value));
    w_.Close();
    if (!register_only_[static_cast<size_t>(out)]) {
      w_.Line(fmt::format("{}[pz_i] = {};", Name(out), StoreExpr(t.dtype, reg)));
    }
    fused_->registers[out] = reg;
    return;
  }
  if (t.shape.empty()) {
    w_.Open("{");
    std::string value = body(w_);
    w_.Line(fmt::format("{} = {};", Name(out), value));
    w_.Close();
    return;
  }
  w_.Open(ElementLoop(Count(t.shape)) + " {");
  std::string value = body(w_);
  w_.Line(fmt::format("{}[pz_i] = {};", Name(out), StoreExpr(t.dtype, value)));
  w_.Close();
  Sync();
}

}  // namespace pz::cuda::detail
