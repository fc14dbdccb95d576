// Per-dtype element traits for the op kernels: the storage type, the compute type (float for
// floating dtypes, int64_t for integers, bool for bool), and exact conversions between them with
// JAX's semantics (16-bit floats round to nearest even, integers wrap, float→int saturates with
// NaN → 0). DispatchDType turns a runtime dtype into a compile-time one, so kernels are
// templates with no per-element switch or virtual call.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "array/dtype.h"
#include "support/check.h"

namespace pz::array {

template <DType D>
struct Element;

template <>
struct Element<DType::kFloat32> {
  using Storage = float;
  using Compute = float;
  static float Load(float v) { return v; }
  static float Store(float v) { return v; }
};
template <>
struct Element<DType::kBFloat16> {
  using Storage = uint16_t;
  using Compute = float;
  static float Load(uint16_t v) { return BFloat16BitsToFloat(v); }
  static uint16_t Store(float v) { return FloatToBFloat16Bits(v); }
};
template <>
struct Element<DType::kFloat16> {
  using Storage = uint16_t;
  using Compute = float;
  static float Load(uint16_t v) { return HalfBitsToFloat(v); }
  static uint16_t Store(float v) { return FloatToHalfBits(v); }
};
template <>
struct Element<DType::kBool> {
  using Storage = uint8_t;
  using Compute = bool;
  static bool Load(uint8_t v) { return v != 0; }
  static uint8_t Store(bool v) { return v ? 1 : 0; }
};

template <DType D, typename T>
struct IntElement {
  using Storage = T;
  using Compute = int64_t;
  static int64_t Load(T v) { return static_cast<int64_t>(v); }
  // Wraps modulo 2^bits, as integer arithmetic on a TPU/CPU does.
  static T Store(int64_t v) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<uint64_t>(v)));
  }
};
template <>
struct Element<DType::kInt8> : IntElement<DType::kInt8, int8_t> {};
template <>
struct Element<DType::kUInt8> : IntElement<DType::kUInt8, uint8_t> {};
template <>
struct Element<DType::kInt16> : IntElement<DType::kInt16, int16_t> {};
template <>
struct Element<DType::kUInt16> : IntElement<DType::kUInt16, uint16_t> {};
template <>
struct Element<DType::kInt32> : IntElement<DType::kInt32, int32_t> {};
template <>
struct Element<DType::kUInt32> : IntElement<DType::kUInt32, uint32_t> {};

// 4-bit integers live one per byte and wrap modulo 2^4.
template <>
struct Element<DType::kInt4> {
  using Storage = int8_t;
  using Compute = int64_t;
  static int64_t Load(int8_t v) { return v; }
  static int8_t Store(int64_t v) {
    return static_cast<int8_t>(static_cast<int>((static_cast<uint64_t>(v) & 0xF) ^ 0x8) - 0x8);
  }
};
template <>
struct Element<DType::kUInt4> {
  using Storage = uint8_t;
  using Compute = int64_t;
  static int64_t Load(uint8_t v) { return v; }
  static uint8_t Store(int64_t v) { return static_cast<uint8_t>(static_cast<uint64_t>(v) & 0xF); }
};

template <DType D>
using StorageOf = typename Element<D>::Storage;
template <DType D>
using ComputeOf = typename Element<D>::Compute;

template <DType D>
using DTypeTag = std::integral_constant<DType, D>;

// Calls f(DTypeTag<D>{}) for the runtime dtype `d`.
template <typename F>
decltype(auto) DispatchDType(DType d, F&& f) {
  switch (d) {
    case DType::kBool:
      return f(DTypeTag<DType::kBool>{});
    case DType::kInt8:
      return f(DTypeTag<DType::kInt8>{});
    case DType::kUInt8:
      return f(DTypeTag<DType::kUInt8>{});
    case DType::kInt16:
      return f(DTypeTag<DType::kInt16>{});
    case DType::kUInt16:
      return f(DTypeTag<DType::kUInt16>{});
    case DType::kInt32:
      return f(DTypeTag<DType::kInt32>{});
    case DType::kUInt32:
      return f(DTypeTag<DType::kUInt32>{});
    case DType::kBFloat16:
      return f(DTypeTag<DType::kBFloat16>{});
    case DType::kFloat16:
      return f(DTypeTag<DType::kFloat16>{});
    case DType::kFloat32:
      return f(DTypeTag<DType::kFloat32>{});
    case DType::kInt4:
      return f(DTypeTag<DType::kInt4>{});
    case DType::kUInt4:
      return f(DTypeTag<DType::kUInt4>{});
  }
  PZ_UNREACHABLE();
}

// Converts a compute value of one kind to the compute value stored in dtype `To`, with
// convert_element_type semantics (float→int saturates, NaN→0; anything→bool is `!= 0`).
template <DType To, typename From>
ComputeOf<To> ConvertCompute(From v) {
  using C = ComputeOf<To>;
  if constexpr (std::is_same_v<C, bool>) {
    return v != From{};
  } else if constexpr (std::is_same_v<C, float>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_floating_point_v<From>) {
    using S = StorageOf<To>;
    if (std::isnan(v)) return 0;
    // The dtype's range (a 4-bit type's, not its storage byte's).
    constexpr double lo = To == DType::kInt4 ? -8.0
                          : To == DType::kUInt4
                              ? 0.0
                              : static_cast<double>(std::numeric_limits<S>::min());
    constexpr double hi = To == DType::kInt4 ? 7.0
                          : To == DType::kUInt4
                              ? 15.0
                              : static_cast<double>(std::numeric_limits<S>::max());
    double t = std::trunc(static_cast<double>(v));
    if (t <= lo) return static_cast<int64_t>(lo);
    if (t >= hi) return static_cast<int64_t>(hi);
    return static_cast<int64_t>(t);
  } else {
    return static_cast<int64_t>(v);
  }
}

}  // namespace pz::array
