// The kernel IR: what tracing a Pallas kernel body (or a BlockSpec index map) produces and the
// tpu executor runs once per grid step. A Function is a tree of Regions holding flat lists of
// Instrs; every value has a static type (shape, dtype, weak flag) and one defining instruction
// (or is a region parameter), and every instruction carries the user's source span so that
// errors found while running point at the line that caused them. Regions may use values of
// the regions enclosing them. The instruction set is ops.def.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "array/array.h"
#include "array/prims.h"
#include "support/source.h"

namespace pz::kernel {

enum class Op : uint8_t {
#define PZ_OP(name, doc) k##name,
#include "kernel/ops.def"
#undef PZ_OP
};
// The op's name as `--dump-ir` prints it: a primitive's JAX name ("reduce_max"), else the
// ops.def name ("Load").
std::string_view OpName(Op op);

// Primitives come first in ops.def, numbered as array::Prim.
inline bool IsPrim(Op op) { return static_cast<int>(op) < array::kNumPrims; }
inline array::Prim PrimOf(Op op) { return static_cast<array::Prim>(op); }
inline Op OpOf(array::Prim prim) { return static_cast<Op>(prim); }

using ValueId = int32_t;
using RefId = int32_t;
inline constexpr ValueId kNoValue = -1;

struct ValueType {
  array::Shape shape;
  array::DType dtype = array::DType::kFloat32;
  bool weak = false;
  friend bool operator==(const ValueType&, const ValueType&) = default;
};
// "f32[8,128]" (weak types get a trailing "~").
std::string TypeToString(const ValueType& type);

enum class MemorySpace : uint8_t { kVmem, kSmem, kAny, kSemaphore };
std::string_view MemorySpaceName(MemorySpace space);

// The kind of a semaphore ref (`pltpu.SemaphoreType`): DMA semaphores count bytes and are waited
// through copy descriptors; regular (and barrier) ones through pl.semaphore_wait.
enum class SemaphoreKind : uint8_t { kRegular, kDma, kBarrier };
std::string_view SemaphoreKindName(SemaphoreKind kind);

// What a ref of the kernel (or of an index map) stands for. kScoped: a buffer of pl.run_scoped,
// fresh each time its scope is entered.
enum class RefRole : uint8_t { kPrefetch, kInput, kOutput, kScratch, kScoped };

struct RefType {
  std::string name;  // the kernel parameter's name ("x_ref"), for diagnostics
  array::Shape shape;
  array::DType dtype = array::DType::kFloat32;
  MemorySpace space = MemorySpace::kVmem;
  RefRole role = RefRole::kInput;
  int operand = 0;                                    // index among the refs of its role
  SemaphoreKind semaphore = SemaphoreKind::kRegular;  // space == kSemaphore only
  SourceSpan spec;  // inputs and outputs: the pl.BlockSpec that shaped the block (may be invalid)
};

// One dimension of a ref index: an integer (removes the dimension) or a strided window of
// `size` elements. The start is static or a traced int32 scalar.
struct DimIndex {
  bool is_int = false;
  int64_t start = 0;
  ValueId dynamic_start = kNoValue;
  int64_t size = 1;
  int64_t stride = 1;
};

// A full index of a ref (or of a view of it): one DimIndex per dimension.
using Indexer = std::vector<DimIndex>;

// A ref as the kernel names it: the base ref, then the indexers of `.at[...]` views and of the
// access itself, each applying to the shape the previous one produced.
struct RefPath {
  RefId ref = -1;
  std::vector<Indexer> indexers;
};

// Runs a DebugPrint instruction with its operands' values: the one callback into the
// interpreter (may throw the evaluator's PyError).
using CallbackFn = std::function<void(const std::vector<array::Array>&)>;

// What one execution of an instruction costs, from its static types (prims.def's cost kinds):
// flops (2 per multiply-add of a product, 1 per element otherwise), transcendentals (exp, log,
// tanh, ...: 1 per element) and the bytes its operands and results occupy.
struct Cost {
  int64_t flops = 0;
  int64_t mxu_flops = 0;  // the part of `flops` a TPU runs on its matrix unit (dot_general)
  int64_t transcendentals = 0;
  int64_t bytes = 0;
};

struct Instr;

struct Region {
  std::vector<ValueId> params;
  std::vector<Instr> body;
  std::vector<ValueId> yields;
};

struct Instr {
  Op op = Op::kConstant;
  std::vector<ValueId> results;
  std::vector<ValueId> operands;
  array::PrimCall prim;       // primitives (IsPrim(op)): the computation and its attributes
  Cost cost;                  // primitives
  int axis = 0;               // ProgramId
  int64_t unroll = 1;         // For
  bool add = false;           // DmaStart: DMA add (accumulate into the destination)
  int64_t bytes = 0;          // DmaWait: the bytes the wait takes from its semaphore
  bool decrement = true;      // SemaphoreWait
  std::vector<RefId> scoped;  // RunScoped: the refs with fresh buffers
  std::string text;           // DebugPrint: the format
  RefPath ref;                // Load, Store; the semaphore of DMA and semaphore ops
  std::vector<RefPath> copy;  // DmaStart, DmaWait: {source, destination}
  // DmaStart of a remote copy (pltpu.make_async_remote_copy): the send semaphore (ref -1 for a
  // local copy); `ref` is then the receive semaphore.
  RefPath send_sem;
  // DmaStart and SemaphoreSignal aimed at a device (device_id=): how many trailing operands
  // hold its id (mesh coordinates, or one logical id); 0 for this device.
  int device_operands = 0;
  std::shared_ptr<const array::Array> constant;  // Constant
  std::shared_ptr<const CallbackFn> callback;    // DebugPrint
  std::vector<Region> regions;
  SourceSpan span;
};

struct Function {
  std::string name;
  std::vector<ValueType> values;  // type of every value id
  std::vector<RefType> refs;
  Region body;  // params: the function's scalar arguments (index maps: the grid indices)
};

// The value ids an indexer reads (its dynamic starts), in order.
std::vector<ValueId> DynamicOperands(const RefPath& path);
// The ref paths an instruction reaches: `ref` (when set), then `copy`, then `send_sem` (when
// set).
std::vector<const RefPath*> RefPathsOf(const Instr& instr);
// The first instruction of `region` (nested regions included, in program order) that writes
// `ref`: a store into it or a DMA into it; null when none does.
const Instr* FirstWriteTo(const Region& region, RefId ref);
// The first instruction of `region` (nested regions included, in program order) of op `op`;
// null when none is.
const Instr* FirstOfOp(const Region& region, Op op);
// The first instruction of `region` (nested regions included) that reads `ref`: a load from it
// or a DMA out of it; null when none does.
const Instr* FirstReadOf(const Region& region, RefId ref);
// Whether a dimension index covers a dimension of `size` whole, statically: the slice from 0 with
// step 1 (any step for a dimension of size 1), or the integer 0 of a size-1 dimension.
bool CoversDimension(const DimIndex& index, int64_t size);
// Whether `path` reaches all of its ref (no views, every dimension covered whole).
bool CoversRef(const Function& function, const RefPath& path);
// The shape of a ref after applying `indexers` to `shape` (int dims removed).
array::Shape IndexedShape(array::Shape shape, const std::vector<Indexer>& indexers);

// The cost of one execution of a primitive with these operand and result types.
Cost PrimCostOf(const array::PrimCall& call, const std::vector<ValueType>& operands,
                const std::vector<ValueType>& results);
// The result types of a primitive applied to operands of these types, as running it gives them;
// nullopt when an operand is too large to run a stand-in of (only products are computed from
// their dimension numbers instead). Throws array::ArrayError for operands it rejects.
std::optional<std::vector<ValueType>> InferPrimTypes(const array::PrimCall& call,
                                                     const std::vector<ValueType>& operands);

// How far Verify goes into primitives. kStructure checks each primitive's op, operands and cost;
// kTypes also runs it on stand-ins of its operand types and checks its attributes and result
// types against what it computes. That repeats work the trace has just done (it recorded the
// results of running the primitive), so traced programs get it only under test.
enum class VerifyDepth { kStructure, kTypes };

// Checks the structural invariants (every operand defined before use in an enclosing scope,
// types of region params/yields/results agree, ref paths well formed, every primitive's
// operands and cost, and at kTypes its result types). Returns the first problem found, or
// nullopt. A failure is an engine bug, not a user error.
std::optional<std::string> Verify(const Function& function,
                                  VerifyDepth depth = VerifyDepth::kTypes);

// The depth traced kernels and index maps are verified at: kTypes when the environment sets
// PZ_CHECK_IR_TYPES=1 (the test suites and the kernel fuzzer do), else kStructure.
VerifyDepth TracedVerifyDepth();

// Human-readable listing, as `pallas-puzzles run --dump-ir` prints it; `line_of` maps a span to
// "file:line" for the trailing location comments (may be null).
std::string Print(const Function& function,
                  const std::function<std::string(SourceSpan)>& line_of = nullptr);

}  // namespace pz::kernel
