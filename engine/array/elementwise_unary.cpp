// Unary elementwise ops (Unary in elementwise.h): JAX's result dtype per op, then one template
// kernel per (dtype, op). Transcendentals use the C library in float32; bf16/f16 round once.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "array/broadcast.h"
#include "array/element.h"
#include "array/elementwise.h"
#include "array/exp_f32.h"
#include "array/prims.h"

namespace pz::array {

namespace {

// out[i] = op(a[i]); In is the operand's dtype, Out the result's.
template <DType In, DType Out, typename Op>
void RunUnary(const Array& a, Array& out, Op op) {
  const auto* pa = reinterpret_cast<const StorageOf<In>*>(a.raw());
  auto* po = reinterpret_cast<StorageOf<Out>*>(out.raw());
  std::array<StrideArray, 2> strides = {StridesOf(out), StridesOf(a)};
  ForEachRow<2>(out.shape(), strides, [&](const auto& off, int64_t n, const auto& st) {
    auto* o = po + off[0];
    const auto* x = pa + off[1];
    for (int64_t i = 0; i < n; ++i) {
      o[i] = Element<Out>::Store(static_cast<ComputeOf<Out>>(op(Element<In>::Load(x[i * st[1]]))));
    }
  });
}

// XLA's tanh on CPU: a rational approximation (odd degree 13 over even degree 6, evaluated with
// fused multiply-adds), x itself near 0 and ±1 beyond the clamp. Matches jnp.tanh bit for bit.
float Tanh(float x) {
  constexpr float kClamp = 7.99881172180176f;
  constexpr float kSmall = 0.0004f;
  constexpr float kNumerator[] = {
      -2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f, 5.12229709037114e-08f,
      1.48572235717979e-05f,  6.37261928875436e-04f, 4.89352455891786e-03f};
  constexpr float kDenominator[] = {1.19825839466702e-06f, 1.18534705686654e-04f,
                                    2.26843463243900e-03f, 4.89352518554385e-03f};
  if (std::fabs(x) < kSmall) return x;
  float clamped = std::clamp(x, -kClamp, kClamp);
  float x2 = clamped * clamped;
  float p = kNumerator[0];
  for (size_t i = 1; i < std::size(kNumerator); ++i) p = std::fma(p, x2, kNumerator[i]);
  float q = kDenominator[0];
  for (size_t i = 1; i < std::size(kDenominator); ++i) q = std::fma(q, x2, kDenominator[i]);
  return clamped * p / q;
}

// XLA's erf on CPU: x times a degree-8 over degree-12 even rational function (fused
// multiply-adds), with x clamped to ±erfinv(1 - 2^-23). Matches jax.scipy.special.erf bit for bit.
float Erf(float x) {
  constexpr float kClamp = 3.832506856900711f;
  constexpr float kAlpha[] = {0.00022905065861350646f, 0.0034082910107109506f,
                              0.050955695062380861f, 0.18520832239976145f, 1.128379143519084f};
  constexpr float kBeta[] = {-1.1791602954361697e-7f,
                             0.000023547966471313185f,
                             0.0010179625278914885f,
                             0.014070470171167667f,
                             0.11098505178285362f,
                             0.49746925110067538f,
                             1.0f};
  float clamped = std::clamp(x, -kClamp, kClamp);
  float x2 = clamped * clamped;
  float p = kAlpha[0];
  for (size_t i = 1; i < std::size(kAlpha); ++i) p = std::fma(p, x2, kAlpha[i]);
  float q = kBeta[0];
  for (size_t i = 1; i < std::size(kBeta); ++i) q = std::fma(q, x2, kBeta[i]);
  return p * clamped / q;
}

// Ops whose result is always floating: integer and bool operands become float32 first.
bool IsFloatValued(UnaryOp op) {
  switch (op) {
    case UnaryOp::kExp:
    case UnaryOp::kExp2:
    case UnaryOp::kLog:
    case UnaryOp::kLog1p:
    case UnaryOp::kExpm1:
    case UnaryOp::kSqrt:
    case UnaryOp::kRsqrt:
    case UnaryOp::kTanh:
    case UnaryOp::kSin:
    case UnaryOp::kCos:
    case UnaryOp::kTan:
    case UnaryOp::kErf:
    case UnaryOp::kSigmoid:
    case UnaryOp::kReciprocal:
      return true;
    default:
      return false;
  }
}

bool IsPredicate(UnaryOp op) {
  return op == UnaryOp::kIsNan || op == UnaryOp::kIsInf || op == UnaryOp::kIsFinite ||
         op == UnaryOp::kLogicalNot;
}

template <DType D>
void Dispatch(UnaryOp op, const Array& a, Array& out) {
  using C = ComputeOf<D>;
  constexpr DType B = DType::kBool;
  if constexpr (std::is_same_v<C, float>) {
    switch (op) {
      case UnaryOp::kIsNan:
        return RunUnary<D, B>(a, out, [](float x) { return std::isnan(x); });
      case UnaryOp::kIsInf:
        return RunUnary<D, B>(a, out, [](float x) { return std::isinf(x); });
      case UnaryOp::kIsFinite:
        return RunUnary<D, B>(a, out, [](float x) { return std::isfinite(x); });
      case UnaryOp::kLogicalNot:
        return RunUnary<D, B>(a, out, [](float x) { return x == 0; });
      case UnaryOp::kNeg:
        return RunUnary<D, D>(a, out, [](float x) { return -x; });
      case UnaryOp::kAbs:
        return RunUnary<D, D>(a, out, [](float x) { return std::fabs(x); });
      case UnaryOp::kExp:
        if constexpr (D == DType::kFloat32) {
          // In lanes (exp_f32.h), flushing as they go.
          if (a.IsDense() && out.IsDense()) {
            return ExpF32(a.data<float>(), out.data<float>(), a.size(), true);
          }
        }
        return RunUnary<D, D>(a, out, [](float x) { return FlushSubnormal(std::exp(x)); });
      case UnaryOp::kExp2:
        // XLA computes exp2(x) as exp(x * ln 2), in the operand's precision for 16-bit floats.
        return RunUnary<D, D>(a, out, [](float x) {
          constexpr float kLn2 = 0.693147180559945f;
          float scaled = x * kLn2;
          if constexpr (D != DType::kFloat32) scaled = RoundToDType(x * RoundToDType(kLn2, D), D);
          return FlushSubnormal(std::exp(scaled));
        });
      case UnaryOp::kLog:
        return RunUnary<D, D>(a, out, [](float x) { return std::log(x); });
      case UnaryOp::kLog1p:
        return RunUnary<D, D>(a, out, [](float x) { return std::log1p(x); });
      case UnaryOp::kExpm1:
        return RunUnary<D, D>(a, out, [](float x) { return std::expm1(x); });
      case UnaryOp::kSqrt:
        return RunUnary<D, D>(a, out, [](float x) { return std::sqrt(x); });
      case UnaryOp::kRsqrt:
        return RunUnary<D, D>(a, out, [](float x) { return 1.0f / std::sqrt(x); });
      case UnaryOp::kTanh:
        return RunUnary<D, D>(a, out, Tanh);
      case UnaryOp::kSin:
        return RunUnary<D, D>(a, out, [](float x) { return std::sin(x); });
      case UnaryOp::kCos:
        return RunUnary<D, D>(a, out, [](float x) { return std::cos(x); });
      case UnaryOp::kTan:
        return RunUnary<D, D>(a, out, [](float x) { return std::tan(x); });
      case UnaryOp::kErf:
        return RunUnary<D, D>(a, out, Erf);
      case UnaryOp::kSigmoid:
        // 1 / (1 + exp(-x)), each step rounded to the operand's precision, as XLA expands it.
        return RunUnary<D, D>(a, out, [](float x) {
          float e = RoundToDType(FlushSubnormal(std::exp(-x)), D);
          return FlushSubnormal(1.0f / RoundToDType(1.0f + e, D));
        });
      case UnaryOp::kSign:
        return RunUnary<D, D>(a, out, [](float x) {
          if (std::isnan(x)) return x;
          return x > 0 ? 1.0f : x < 0 ? -1.0f : x;
        });
      case UnaryOp::kFloor:
        return RunUnary<D, D>(a, out, [](float x) { return std::floor(x); });
      case UnaryOp::kCeil:
        return RunUnary<D, D>(a, out, [](float x) { return std::ceil(x); });
      case UnaryOp::kRound:
        return RunUnary<D, D>(a, out, [](float x) { return std::nearbyint(x); });
      case UnaryOp::kSquare:
        return RunUnary<D, D>(a, out, [](float x) { return x * x; });
      case UnaryOp::kReciprocal:
        return RunUnary<D, D>(a, out, [](float x) { return 1.0f / x; });
      default:
        break;
    }
  } else if constexpr (std::is_same_v<C, bool>) {
    switch (op) {
      case UnaryOp::kIsNan:
      case UnaryOp::kIsInf:
        return RunUnary<D, B>(a, out, [](bool) { return false; });
      case UnaryOp::kIsFinite:
        return RunUnary<D, B>(a, out, [](bool) { return true; });
      case UnaryOp::kLogicalNot:
      case UnaryOp::kInvert:
        return RunUnary<D, B>(a, out, [](bool x) { return !x; });
      case UnaryOp::kAbs:
      case UnaryOp::kFloor:
      case UnaryOp::kCeil:
        return RunUnary<D, B>(a, out, [](bool x) { return x; });
      default:
        break;
    }
  } else {
    using I = int64_t;
    switch (op) {
      case UnaryOp::kIsNan:
      case UnaryOp::kIsInf:
        return RunUnary<D, B>(a, out, [](I) { return false; });
      case UnaryOp::kIsFinite:
        return RunUnary<D, B>(a, out, [](I) { return true; });
      case UnaryOp::kLogicalNot:
        return RunUnary<D, B>(a, out, [](I x) { return x == 0; });
      case UnaryOp::kNeg:
        return RunUnary<D, D>(a, out, [](I x) { return -x; });
      case UnaryOp::kAbs:
        return RunUnary<D, D>(a, out, [](I x) { return x < 0 ? -x : x; });
      case UnaryOp::kInvert:
        return RunUnary<D, D>(a, out, [](I x) { return ~x; });
      case UnaryOp::kSign:
        return RunUnary<D, D>(a, out, [](I x) { return I{(x > 0) - (x < 0)}; });
      case UnaryOp::kSquare:
        return RunUnary<D, D>(a, out, [](I x) {
          return static_cast<I>(static_cast<uint64_t>(x) * static_cast<uint64_t>(x));
        });
      default:
        break;
    }
  }
  PZ_UNREACHABLE();
}

[[noreturn]] void Reject(std::string_view name, DType dtype, std::string_view accepted) {
  ThrowTypeError(fmt::format("{} does not accept dtype {}. Accepted dtypes are subtypes of {}.",
                             name, DTypeName(dtype), accepted));
}

}  // namespace

Array Unary(UnaryOp op, const Array& a) {
  Array out;
  UnaryInto(op, a, out);
  return out;
}

void UnaryInto(UnaryOp op, const Array& a, Array& slot) {
  if (Recording()) {
    slot = RecordPrimitive({PrimOf(op), NoAttrs{}}, {a}, [&] { return Unary(op, a); });
    return;
  }
  DType dtype = a.dtype();
  constexpr std::string_view kNumeric = "integer, floating, complexfloating";
  if (op == UnaryOp::kPos) {
    slot = a;
    return;
  }
  if (IsBool(dtype) && op == UnaryOp::kNeg) Reject("neg", dtype, kNumeric);
  if (IsBool(dtype) && op == UnaryOp::kSign) Reject("sign", dtype, kNumeric);
  if (IsBool(dtype) && op == UnaryOp::kRound) {
    ThrowValueError("data type <class 'numpy.bool'> not inexact");
  }
  if (IsFloating(dtype) && op == UnaryOp::kInvert) Reject("not", dtype, "integer, bool");
  if (!IsFloating(dtype) && op == UnaryOp::kSigmoid) {
    Reject("logistic", dtype, "floating, complexfloating");
  }
  // Rounding an integer is the identity.
  bool rounding = op == UnaryOp::kFloor || op == UnaryOp::kCeil || op == UnaryOp::kRound;
  if (rounding && IsInteger(dtype)) {
    slot = a;
    return;
  }

  DType operand = dtype;
  if (IsFloatValued(op) && !IsFloating(dtype)) operand = DType::kFloat32;
  if (op == UnaryOp::kSquare && IsBool(dtype)) operand = DType::kInt32;
  Array converted;  // only when the operand needs a cast: `slot` may be `a` itself (in place)
  const Array& x = operand == dtype ? a : (converted = a.AsType(operand));
  bool to_bool = IsPredicate(op) || (IsBool(operand) && op == UnaryOp::kInvert);
  DType result = to_bool ? DType::kBool : operand;
  if (!slot.Reusable(result, a.shape())) slot = Array::Empty(result, a.shape());
  slot.set_weak_type(!to_bool && a.weak_type());
  DispatchDType(operand, [&](auto tag) { Dispatch<decltype(tag)::value>(op, x, slot); });
}

}  // namespace pz::array
