// The CUDA emitter's primitives (see emit.h): the family of each, and the elementwise ops as
// strided loops over the result's elements; emit_moves.cpp has the reductions, constants and data
// movement, emit_dot.cpp the products.
#include <fmt/format.h>

#include <optional>
#include <variant>

#include "cuda/emit_internal.h"
#include "support/check.h"

namespace pz::cuda::detail {

// ---- primitives -------------------------------------------------------------------------------

// Every primitive of prims.def is listed (no default): a new one does not compile (-Wswitch)
// until it is given a family here.
Family FamilyOf(Prim prim) {
  switch (prim) {
    case Prim::kNeg:
    case Prim::kCopy:
    case Prim::kAbs:
    case Prim::kNot:
    case Prim::kLogicalNot:
    case Prim::kExp:
    case Prim::kExp2:
    case Prim::kLog:
    case Prim::kLog1p:
    case Prim::kExpm1:
    case Prim::kSqrt:
    case Prim::kRsqrt:
    case Prim::kTanh:
    case Prim::kSin:
    case Prim::kCos:
    case Prim::kTan:
    case Prim::kErf:
    case Prim::kLogistic:
    case Prim::kSign:
    case Prim::kFloor:
    case Prim::kCeil:
    case Prim::kRound:
    case Prim::kIsNan:
    case Prim::kIsInf:
    case Prim::kIsFinite:
    case Prim::kSquare:
    case Prim::kReciprocal:
    case Prim::kIntegerPow:
    case Prim::kConvertElementType:
    case Prim::kBitcastConvertType:
      return Family::kUnary;
    case Prim::kAdd:
    case Prim::kSub:
    case Prim::kMul:
    case Prim::kDiv:
    case Prim::kFloorDivide:
    case Prim::kRemainder:
    case Prim::kPow:
    case Prim::kMax:
    case Prim::kMin:
    case Prim::kAnd:
    case Prim::kOr:
    case Prim::kXor:
    case Prim::kShiftLeft:
    case Prim::kShiftRightArithmetic:
    case Prim::kShiftRightLogical:
    case Prim::kEq:
    case Prim::kNe:
    case Prim::kLt:
    case Prim::kLe:
    case Prim::kGt:
    case Prim::kGe:
    case Prim::kLogicalAnd:
    case Prim::kLogicalOr:
    case Prim::kAtan2:
    case Prim::kSelectN:
    case Prim::kClamp:
      return Family::kBinary;
    case Prim::kReduceSum:
    case Prim::kReduceProd:
    case Prim::kReduceMax:
    case Prim::kReduceMin:
    case Prim::kReduceOr:
    case Prim::kReduceAnd:
    case Prim::kArgmax:
    case Prim::kArgmin:
      return Family::kReduction;
    case Prim::kDotGeneral:
      return Family::kDot;
    case Prim::kReshape:
    case Prim::kTranspose:
    case Prim::kBroadcastInDim:
    case Prim::kSqueeze:
    case Prim::kExpandDims:
    case Prim::kRev:
    case Prim::kSlice:
    case Prim::kDynamicSlice:
    case Prim::kConcatenate:
    case Prim::kSplit:
    case Prim::kPad:
    case Prim::kRoll:
    case Prim::kTile:
    case Prim::kRepeat:
    case Prim::kIota:
      return Family::kMove;
    case Prim::kCumsum:
    case Prim::kSort:
    case Prim::kArgsort:
    case Prim::kScatter:
    case Prim::kGather:
    // Interpret mode's alone: Mosaic lowers none of them, and CUDA runs `tpu` semantics.
    case Prim::kRandomSplit:
    case Prim::kRandomShuffle:
    case Prim::kRandomRandint:
      return Family::kNotYet;
    case Prim::kRandomSeed:
    case Prim::kRandomFoldIn:
    case Prim::kRandomBits:
    case Prim::kRandomUniform:
    case Prim::kRandomNormal:
      return Family::kRandom;
  }
  PZ_UNREACHABLE();
}

void Emitter::EmitPrim(const Instr& instr) {
  Prim prim = kernel::PrimOf(instr.op);
  switch (FamilyOf(prim)) {
    case Family::kUnary:
    case Family::kBinary:
      return EmitElementwise(instr);
    case Family::kReduction:
      return EmitReduce(instr);
    case Family::kDot:
      return EmitDot(instr);
    case Family::kMove:
      return EmitMove(instr);
    case Family::kRandom:
      return EmitRandom(instr);
    case Family::kNotYet:
      break;
  }
  Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)),
       "run this kernel on the emulated TPU (without `--backend cuda`)");
}

