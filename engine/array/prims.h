// The array layer's primitives (prims.def): the lax-level steps every eager jax.numpy function
// is composed of. Each eager entry point that is a primitive (Unary, Binary, Reduce, DotGeneral,
// Reshape, ...) announces itself through `Primitive(...)`; while a PrimRecorder is installed on
// the thread, the outermost primitive calls are reported to it with their typed attributes,
// operands and results. That is how the kernel layer traces a jax.numpy function into IR
// instructions without re-implementing it, and `RunPrim` runs such an instruction again.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "array/array.h"
#include "array/elementwise.h"
#include "array/indexing.h"
#include "array/linalg.h"
#include "array/reduce.h"
#include "array/shape_ops.h"

namespace pz::array {

enum class Prim : uint8_t {
#define PZ_PRIM(name, jax, tpu, cost, doc) k##name,
#include "array/prims.def"
#undef PZ_PRIM
};
inline constexpr int kNumPrims = 0
#define PZ_PRIM(name, jax, tpu, cost, doc) +1
#include "array/prims.def"
#undef PZ_PRIM
    ;

// How a primitive's work is counted (prims.def).
enum class PrimCost : uint8_t { kElementwise, kTranscendental, kReduction, kDot, kMove };

// The name JAX gives the primitive ("reduce_max").
std::string_view PrimName(Prim prim);
// Whether Mosaic's TPU lowering accepts it.
bool PrimLowersOnTpu(Prim prim);
struct PrimCall;
// A call Mosaic's lowering rejects although it accepts the primitive: its error, in Mosaic's
// words, and what to do instead.
struct TpuLimit {
  std::string error;
  std::string hint;
};
// The limit `call` breaks (random draws of other than 32 bits), nullopt when none.
std::optional<TpuLimit> TpuLoweringLimit(const PrimCall& call);
PrimCost PrimCostKind(Prim prim);

// ---- Typed attributes -------------------------------------------------------------------------
struct NoAttrs {};
struct IntegerPowAttrs {
  int64_t y = 0;
};
struct ConvertAttrs {
  DType dtype = DType::kFloat32;
  bool weak = false;  // the result's weak type (JAX's weak_type parameter)
};
struct ReduceAttrs {
  std::optional<std::vector<int>> axes;  // nullopt: every axis (argmax: the flattened array)
  bool keepdims = false;
  std::optional<DType> dtype;  // accumulation and result dtype of reduce_sum / reduce_prod
};
struct AxisAttrs {
  std::optional<int> axis;  // nullopt: the flattened array
};
struct DotAttrs {
  DotDimensionNumbers dims;
  std::optional<DType> preferred_element_type;
  std::string fn_name;  // for messages ("jnp.dot")
};
struct ShapeAttrs {
  Shape shape;
};
struct AxesAttrs {
  std::optional<std::vector<int>> axes;  // nullopt: all (transpose: reversed; squeeze: size 1)
};
struct IndexAttrs {
  // Array indices (Gather) hold empty arrays here: their values are the operands after `x`.
  std::vector<Index> index;
  IndexMode mode = IndexMode::kStrict;  // out-of-bounds indices: JAX's reads clamp or fill
  double fill = 0;                      // kFill's value
};
struct IotaAttrs {
  DType dtype = DType::kInt32;
  Shape shape;
  int dimension = 0;
};
struct RandomAttrs {
  Shape shape;  // random_bits: the draw's shape; random_split: (num,)
  DType dtype = DType::kUInt32;
};
struct ScatterAttrs {
  std::vector<Index> index;  // as IndexAttrs: array indices are the operands after the values
  UpdateOp op = UpdateOp::kSet;
  IndexMode mode = IndexMode::kStrict;  // out-of-bounds indices: JAX's updates drop them
};
struct ConcatAttrs {
  int axis = 0;
};
struct SplitAttrs {
  int axis = 0;
  int64_t sections = 0;          // when `indices` is empty
  std::vector<int64_t> indices;  // split points
};
struct PadAttrs {
  PadWidth widths;
  double value = 0;
};
struct RollAttrs {
  std::vector<int64_t> shifts;
  std::optional<std::vector<int>> axes;
};
struct TileAttrs {
  std::vector<int64_t> reps;
};
struct RepeatAttrs {
  std::vector<int64_t> repeats;
  std::optional<int> axis;
  std::optional<int64_t> total_repeat_length;
};

using PrimAttrs =
    std::variant<NoAttrs, IntegerPowAttrs, ConvertAttrs, ReduceAttrs, AxisAttrs, DotAttrs,
                 ShapeAttrs, AxesAttrs, IndexAttrs, ScatterAttrs, ConcatAttrs, SplitAttrs, PadAttrs,
                 RollAttrs, TileAttrs, RepeatAttrs, IotaAttrs, RandomAttrs>;

// One primitive with its attributes: an IR instruction's computation.
struct PrimCall {
  Prim prim = Prim::kCopy;
  PrimAttrs attrs;
};

// The attributes as `--dump-ir` prints them ("axes=(1,) keepdims"); "" when there are none.
std::string AttrsToString(const PrimCall& call);

// Runs the primitive on `inputs` (as many as the primitive takes; a Gather's index arrays after
// `x`). Throws ArrayError as the eager function does.
std::vector<Array> RunPrim(const PrimCall& call, const std::vector<Array>& inputs);

// The primitive of a jax.numpy unary / binary op, and back.
Prim PrimOf(UnaryOp op);
Prim PrimOf(BinaryOp op);
Prim PrimOf(ReduceOp op);  // not kMean (a composition)
namespace detail {
constexpr UnaryOp kUnaryOps[] = {
    UnaryOp::kNeg,        UnaryOp::kPos,     UnaryOp::kAbs,       UnaryOp::kInvert,
    UnaryOp::kLogicalNot, UnaryOp::kExp,     UnaryOp::kExp2,      UnaryOp::kLog,
    UnaryOp::kLog1p,      UnaryOp::kExpm1,   UnaryOp::kSqrt,      UnaryOp::kRsqrt,
    UnaryOp::kTanh,       UnaryOp::kSin,     UnaryOp::kCos,       UnaryOp::kTan,
    UnaryOp::kErf,        UnaryOp::kSigmoid, UnaryOp::kSign,      UnaryOp::kFloor,
    UnaryOp::kCeil,       UnaryOp::kRound,   UnaryOp::kIsNan,     UnaryOp::kIsInf,
    UnaryOp::kIsFinite,   UnaryOp::kSquare,  UnaryOp::kReciprocal};
constexpr Prim kUnaryPrims[] = {Prim::kNeg,        Prim::kCopy,     Prim::kAbs,       Prim::kNot,
                                Prim::kLogicalNot, Prim::kExp,      Prim::kExp2,      Prim::kLog,
                                Prim::kLog1p,      Prim::kExpm1,    Prim::kSqrt,      Prim::kRsqrt,
                                Prim::kTanh,       Prim::kSin,      Prim::kCos,       Prim::kTan,
                                Prim::kErf,        Prim::kLogistic, Prim::kSign,      Prim::kFloor,
                                Prim::kCeil,       Prim::kRound,    Prim::kIsNan,     Prim::kIsInf,
                                Prim::kIsFinite,   Prim::kSquare,   Prim::kReciprocal};
static_assert(std::size(kUnaryOps) == std::size(kUnaryPrims));
static_assert(std::size(kUnaryOps) == static_cast<size_t>(UnaryOp::kReciprocal) + 1);

constexpr Prim kBinaryPrims[] = {Prim::kAdd,         Prim::kSub,
                                 Prim::kMul,         Prim::kDiv,
                                 Prim::kFloorDivide, Prim::kRemainder,
                                 Prim::kPow,         Prim::kMax,
                                 Prim::kMin,         Prim::kAnd,
                                 Prim::kOr,          Prim::kXor,
                                 Prim::kShiftLeft,   Prim::kShiftRightArithmetic,
                                 Prim::kEq,          Prim::kNe,
                                 Prim::kLt,          Prim::kLe,
                                 Prim::kGt,          Prim::kGe,
                                 Prim::kLogicalAnd,  Prim::kLogicalOr,
                                 Prim::kAtan2};
static_assert(std::size(kBinaryPrims) == static_cast<size_t>(BinaryOp::kAtan2) + 1);

struct ElementwiseTables {
  std::array<int8_t, kNumPrims> unary{};
  std::array<int8_t, kNumPrims> binary{};
  constexpr ElementwiseTables() {
    for (int8_t& v : unary) v = -1;
    for (int8_t& v : binary) v = -1;
    for (size_t i = 0; i < std::size(kUnaryPrims); ++i) {
      unary[static_cast<size_t>(kUnaryPrims[i])] = static_cast<int8_t>(kUnaryOps[i]);
    }
    for (size_t i = 0; i < std::size(kBinaryPrims); ++i) {
      binary[static_cast<size_t>(kBinaryPrims[i])] = static_cast<int8_t>(i);
    }
  }
};
constexpr ElementwiseTables kElementwise;
}  // namespace detail

// The elementwise op a unary or binary primitive runs (nullopt for other primitives): one table
// lookup, inline, since the executor asks on every instruction.
inline std::optional<UnaryOp> UnaryOpOf(Prim prim) {
  int8_t op = detail::kElementwise.unary[static_cast<size_t>(prim)];
  return op < 0 ? std::nullopt : std::optional<UnaryOp>(static_cast<UnaryOp>(op));
}
inline std::optional<BinaryOp> BinaryOpOf(Prim prim) {
  int8_t op = detail::kElementwise.binary[static_cast<size_t>(prim)];
  return op < 0 ? std::nullopt : std::optional<BinaryOp>(static_cast<BinaryOp>(op));
}

// ---- Recording --------------------------------------------------------------------------------

// Receives the outermost primitive calls made on this thread while installed.
class PrimRecorder {
 public:
  virtual ~PrimRecorder() = default;
  virtual void Record(PrimCall call, const std::vector<Array>& inputs,
                      const std::vector<Array>& outputs) = 0;
  // Whether the recorder follows `a` as a traced value (a differentiation does), so that
  // turning it into a Python number would lose what it depends on.
  virtual bool Follows(const Array& a) const {
    (void)a;
    return false;
  }
};

// Installs `recorder` on this thread for the scope's lifetime.
class ScopedPrimRecorder {
 public:
  explicit ScopedPrimRecorder(PrimRecorder* recorder);
  ~ScopedPrimRecorder();
  ScopedPrimRecorder(const ScopedPrimRecorder&) = delete;
  ScopedPrimRecorder& operator=(const ScopedPrimRecorder&) = delete;

