// Binary elementwise ops (Binary in elementwise.h): dtype and shape rules, then the kernel of the
// operands' dtype (elementwise_binary_kernels.h). Matches XLA on CPU where it differs from plain
// C++: x // 0 is -1 (all ones unsigned), x % 0 is 0, A / broadcast(B) multiplies by the rounded
// reciprocal, `x ** int_scalar` is lax.integer_pow; bool arithmetic is logical.
#include <fmt/format.h>

#include <cmath>

#include "array/elementwise_binary_kernels.h"
#include "array/prims.h"

namespace pz::array {

namespace {

using binary_kernels::Dispatch;
using binary_kernels::IntOps;
using binary_kernels::Round;

bool IsComparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
    case BinaryOp::kLogicalAnd:
    case BinaryOp::kLogicalOr:
      return true;
    default:
      return false;
  }
}

[[noreturn]] void RejectDType(std::string_view name, DType dtype, std::string_view accepted) {
  ThrowTypeError(fmt::format(
      "{} does not accept dtype {} at position 0. Accepted dtypes at position 0 are subtypes "
      "of {}.",
      name, DTypeName(dtype), accepted));
}

// The dtype both operands are converted to before the kernel runs; checks dtype acceptance.
DType OperandDType(BinaryOp op, DType promoted) {
  constexpr std::string_view kNumeric = "integer, floating, complexfloating";
  switch (op) {
    case BinaryOp::kSub:
      if (IsBool(promoted)) RejectDType("sub", promoted, kNumeric);
      return promoted;
    case BinaryOp::kDiv:
    case BinaryOp::kAtan2:
      return IsFloating(promoted) ? promoted : DType::kFloat32;
    case BinaryOp::kFloorDiv:
    case BinaryOp::kMod:
    case BinaryOp::kPow:
      return IsBool(promoted) ? DType::kInt32 : promoted;
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
      if (IsFloating(promoted)) {
        std::string_view name = op == BinaryOp::kBitAnd  ? "and"
                                : op == BinaryOp::kBitOr ? "or"
                                                         : "xor";
        RejectDType(name, promoted, "integer, bool");
      }
      return promoted;
    case BinaryOp::kLShift:
    case BinaryOp::kRShift:
      if (IsFloating(promoted)) {
        std::string_view name = op == BinaryOp::kLShift ? "shift_left"
                                : IsUnsigned(promoted)  ? "shift_right_logical"
                                                        : "shift_right_arithmetic";
        RejectDType(name, promoted, "integer");
      }
      return IsBool(promoted) ? DType::kInt32 : promoted;
    default:
      return promoted;
  }
}

// lax.integer_pow(x, y), which jnp.power uses for a concrete integer scalar exponent: unrolled
// binary exponentiation in x's own dtype (every multiply rounds, 16-bit floats included), then
// 1 / acc for a negative exponent (a kTypeError for integers).
template <DType D>
void IntegerPow(const Array& x, int64_t y, Array& out) {
  using C = ComputeOf<D>;
  auto mul = [](C p, C q) -> C {
    if constexpr (std::is_same_v<C, float>) {
      return Round<D>(p * q);
    } else {
      return Round<D>(IntOps<D>::Mul(p, q));
    }
  };
  bool reciprocal = y < 0;
  uint64_t exponent = reciprocal ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
  const auto* in = x.data<StorageOf<D>>();
  auto* o = out.data<StorageOf<D>>();
  for (int64_t i = 0, size = x.size(); i < size; ++i) {
    C base = Element<D>::Load(in[i]);
    C acc = 1;
    if (exponent == 2) {
      acc = mul(base, base);
    } else if (exponent == 3) {
      acc = mul(mul(base, base), base);
    } else {
      bool first = true;
      for (uint64_t e = exponent; e > 0;) {
        if (e & 1) acc = first ? base : mul(acc, base), first = false;
        e >>= 1;
        if (e > 0) base = mul(base, base);
      }
    }
    if constexpr (std::is_same_v<C, float>) {
      if (reciprocal) acc = 1.0f / acc;
    }
    o[i] = Element<D>::Store(acc);
  }
}

// The shape of `a op b`, with JAX's two errors for shapes that do not broadcast: operands of
// different ranks fail while jax.numpy pads them to one rank (ValueError, from
// BroadcastShapes); operands of one rank fail in the lax primitive (TypeError, named by the
// primitive: `x // y` and `x % y` are both computed by `rem`).
Shape BinaryShape(BinaryOp op, const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return BroadcastShapes(a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || a[i] == 1 || b[i] == 1) continue;
    static constexpr const char* kPrimitive[] = {
        "add", "sub", "mul", "div", "rem",        "rem",         "pow",  "max",
        "min", "and", "or",  "xor", "shift_left", "shift_right", "eq",   "ne",
        "lt",  "le",  "gt",  "ge",  "and",        "or",          "atan2"};
    ThrowTypeError(fmt::format("{} got incompatible shapes for broadcasting: {}, {}.",
                               kPrimitive[static_cast<int>(op)], ShapeToString(a),
                               ShapeToString(b)));
  }
  return BroadcastShapes(a, b);
}

}  // namespace