std::string Emitter::UnaryExpr(const Instr& instr, Prim prim, DType d, const std::string& x) {
  bool f = IsFloat(d);
  auto float_only = [&](const char* fn) {
    if (!f)
      Fail(instr, fmt::format("`{}` of {} on the CUDA backend", array::PrimName(prim),
                              array::DTypeName(d)));
    return fmt::format("{}({})", fn, x);
  };
  switch (prim) {
    case Prim::kNeg:
      if (d == DType::kBool) return x;
      return f ? "-(" + x + ")" : "(long long)0 - (long long)(" + x + ")";
    case Prim::kCopy:
      return x;
    case Prim::kAbs:
      if (f) return "fabsf(" + x + ")";
      return IsUnsignedInt(d) || d == DType::kBool
                 ? x
                 : "((" + x + ") < 0 ? -(long long)(" + x + ") : (long long)(" + x + "))";
    case Prim::kNot:
      return d == DType::kBool ? "!(" + x + ")" : "~(" + x + ")";
    case Prim::kLogicalNot:
      return "!(" + x + ")";
    case Prim::kExp:
      return float_only("expf");
    case Prim::kExp2:
      return float_only(d == DType::kBFloat16  ? "pz_exp2_bf16"
                        : d == DType::kFloat16 ? "pz_exp2_f16"
                                               : "pz_exp2");
    case Prim::kLog:
      return float_only("logf");
    case Prim::kLog1p:
      return float_only("log1pf");
    case Prim::kExpm1:
      return float_only("expm1f");
    case Prim::kSqrt:
      return float_only("sqrtf");
    case Prim::kRsqrt:
      return float_only("pz_rsqrt");
    case Prim::kTanh:
      return float_only("tanhf");
    case Prim::kSin:
      return float_only("sinf");
    case Prim::kCos:
      return float_only("cosf");
    case Prim::kTan:
      return float_only("tanf");
    case Prim::kErf:
      return float_only("erff");
    case Prim::kLogistic:
      return float_only(d == DType::kBFloat16  ? "pz_logistic_bf16"
                        : d == DType::kFloat16 ? "pz_logistic_f16"
                                               : "pz_logistic");
    case Prim::kSign:
      if (f) return "pz_fsign(" + x + ")";
      if (IsUnsignedInt(d)) return "((" + x + ") > 0 ? 1 : 0)";
      return "(((" + x + ") > 0) - ((" + x + ") < 0))";
    case Prim::kFloor:
      return f ? "floorf(" + x + ")" : x;
    case Prim::kCeil:
      return f ? "ceilf(" + x + ")" : x;
    case Prim::kRound:
      return f ? "rintf(" + x + ")" : x;
    case Prim::kIsNan:
      return f ? "isnan(" + x + ")" : "false";
    case Prim::kIsInf:
      return f ? "isinf(" + x + ")" : "false";
    case Prim::kIsFinite:
      return f ? "isfinite(" + x + ")" : "true";
    case Prim::kSquare:
      return f ? "(" + x + ") * (" + x + ")" : "(long long)(" + x + ") * (long long)(" + x + ")";
    case Prim::kReciprocal:
      return float_only("1.0f / ");
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)));
  }
}

