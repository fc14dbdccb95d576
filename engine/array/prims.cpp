// The primitive table (names, TPU lowering, cost), attribute printing, RunPrim's dispatch to the
// eager entry points, and the thread's recorder.
#include "array/prims.h"

#include <fmt/format.h>

#include <array>

#include "array/creation.h"
#include "array/lax_ops.h"
#include "array/random.h"
#include "array/sort.h"

namespace pz::array {

namespace {

struct PrimInfo {
  std::string_view name;
  bool tpu;
  PrimCost cost;
};

constexpr PrimInfo kPrims[] = {
#define PZ_PRIM(name, jax, tpu, cost, doc) {jax, tpu, PrimCost::cost},
#include "array/prims.def"
#undef PZ_PRIM
};

std::string Ints(const std::vector<int>& values) {
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + (values.size() == 1 ? ",)" : ")");
}

std::string Ints(const std::vector<int64_t>& values) {
  std::vector<int> narrow(values.begin(), values.end());
  return Ints(narrow);
}

std::string IndexToString(const std::vector<Index>& index) {
  std::string s = "[";
  for (size_t i = 0; i < index.size(); ++i) {
    const Index& ix = index[i];
    s += i ? ", " : "";
    switch (ix.kind) {
      case Index::Kind::kInt:
        s += std::to_string(ix.value);
        break;
      case Index::Kind::kSlice:
        s += fmt::format("{}:{}", ix.start ? std::to_string(*ix.start) : "",
                         ix.stop ? std::to_string(*ix.stop) : "");
        if (ix.step) s += fmt::format(":{}", *ix.step);
        break;
      case Index::Kind::kNewAxis:
        s += "None";
        break;
      case Index::Kind::kEllipsis:
        s += "...";
        break;
      case Index::Kind::kArray:
        s += "<array>";
        break;
    }
  }
  return s + "]";
}

struct AttrsPrinter {
  std::string operator()(const NoAttrs&) const { return ""; }
  std::string operator()(const IntegerPowAttrs& a) const { return fmt::format("y={}", a.y); }
  std::string operator()(const ConvertAttrs& a) const {
    return fmt::format("{}{}", DTypeName(a.dtype), a.weak ? " weak" : "");
  }
  std::string operator()(const ReduceAttrs& a) const {
    std::string s = a.axes ? "axes=" + Ints(*a.axes) : "axes=all";
    if (a.keepdims) s += " keepdims";
    if (a.dtype) s += fmt::format(" dtype={}", DTypeName(*a.dtype));
    return s;
  }
  std::string operator()(const AxisAttrs& a) const {
    return a.axis ? fmt::format("axis={}", *a.axis) : "axis=None";
  }
  std::string operator()(const DotAttrs& a) const {
    std::string s =
        fmt::format("contract={}x{}", Ints(a.dims.lhs_contracting), Ints(a.dims.rhs_contracting));
    if (!a.dims.lhs_batch.empty()) {
      s += fmt::format(" batch={}x{}", Ints(a.dims.lhs_batch), Ints(a.dims.rhs_batch));
    }
    if (a.preferred_element_type) {
      s += fmt::format(" preferred={}", DTypeName(*a.preferred_element_type));
    }
    return s;
  }
  std::string operator()(const ShapeAttrs& a) const { return "shape=" + ShapeToString(a.shape); }
  std::string operator()(const AxesAttrs& a) const {
    return a.axes ? "axes=" + Ints(*a.axes) : "axes=all";
  }
  std::string operator()(const IndexAttrs& a) const { return IndexToString(a.index); }
  std::string operator()(const ScatterAttrs& a) const {
    static constexpr const char* kOps[] = {"set", "add", "multiply", "min", "max"};
    return fmt::format("{} {}", IndexToString(a.index), kOps[static_cast<int>(a.op)]);
  }
  std::string operator()(const ConcatAttrs& a) const { return fmt::format("axis={}", a.axis); }
  std::string operator()(const SplitAttrs& a) const {
    return a.indices.empty() ? fmt::format("axis={} sections={}", a.axis, a.sections)
                             : fmt::format("axis={} at={}", a.axis, Ints(a.indices));
  }
  std::string operator()(const PadAttrs& a) const {
    std::string s = "widths=(";
    for (size_t i = 0; i < a.widths.size(); ++i) {
      s += fmt::format("{}({}, {})", i ? ", " : "", a.widths[i].first, a.widths[i].second);
    }
    return s + fmt::format(") value={}", a.value);
  }
  std::string operator()(const RollAttrs& a) const {
    return fmt::format("shifts={} {}", Ints(a.shifts), a.axes ? "axes=" + Ints(*a.axes) : "flat");
  }
  std::string operator()(const TileAttrs& a) const { return "reps=" + Ints(a.reps); }
  std::string operator()(const IotaAttrs& a) const {
    return fmt::format("{} shape={} dimension={}", DTypeName(a.dtype), ShapeToString(a.shape),
                       a.dimension);
  }
  std::string operator()(const RandomAttrs& a) const {
    return fmt::format("{}{}", DTypeName(a.dtype), ShapeToString(a.shape));
  }
  std::string operator()(const RepeatAttrs& a) const {
    std::string s = "repeats=" + Ints(a.repeats);
    s += a.axis ? fmt::format(" axis={}", *a.axis) : " flat";
    if (a.total_repeat_length) s += fmt::format(" total={}", *a.total_repeat_length);
    return s;
  }
};

// A recorded index with its integer-array indices put back from the operands, from `first` on.
std::vector<Index> WithIndexArrays(std::vector<Index> index, const std::vector<Array>& in,
                                   size_t first) {
  for (Index& ix : index) {
    if (ix.kind == Index::Kind::kArray) ix.array = in.at(first++);
  }
  return index;
}

// The reductions that are primitives, with their primitives (jnp.mean is a composition).
constexpr std::pair<ReduceOp, Prim> kReductions[] = {
    {ReduceOp::kSum, Prim::kReduceSum}, {ReduceOp::kProd, Prim::kReduceProd},
    {ReduceOp::kMax, Prim::kReduceMax}, {ReduceOp::kMin, Prim::kReduceMin},
    {ReduceOp::kAny, Prim::kReduceOr},  {ReduceOp::kAll, Prim::kReduceAnd},
    {ReduceOp::kArgMax, Prim::kArgmax}, {ReduceOp::kArgMin, Prim::kArgmin}};

ReduceOp ReduceOpOf(Prim prim) {
  for (auto [op, p] : kReductions) {
    if (p == prim) return op;
  }
  ThrowValueError(fmt::format("{} is not a reduction", PrimName(prim)));
}

}  // namespace

std::string_view PrimName(Prim prim) { return kPrims[static_cast<int>(prim)].name; }
bool PrimLowersOnTpu(Prim prim) { return kPrims[static_cast<int>(prim)].tpu; }
PrimCost PrimCostKind(Prim prim) { return kPrims[static_cast<int>(prim)].cost; }

std::optional<TpuLimit> TpuLoweringLimit(const PrimCall& call) {
  DType dtype;
  switch (call.prim) {
    case Prim::kRandomBits:
      dtype = std::get<RandomAttrs>(call.attrs).dtype;
      break;
    case Prim::kRandomUniform:
    case Prim::kRandomNormal:
      dtype = std::get<ConvertAttrs>(call.attrs).dtype;
      break;
    default:
      return std::nullopt;
  }
  if (ItemSize(dtype) == 4) return std::nullopt;
  return TpuLimit{
      .error = "Only 32-bit PRNG supported.",
      .hint =
          "a TPU draws random bits in 32-bit words: sample float32 or uint32 and convert the "
          "result; JAX's interpret mode (interpret=True) and `--semantics interpret` accept "
          "narrower draws"};
}

std::string AttrsToString(const PrimCall& call) { return std::visit(AttrsPrinter{}, call.attrs); }

Prim PrimOf(UnaryOp op) { return detail::kUnaryPrims[static_cast<int>(op)]; }
Prim PrimOf(BinaryOp op) { return detail::kBinaryPrims[static_cast<int>(op)]; }
Prim PrimOf(ReduceOp op) {
  for (auto [o, prim] : kReductions) {
    if (o == op) return prim;
  }
  ThrowValueError("mean is not a primitive");
}

std::vector<Array> RunPrim(const PrimCall& call, const std::vector<Array>& in) {
  auto one = [](Array a) { return std::vector<Array>{std::move(a)}; };
  if (call.prim == Prim::kIota) {  // the one primitive without operands
    const auto& a = std::get<IotaAttrs>(call.attrs);
    return one(BroadcastedIota(a.dtype, a.shape, a.dimension));
  }
  const Array& x = in.at(0);
  if (std::optional<UnaryOp> op = UnaryOpOf(call.prim)) return one(Unary(*op, x));
  if (std::optional<BinaryOp> op = BinaryOpOf(call.prim)) return one(Binary(*op, x, in.at(1)));
  switch (call.prim) {
    case Prim::kIntegerPow:
      return one(IntegerPow(x, std::get<IntegerPowAttrs>(call.attrs).y));
    case Prim::kConvertElementType: {
      const auto& a = std::get<ConvertAttrs>(call.attrs);
      Array out = x.AsType(a.dtype);
      out.set_weak_type(a.weak);
      return one(std::move(out));
    }
    case Prim::kSelectN:
      return one(Where(x, in.at(2), in.at(1)));
    case Prim::kClamp:
      return one(Clamp(x, in.at(1), in.at(2)));
    case Prim::kBitcastConvertType:
      return one(BitcastConvertType(x, std::get<ConvertAttrs>(call.attrs).dtype));
    case Prim::kShiftRightLogical:
      // jnp.right_shift on unsigned integers promotes its operands; lax's spelling needs one
      // dtype.
      return one(IsUnsigned(x.dtype()) ? Binary(BinaryOp::kRShift, x, in.at(1))
                                       : ShiftRightLogical(x, in.at(1)));
    case Prim::kDynamicSlice:
      return one(DynamicSlice(x, std::vector<Array>(in.begin() + 1, in.end()),
                              std::get<ShapeAttrs>(call.attrs).shape));
    case Prim::kScatter: {
      const auto& a = std::get<ScatterAttrs>(call.attrs);
      return one(UpdateIndexed(x, WithIndexArrays(a.index, in, 2), in.at(1), a.op, a.mode));
    }
    case Prim::kReduceSum:
    case Prim::kReduceProd:
    case Prim::kReduceMax:
    case Prim::kReduceMin:
    case Prim::kReduceOr:
    case Prim::kReduceAnd:
    case Prim::kArgmax:
    case Prim::kArgmin: {
      const auto& a = std::get<ReduceAttrs>(call.attrs);
      return one(Reduce(ReduceOpOf(call.prim), x, a.axes, a.keepdims, a.dtype));
    }
    case Prim::kCumsum:
      return one(CumSum(x, std::get<AxisAttrs>(call.attrs).axis));
    case Prim::kSort:
      return one(Sort(x, std::get<AxisAttrs>(call.attrs).axis));
    case Prim::kArgsort:
      return one(ArgSort(x, std::get<AxisAttrs>(call.attrs).axis));
    case Prim::kDotGeneral: {
      const auto& a = std::get<DotAttrs>(call.attrs);
      return one(DotGeneral(x, in.at(1), a.dims, a.preferred_element_type, a.fn_name));
    }
    case Prim::kReshape:
      return one(Reshape(x, std::get<ShapeAttrs>(call.attrs).shape));
    case Prim::kTranspose:
      return one(Transpose(x, std::get<AxesAttrs>(call.attrs).axes));
    case Prim::kBroadcastInDim:
      return one(BroadcastTo(x, std::get<ShapeAttrs>(call.attrs).shape));
    case Prim::kSqueeze:
      return one(Squeeze(x, std::get<AxesAttrs>(call.attrs).axes));
    case Prim::kExpandDims:
      return one(ExpandDims(x, *std::get<AxesAttrs>(call.attrs).axes));
    case Prim::kRev:
      return one(Flip(x, std::get<AxesAttrs>(call.attrs).axes));
    case Prim::kSlice:
    case Prim::kGather: {
      const auto& a = std::get<IndexAttrs>(call.attrs);
      return one(GetIndexed(x, WithIndexArrays(a.index, in, 1), a.mode, a.fill));
    }
    case Prim::kConcatenate:
      return one(Concatenate(in, std::get<ConcatAttrs>(call.attrs).axis));
    case Prim::kSplit: {
      const auto& a = std::get<SplitAttrs>(call.attrs);
      return a.indices.empty() ? Split(x, a.sections, a.axis) : Split(x, a.indices, a.axis);
    }
    case Prim::kPad: {
      const auto& a = std::get<PadAttrs>(call.attrs);
      return one(Pad(x, a.widths, a.value));
    }
    case Prim::kRoll: {
      const auto& a = std::get<RollAttrs>(call.attrs);
      return one(Roll(x, a.shifts, a.axes));
    }
    case Prim::kTile:
      return one(Tile(x, std::get<TileAttrs>(call.attrs).reps));
    case Prim::kRepeat: {
      const auto& a = std::get<RepeatAttrs>(call.attrs);
      return one(Repeat(x, a.repeats, a.axis, a.total_repeat_length));
    }
    case Prim::kRandomSeed:
      return one(KeyFromSeed(x));
    case Prim::kRandomFoldIn:
      return one(FoldIn(x, in.at(1)));
    case Prim::kRandomSplit:
      return one(SplitKey(x, std::get<RandomAttrs>(call.attrs).shape.at(0)));
    case Prim::kRandomBits: {
      const auto& a = std::get<RandomAttrs>(call.attrs);
      return one(Bits(x, a.shape, a.dtype));
    }
    case Prim::kRandomUniform:
      return one(UniformFromBits(x, std::get<ConvertAttrs>(call.attrs).dtype, in.at(1), in.at(2)));
    case Prim::kRandomNormal:
      return one(NormalFromBits(x, std::get<ConvertAttrs>(call.attrs).dtype));
    case Prim::kRandomShuffle:
      return one(ShuffleRows(x, in.at(1)));
    case Prim::kRandomRandint:
      return one(RandIntFromBits(x, in.at(1), in.at(2), in.at(3),
                                 std::get<ConvertAttrs>(call.attrs).dtype));
    default:
      break;
  }
  ThrowValueError(fmt::format("primitive {} cannot run", PrimName(call.prim)));
}

ScopedPrimRecorder::ScopedPrimRecorder(PrimRecorder* recorder)
    : previous_(detail::t_recorder), previous_depth_(detail::t_depth) {
  detail::t_recorder = recorder;
  detail::t_depth = 0;
}

ScopedPrimRecorder::~ScopedPrimRecorder() {
  detail::t_recorder = previous_;
  detail::t_depth = previous_depth_;
}

}  // namespace pz::array
