// The kernels of the binary elementwise ops (elementwise_binary.cpp): one template per (dtype, op)
// over broadcast strides, with XLA's integer and float corner cases. Dispatch<D> is instantiated
// once in the whole library, split over two files by how often kernels use the dtype:
// elementwise_binary_common.cpp (float32, bfloat16, int32, bool) and elementwise_binary_rare.cpp
// (the rest, whose instantiations are most of the compile time; Release builds them at -O2).
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "array/binary_lanes.h"
#include "array/broadcast.h"
#include "array/element.h"
#include "array/elementwise.h"

namespace pz::array::binary_kernels {

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
// `lanes` (float32 only, binary_lanes.h), when given, computes the rows whose operands step by 0
// or 1 exactly as `op` would.
template <DType In, DType Out, typename Op>
void RunBinary(const Array& a, const Array& b, Array& out, Op op, F32BinaryLanes lanes = nullptr) {
  using L = Element<In>;
  const auto* pa = reinterpret_cast<const StorageOf<In>*>(a.raw());
  const auto* pb = reinterpret_cast<const StorageOf<In>*>(b.raw());
  auto* po = reinterpret_cast<StorageOf<Out>*>(out.raw());
  if (SameDims(a.shape(), out.shape()) && SameDims(b.shape(), out.shape()) && a.IsDense() &&
      b.IsDense() && out.IsDense()) {
    // The common case in kernels (two blocks of one shape): one flat loop, no stride tables.
    int64_t n = out.size();
    if constexpr (In == DType::kFloat32 && Out == DType::kFloat32) {
      if (lanes != nullptr) return lanes(pa, 1, pb, 1, po, n);
    }
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
    if constexpr (In == DType::kFloat32 && Out == DType::kFloat32) {
      if (lanes != nullptr && st[1] <= 1 && st[2] <= 1) return lanes(x, st[1], y, st[2], o, n);
    }
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
    F32BinaryLanes lanes = D == DType::kFloat32 ? F32LanesFor(op) : nullptr;
    switch (op) {
      case BinaryOp::kAdd:
        return RunBinary<D, D>(
            a, b, out, [](float x, float y) { return x + y; }, lanes);
      case BinaryOp::kSub:
        return RunBinary<D, D>(
            a, b, out, [](float x, float y) { return x - y; }, lanes);
      case BinaryOp::kMul:
        return RunBinary<D, D>(
            a, b, out, [](float x, float y) { return x * y; }, lanes);
      case BinaryOp::kDiv:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return x / y; });
      case BinaryOp::kFloorDiv:
        return RunBinary<D, D>(a, b, out, F::FloorDiv);
      case BinaryOp::kMod:
        return RunBinary<D, D>(a, b, out, F::Mod);
      case BinaryOp::kPow:
        return RunBinary<D, D>(a, b, out, [](float x, float y) { return std::pow(x, y); });
      case BinaryOp::kMaximum:
        return RunBinary<D, D>(a, b, out, F::Max, lanes);
      case BinaryOp::kMinimum:
        return RunBinary<D, D>(a, b, out, F::Min, lanes);
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

// Every dtype's Dispatch is instantiated in one of the two files named above.
#define PZ_BINARY_DISPATCH(D) \
  template void Dispatch<D>(BinaryOp op, const Array& a, const Array& b, Array& out)

extern PZ_BINARY_DISPATCH(DType::kFloat32);
extern PZ_BINARY_DISPATCH(DType::kBFloat16);
extern PZ_BINARY_DISPATCH(DType::kInt32);
extern PZ_BINARY_DISPATCH(DType::kBool);
extern PZ_BINARY_DISPATCH(DType::kFloat16);
extern PZ_BINARY_DISPATCH(DType::kInt8);
extern PZ_BINARY_DISPATCH(DType::kUInt8);
extern PZ_BINARY_DISPATCH(DType::kInt16);
extern PZ_BINARY_DISPATCH(DType::kUInt16);
extern PZ_BINARY_DISPATCH(DType::kUInt32);
extern PZ_BINARY_DISPATCH(DType::kInt4);
extern PZ_BINARY_DISPATCH(DType::kUInt4);

}  // namespace pz::array::binary_kernels