Array IntegerPow(const Array& a, int64_t y) {
  if (Recording()) {
    return RecordPrimitive({Prim::kIntegerPow, IntegerPowAttrs{y}}, {a},
                           [&] { return IntegerPow(a, y); });
  }
  Array x = IsBool(a.dtype()) ? a.AsType(DType::kInt32) : a.Contiguous();
  if (y < 0 && !IsFloating(x.dtype())) {
    ThrowTypeError(
        fmt::format("Integers cannot be raised to negative powers, got integer_pow({}[{}], {})",
                    DTypeName(x.dtype()), fmt::join(x.shape(), ","), y));
  }
  Array out = Array::Zeros(x.dtype(), x.shape());
  out.set_weak_type(a.weak_type());
  DispatchDType(x.dtype(), [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (D != DType::kBool) IntegerPow<D>(x, y, out);
  });
  return out;
}

Array Binary(BinaryOp op, const Array& a, const Array& b) {
  Array out;
  BinaryInto(op, a, b, out);
  return out;
}

void BinaryInto(BinaryOp op, const Array& a, const Array& b, Array& slot) {
  if (op == BinaryOp::kPow && b.rank() == 0 && !IsFloating(b.dtype())) {
    slot = IntegerPow(a, b.GetInt(0));
    return;
  }
  if (Recording()) {
    // JAX's right shift is two primitives: logical for unsigned integers.
    bool logical =
        op == BinaryOp::kRShift &&
        IsUnsigned(Promote({a.dtype(), a.weak_type()}, {b.dtype(), b.weak_type()}).dtype);
    slot = RecordPrimitive({logical ? Prim::kShiftRightLogical : PrimOf(op), NoAttrs{}}, {a, b},
                           [&] { return Binary(op, a, b); });
    return;
  }
  // Two contiguous float32 operands of one shape (most elementwise ops in kernels): straight to
  // the vector lanes RunBinary would pick, without promotion rules or layout checks.
  if (a.dtype() == DType::kFloat32 && b.dtype() == DType::kFloat32 &&
      SameDims(a.shape(), b.shape()) && a.IsContiguous() && b.IsContiguous()) {
    if (F32BinaryLanes lanes = F32LanesFor(op)) {
      if (!slot.Reusable(DType::kFloat32, a.shape()))
        slot = Array::Empty(DType::kFloat32, a.shape());
      slot.set_weak_type(a.weak_type() && b.weak_type());  // weak only when both are
      lanes(a.data<float>(), 1, b.data<float>(), 1, slot.data<float>(), slot.size());
      return;
    }
  }
  TypeInfo promoted = Promote({a.dtype(), a.weak_type()}, {b.dtype(), b.weak_type()});
  DType operand = OperandDType(op, promoted.dtype);
  // Operands of one shape (the common case in kernels) need no broadcast rule and no new shape.
  bool same = SameDims(a.shape(), b.shape());
  Shape shape = same ? Shape() : BinaryShape(op, a.shape(), b.shape());
  const Shape& result_shape = same ? a.shape() : shape;
  Array converted_a, converted_b;  // only when an operand needs a cast (no copies otherwise)
  const Array& x = a.dtype() == operand ? a : (converted_a = a.AsType(operand));
  const Array& y = b.dtype() == operand ? b : (converted_b = b.AsType(operand));
  if (op == BinaryOp::kDiv && y.size() < NumElements(result_shape)) {
    // XLA rewrites A / broadcast(B) into A * broadcast(1 / B), which rounds twice; so does JAX
    // on CPU for `x / 3.0` or `x / row`, and so do we.
    // bfloat16 is computed in float32 inside that fusion and rounded once; float16 is native.
    DType inner = operand == DType::kBFloat16 ? DType::kFloat32 : operand;
    Array product =
        Binary(BinaryOp::kMul, x.AsType(inner), Unary(UnaryOp::kReciprocal, y.AsType(inner)));
    slot = product.AsType(operand);
    slot.set_weak_type(promoted.weak);
    return;
  }
  bool to_bool = IsComparison(op);
  DType result = to_bool ? DType::kBool : operand;
  if (!slot.Reusable(result, result_shape)) slot = Array::Empty(result, result_shape);
  slot.set_weak_type(!to_bool && promoted.weak);
  DispatchDType(operand, [&](auto tag) { Dispatch<decltype(tag)::value>(op, x, y, slot); });
}

}  // namespace pz::array
