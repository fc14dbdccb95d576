// Binary elementwise ops (Binary in elementwise.h): dtype rules, then one template kernel per
// (dtype, op) over broadcast strides. Matches XLA on CPU where it differs from plain C++: x // 0
// is -1 (all ones unsigned), x % 0 is 0, A / broadcast(B) multiplies by the rounded reciprocal,
// `x ** int_scalar` is lax.integer_pow; bool arithmetic is logical.
#include <fmt/format.h>

#include <cmath>

#include "array/broadcast.h"
#include "array/element.h"
#include "array/elementwise.h"
#include "array/prims.h"

namespace pz::array {

namespace {

// The value rounded to dtype D's precision (identity except for bf16/f16 and integer wrap).
template <DType D>
ComputeOf<D> Round(ComputeOf<D> v) {
  return Element<D>::Load(Element<D>::Store(v));
}

// lax.sign for floats: NaN stays NaN, ±0 stays ±0.
inline float Sign(float v) {
  if (std::isnan(v)) return v;
  if (v > 0) return 1.0f;
  if (v < 0) return -1.0f;
  return v;
}

template <DType D>
struct FloatOps {
  static float FloorDiv(float a, float b) {
    float mod = std::fmod(a, b);
    float corrected = b == 0 ? a : Round<D>(a - mod);
    float div = Round<D>(corrected / b);
    bool adjust = mod != 0 && Sign(b) != Sign(mod);
    if (adjust) div = Round<D>(div - 1.0f);
    return std::round(div);
  }
  static float Mod(float a, float b) {
    float trunc = std::fmod(a, b);
    bool adjust = trunc != 0 && ((trunc < 0) != (b < 0));
    return adjust ? trunc + b : trunc;
  }
  static float Max(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
  static float Min(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
};

template <DType D>
struct IntOps {
  using S = StorageOf<D>;
  static constexpr int kBits = 8 * sizeof(S);
  static int64_t Mul(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  }
  // XLA: x / 0 is -1 (all ones when stored unsigned); INT_MIN / -1 wraps to INT_MIN on store.
  static int64_t Div(int64_t a, int64_t b) { return b == 0 ? -1 : a / b; }
  // XLA: x % 0 is x.
  static int64_t Rem(int64_t a, int64_t b) { return b == 0 ? a : a % b; }
  static int64_t FloorDiv(int64_t a, int64_t b) {
    int64_t q = Div(a, b);
    if constexpr (std::is_signed_v<S>) {
      auto sign = [](int64_t v) { return (v > 0) - (v < 0); };
      if (sign(a) != sign(b) && Rem(a, b) != 0) --q;
    }
    return q;
  }
  static int64_t Mod(int64_t a, int64_t b) {
    if (b == 0) b = 1;
    int64_t trunc = a % b;
    return (trunc != 0 && ((trunc < 0) != (b < 0))) ? trunc + b : trunc;
  }
  // jnp.power's _pow_int_int: binary exponentiation over the exponent's low 6 bits.
  static int64_t Pow(int64_t base, int64_t exponent) {
    auto bits = static_cast<std::make_unsigned_t<S>>(Element<D>::Store(exponent));
    int64_t acc = (base == 0 && exponent != 0) ? 0 : 1;
    for (int i = 0; i < 6; ++i) {
      if (bits & 1) acc = Round<D>(Mul(acc, base));
      base = Round<D>(Mul(base, base));
      bits = static_cast<decltype(bits)>(bits >> 1);
    }
    return acc;
  }
  static int64_t LShift(int64_t a, int64_t b) {
    if (b < 0 || b >= kBits) return 0;
    return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
  }
  static int64_t RShift(int64_t a, int64_t b) {
    if (b < 0 || b >= kBits) return a < 0 ? -1 : 0;
    return a >> b;
  }
};

// out[i] = op(a[i], b[i]) over broadcast strides; In is the operands' dtype, Out the result's.
template <DType In, DType Out, typename Op>
void RunBinary(const Array& a, const Array& b, Array& out, Op op) {
  using L = Element<In>;
  const auto* pa = reinterpret_cast<const StorageOf<In>*>(a.raw());
  const auto* pb = reinterpret_cast<const StorageOf<In>*>(b.raw());
  auto* po = reinterpret_cast<StorageOf<Out>*>(out.raw());
  if (SameDims(a.shape(), out.shape()) && SameDims(b.shape(), out.shape()) && a.IsDense() &&
      b.IsDense() && out.IsDense()) {
    // The common case in kernels (two blocks of one shape): one flat loop, no stride tables.
    int64_t n = out.size();
    for (int64_t i = 0; i < n; ++i) {
      po[i] = Element<Out>::Store(static_cast<ComputeOf<Out>>(op(L::Load(pa[i]), L::Load(pb[i]))));
    }
    return;
  }
  std::array<StrideArray, 3> strides = {StridesOf(out), BroadcastStrides(a, out.shape()),
                                        BroadcastStrides(b, out.shape())};
  ForEachRow<3>(out.shape(), strides, [&](const auto& off, int64_t n, const auto& st) {
    auto* o = po + off[0];
    const auto* x = pa + off[1];
    const auto* y = pb + off[2];
    auto store = [](auto v) { return Element<Out>::Store(static_cast<ComputeOf<Out>>(v)); };
    if (st[1] == 1 && st[2] == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = store(op(L::Load(x[i]), L::Load(y[i])));
    } else if (st[1] == 1 && st[2] == 0) {
      auto yv = L::Load(*y);
      for (int64_t i = 0; i < n; ++i) o[i] = store(op(L::Load(x[i]), yv));
    } else if (st[1] == 0 && st[2] == 1) {
      auto xv = L::Load(*x);
      for (int64_t i = 0; i < n; ++i) o[i] = store(op(xv, L::Load(y[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) {
        o[i] = store(op(L::Load(x[i * st[1]]), L::Load(y[i * st[2]])));
      }
    }
  });
}

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

// Runs the kernel for operand dtype D (a and b already converted to D).
template <DType D>
void Dispatch(BinaryOp op, const Array& a, const Array& b, Array& out) {
  using C = ComputeOf<D>;
  constexpr bool kFloat = std::is_same_v<C, float>;
  constexpr bool kBool = std::is_same_v<C, bool>;
  constexpr DType B = DType::kBool;
  switch (op) {
    case BinaryOp::kEq:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x == y; });
    case BinaryOp::kNe:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x != y; });
    case BinaryOp::kLt:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x < y; });
    case BinaryOp::kLe:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x <= y; });
    case BinaryOp::kGt:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x > y; });
    case BinaryOp::kGe:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x >= y; });
    case BinaryOp::kLogicalAnd:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x != C{} && y != C{}; });
    case BinaryOp::kLogicalOr:
      return RunBinary<D, B>(a, b, out, [](C x, C y) { return x != C{} || y != C{}; });
    default:
      break;
  }
  if constexpr (kBool) {
    switch (op) {
      case BinaryOp::kAdd:
      case BinaryOp::kMaximum:
      case BinaryOp::kBitOr:
        return RunBinary<D, D>(a, b, out, [](bool x, bool y) { return x || y; });
      case BinaryOp::kMul:
      case BinaryOp::kMinimum:
      case BinaryOp::kBitAnd:
        return RunBinary<D, D>(a, b, out, [](bool x, bool y) { return x && y; });
      case BinaryOp::kBitXor:
        return RunBinary<D, D>(a, b, out, [](bool x, bool y) { return x != y; });
      default:
        break;
    }
  } else if constexpr (kFloat) {
    using F = FloatOps<D>;
    switch (op) {
      case BinaryOp::kAdd:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return x + y; });
      case BinaryOp::kSub:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return x - y; });
      case BinaryOp::kMul:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return x * y; });
      case BinaryOp::kDiv:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return x / y; });
      case BinaryOp::kFloorDiv:
        return RunBinary<D, D>(a, b, out, F::FloorDiv);
      case BinaryOp::kMod:
        return RunBinary<D, D>(a, b, out, F::Mod);
      case BinaryOp::kPow:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return std::pow(x, y); });
      case BinaryOp::kMaximum:
        return RunBinary<D, D>(a, b, out, F::Max);
      case BinaryOp::kMinimum:
        return RunBinary<D, D>(a, b, out, F::Min);
      case BinaryOp::kAtan2:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return std::atan2(x, y); });
      default:
        break;
    }
  } else {
    using I = IntOps<D>;
    switch (op) {
      case BinaryOp::kAdd:
        return RunBinary<D, D>(a, b, out, [](int64_t x, int64_t y) { return x + y; });
      case BinaryOp::kSub:
        return RunBinary<D, D>(a, b, out, [](int64_t x, int64_t y) { return x - y; });
      case BinaryOp::kMul:
        return RunBinary<D, D>(a, b, out, I::Mul);
      case BinaryOp::kFloorDiv:
        return RunBinary<D, D>(a, b, out, I::FloorDiv);
      case BinaryOp::kMod:
        return RunBinary<D, D>(a, b, out, I::Mod);
      case BinaryOp::kPow:
        return RunBinary<D, D>(a, b, out, I::Pow);
      case BinaryOp::kMaximum:
        return RunBinary<D, D>(a, b, out, [](int64_t x, int64_t y) { return std::max(x, y); });
      case BinaryOp::kMinimum:
        return RunBinary<D, D>(a, b, out, [](int64_t x, int64_t y) { return std::min(x, y); });
      case BinaryOp::kBitAnd:
        return RunBinary<D, D>(a, b, out, [](int64_t x, int64_t y) { return x & y; });
      case BinaryOp::kBitOr:
        return RunBinary<D, D>(a, b, out, [](int64_t x, int64_t y) { return x | y; });
      case BinaryOp::kBitXor:
        return RunBinary<D, D>(a, b, out, [](int64_t x, int64_t y) { return x ^ y; });
      case BinaryOp::kLShift:
        return RunBinary<D, D>(a, b, out, I::LShift);
      case BinaryOp::kRShift:
        return RunBinary<D, D>(a, b, out, I::RShift);
      default:
        break;
    }
  }
  PZ_UNREACHABLE();
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