std::string Emitter::BinaryExpr(const Instr& instr, Prim prim, DType d, const std::string& a,
                                const std::string& b) {
  bool f = IsFloat(d);
  bool boolean = d == DType::kBool;
  std::string la = "(long long)(" + a + ")", lb = "(long long)(" + b + ")";
  std::string ua = "(unsigned long long)(" + a + ")", ub = "(unsigned long long)(" + b + ")";
  auto infix = [&](const char* op) { return fmt::format("({}) {} ({})", a, op, b); };
  switch (prim) {
    case Prim::kAdd:
      return f ? infix("+") : boolean ? infix("||") : ua + " + " + ub;
    case Prim::kSub:
      return f ? infix("-") : ua + " - " + ub;
    case Prim::kMul:
      return f ? infix("*") : boolean ? infix("&&") : ua + " * " + ub;
    case Prim::kDiv:
      if (f && Count(TypeOf(instr.operands[1]).shape) < Count(TypeOf(instr.results[0]).shape)) {
        // A divisor broadcast over the result: XLA (and the emulator, elementwise_binary.cpp)
        // multiplies by its reciprocal, rounded to the operands' precision where that is float16
        // (bfloat16 stays in float32 until the result is rounded).
        std::string reciprocal = fmt::format("1.0f / ({})", b);
        if (d == DType::kFloat16) reciprocal = "pz_round_f16(" + reciprocal + ")";
        return fmt::format("({}) * ({})", a, reciprocal);
      }
      if (f) return infix("/");
      return IsUnsignedInt(d) ? fmt::format("({} == 0 ? ~0ull : {} / {})", ub, ua, ub)
                              : fmt::format("pz_idiv({}, {})", la, lb);
    case Prim::kFloorDivide:
      if (f) return fmt::format("pz_ffloordiv({}, {})", a, b);
      return IsUnsignedInt(d) ? fmt::format("({} == 0 ? ~0ull : {} / {})", ub, ua, ub)
                              : fmt::format("pz_ifloordiv({}, {}, true)", la, lb);
    case Prim::kRemainder:
      if (f) return fmt::format("pz_fmod({}, {})", a, b);
      // jnp.remainder takes a zero divisor as 1 (so x % 0 is 0), unsigned or not.
      return IsUnsignedInt(d) ? fmt::format("({} == 0 ? 0ull : {} % {})", ub, ua, ub)
                              : fmt::format("pz_imod({}, {})", la, lb);
    case Prim::kPow:
      if (f) return fmt::format("powf({}, {})", a, b);
      return fmt::format("pz_ipow({}, {}, {}, {}, {})", la, lb,
                         IntLit(static_cast<int64_t>((uint64_t{1} << Bits(d)) - 1)),
                         IsSignedInt(d) ? "true" : "false", Bits(d));
    case Prim::kMax:
      if (f) return fmt::format("pz_fmax({}, {})", a, b);
      return fmt::format("(({}) > ({}) ? ({}) : ({}))", a, b, a, b);
    case Prim::kMin:
      if (f) return fmt::format("pz_fmin({}, {})", a, b);
      return fmt::format("(({}) < ({}) ? ({}) : ({}))", a, b, a, b);
    case Prim::kAnd:
      return boolean ? infix("&&") : infix("&");
    case Prim::kOr:
      return boolean ? infix("||") : infix("|");
    case Prim::kXor:
      return boolean ? infix("!=") : infix("^");
    case Prim::kShiftLeft:
      return fmt::format("pz_shl({}, {}, {})", la, lb, Bits(d));
    case Prim::kShiftRightArithmetic:
      return fmt::format("pz_sar({}, {}, {})", la, lb, Bits(d));
    case Prim::kShiftRightLogical:
      return fmt::format("pz_shr({} & {}, {}, {})", ua,
                         IntLit(static_cast<int64_t>((uint64_t{1} << Bits(d)) - 1)), lb, Bits(d));
    case Prim::kEq:
      return infix("==");
    case Prim::kNe:
      return infix("!=");
    case Prim::kLt:
      return infix("<");
    case Prim::kLe:
      return infix("<=");
    case Prim::kGt:
      return infix(">");
    case Prim::kGe:
      return infix(">=");
    case Prim::kLogicalAnd:
      return infix("&&");
    case Prim::kLogicalOr:
      return infix("||");
    case Prim::kAtan2:
      return fmt::format("atan2f({}, {})", a, b);
    default:
      Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)));
  }
}

bool IsComparison(Prim p) {
  return p == Prim::kEq || p == Prim::kNe || p == Prim::kLt || p == Prim::kLe || p == Prim::kGt ||
         p == Prim::kGe;
}