 private:
  PrimRecorder* previous_;
  int previous_depth_;
};

namespace detail {
// This thread's recorder, and how deep inside recorded primitives it runs. Inline: every array
// op asks.
inline thread_local PrimRecorder* t_recorder = nullptr;
inline thread_local int t_depth = 0;
// The recorder that should hear about a primitive starting now: null when none is installed or
// when this call is nested inside another primitive.
inline PrimRecorder* ActiveRecorder() { return t_depth == 0 ? t_recorder : nullptr; }
// Marks the thread as inside a primitive for its lifetime.
class PrimDepth {
 public:
  PrimDepth() { ++t_depth; }
  ~PrimDepth() { --t_depth; }
  PrimDepth(const PrimDepth&) = delete;
  PrimDepth& operator=(const PrimDepth&) = delete;
};
inline std::vector<Array> AsVector(const Array& a) { return {a}; }
inline std::vector<Array> AsVector(const std::vector<Array>& a) { return a; }
}  // namespace detail

// A primitive entry point while a recorder listens (callers test Recording() first): runs
// `compute()` (an Array or a vector of them) with its inner steps unrecorded, then reports `call`
// with its operands `inputs` and the result.
template <typename Compute>
auto RecordPrimitive(PrimCall call, std::vector<Array> inputs, Compute&& compute)
    -> decltype(compute()) {
  PrimRecorder* recorder = detail::ActiveRecorder();
  auto result = [&] {
    detail::PrimDepth depth;
    return compute();
  }();
  recorder->Record(std::move(call), inputs, detail::AsVector(result));
  return result;
}

// Whether a recorder is listening: entry points then return through RecordPrimitive.
inline bool Recording() { return detail::ActiveRecorder() != nullptr; }

}  // namespace pz::array