void Emitter::EmitElementwise(const Instr& instr) {
  Prim prim = kernel::PrimOf(instr.op);
  ValueId out = instr.results[0];
  DType rd = TypeOf(out).dtype;
  const Shape& shape = TypeOf(out).shape;
  // The register value of operand k at the current element, converted to dtype `to`.
  auto operand = [&](Writer&, size_t k, DType to) {
    ValueId v = instr.operands[k];
    std::string index = "pz_i";
    if (!IsScalar(v) && TypeOf(v).shape != shape) {
      index = Affine("", coords_, BroadcastStrides(TypeOf(v).shape, shape));
    }
    return Cast(TypeOf(v).dtype, to, Elem(v, index));
  };
  auto needs_coords = [&] {
    for (ValueId v : instr.operands) {
      if (!IsScalar(v) && TypeOf(v).shape != shape) return true;
    }
    return false;
  };
  ForEachElement(out, [&](Writer& w) -> std::string {
    coords_.clear();
    if (!shape.empty() && needs_coords()) coords_ = Unravel(w, shape, "pz_i", "c");
    if (std::optional<array::UnaryOp> op = array::UnaryOpOf(prim); op || prim == Prim::kCopy) {
      DType in = TypeOf(instr.operands[0]).dtype;
      bool to_bool = prim == Prim::kIsNan || prim == Prim::kIsInf || prim == Prim::kIsFinite ||
                     prim == Prim::kLogicalNot;
      DType compute = to_bool ? in : rd;
      std::string x = operand(w, 0, compute);
      return Cast(compute, rd, Normalize(compute, UnaryExpr(instr, prim, compute, x)));
    }
    switch (prim) {
      case Prim::kIntegerPow: {
        int64_t y = std::get<array::IntegerPowAttrs>(instr.prim.attrs).y;
        std::string x = operand(w, 0, rd);
        if (IsFloat(rd)) return Normalize(rd, fmt::format("pz_fpow_int({}, {})", x, IntLit(y)));
        return Normalize(rd,
                         fmt::format("pz_ipow((long long)({}), {}, {}, {}, {})", x, IntLit(y),
                                     IntLit(static_cast<int64_t>((uint64_t{1} << Bits(rd)) - 1)),
                                     IsSignedInt(rd) ? "true" : "false", Bits(rd)));
      }
      case Prim::kConvertElementType:
        return operand(w, 0, rd);
      case Prim::kBitcastConvertType: {
        DType in = TypeOf(instr.operands[0]).dtype;
        if (array::ItemSize(in) != array::ItemSize(rd)) {
          Fail(instr, "the CUDA backend bitcasts only between dtypes of one width");
        }
        std::string x = Elem(instr.operands[0], "pz_i");
        if (in == DType::kFloat32) x = "pz_bits_of_f32(" + x + ")";
        if (in == DType::kBFloat16) x = "pz_f32_bf16(" + x + ")";
        if (in == DType::kFloat16) x = "pz_f32_f16(" + x + ")";
        if (rd == DType::kFloat32) return "pz_f32_from_bits((unsigned)(" + x + "))";
        if (rd == DType::kBFloat16) return "pz_bf16_f32((unsigned short)(" + x + "))";
        if (rd == DType::kFloat16) return "pz_f16_f32((unsigned short)(" + x + "))";
        return Normalize(rd, x);
      }
      case Prim::kSelectN: {
        std::string p = operand(w, 0, DType::kBool);
        return fmt::format("({}) ? ({}) : ({})", p, operand(w, 2, rd), operand(w, 1, rd));
      }
      case Prim::kClamp: {
        std::string lo = operand(w, 0, rd), x = operand(w, 1, rd), hi = operand(w, 2, rd);
        if (IsFloat(rd)) return fmt::format("pz_fmin(pz_fmax({}, {}), {})", x, lo, hi);
        return fmt::format("(({0}) < ({1}) ? ({1}) : ({0}) > ({2}) ? ({2}) : ({0}))", x, lo, hi);
      }
      default:
        break;
    }
    if (array::BinaryOpOf(prim) || prim == Prim::kShiftRightLogical) {
      DType compute = rd;
      if (IsComparison(prim) || prim == Prim::kLogicalAnd || prim == Prim::kLogicalOr) {
        ValueId a = instr.operands[0], b = instr.operands[1];
        compute =
            array::Promote({TypeOf(a).dtype, TypeOf(a).weak}, {TypeOf(b).dtype, TypeOf(b).weak})
                .dtype;
        if (prim == Prim::kLogicalAnd || prim == Prim::kLogicalOr) compute = DType::kBool;
      }
      std::string a = operand(w, 0, compute), b = operand(w, 1, compute);
      std::string e = BinaryExpr(instr, prim, compute, a, b);
      return compute == rd ? Normalize(rd, e) : Cast(compute, rd, Normalize(compute, e));
    }
    Fail(instr, fmt::format("the CUDA backend cannot run `{}` yet", array::PrimName(prim)),
         "run this kernel on the emulated TPU (without `--backend cuda`)");
  });
}

}  // namespace pz::cuda::detail
