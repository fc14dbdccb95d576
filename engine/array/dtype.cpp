// Dtype names, sizes, JAX's promotion lattice, and bfloat16/float16 bit conversions.
#include "array/dtype.h"

#include <fmt/format.h>

#include <cmath>

#include "array/array.h"

namespace pz::array {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "bool";
    case DType::kInt8:
      return "int8";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt16:
      return "int16";
    case DType::kUInt16:
      return "uint16";
    case DType::kInt32:
      return "int32";
    case DType::kUInt32:
      return "uint32";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat32:
      return "float32";
    case DType::kInt4:
      return "int4";
    case DType::kUInt4:
      return "uint4";
  }
  return "?";
}

std::optional<DType> ParseDTypeName(std::string_view name) {
  struct Entry {
    std::string_view name;
    DType dtype;
  };
  static constexpr Entry kNames[] = {
      {"bool", DType::kBool},       {"bool_", DType::kBool},        {"int8", DType::kInt8},
      {"uint8", DType::kUInt8},     {"int16", DType::kInt16},       {"uint16", DType::kUInt16},
      {"int32", DType::kInt32},     {"uint32", DType::kUInt32},     {"int64", DType::kInt32},
      {"uint64", DType::kUInt32},   {"bfloat16", DType::kBFloat16}, {"float16", DType::kFloat16},
      {"float32", DType::kFloat32}, {"float64", DType::kFloat32},   {"int", DType::kInt32},
      {"float", DType::kFloat32},   {"int_", DType::kInt32},        {"float_", DType::kFloat32},
      {"int4", DType::kInt4},       {"uint4", DType::kUInt4},
  };
  for (const Entry& e : kNames) {
    if (e.name == name) return e.dtype;
  }
  return std::nullopt;
}

bool IsFloating(DType d) {
  return d == DType::kBFloat16 || d == DType::kFloat16 || d == DType::kFloat32;
}
bool IsUnsigned(DType d) {
  return d == DType::kUInt4 || d == DType::kUInt8 || d == DType::kUInt16 || d == DType::kUInt32;
}
bool IsInteger(DType d) { return !IsFloating(d) && d != DType::kBool; }
bool IsBool(DType d) { return d == DType::kBool; }

namespace {

int SignedBits(DType d) {
  switch (d) {
    case DType::kInt4:
      return 4;
    case DType::kInt8:
      return 8;
    case DType::kInt16:
      return 16;
    case DType::kInt32:
      return 32;
    default:
      return 0;
  }
}
int UnsignedBits(DType d) {
  switch (d) {
    case DType::kUInt4:
      return 4;
    case DType::kUInt8:
      return 8;
    case DType::kUInt16:
      return 16;
    case DType::kUInt32:
      return 32;
    default:
      return 0;
  }
}
DType SignedOfBits(int bits) {
  if (bits <= 8) return DType::kInt8;
  if (bits <= 16) return DType::kInt16;
  return DType::kInt32;  // int64 is canonicalised to int32 in JAX's 32-bit mode
}

bool IsFourBit(DType d) { return d == DType::kInt4 || d == DType::kUInt4; }

// JAX keeps 4-bit integers out of implicit promotion: only bool and weak ints meet them.
[[noreturn]] void FourBitPromotionError(std::string_view other, DType four_bit) {
  throw ArrayError{
      ArrayError::Kind::kTypePromotion,
      fmt::format(
          "Input dtypes ({}, '{}') have no available implicit dtype promotion path. To avoid "
          "unintended promotion, 1-bit, 2-bit and 4-bit integers do not support implicit "
          "promotion. If you'd like your inputs to be promoted to another type, you can do so "
          "explicitly using e.g. x.astype('int32')",
          other, DTypeName(four_bit))};
}

}  // namespace

DType PromoteTypes(DType a, DType b) {
  if (a == b) return a;
  if (IsBool(a)) return b;
  if (IsBool(b)) return a;
  if (IsFourBit(a) || IsFourBit(b)) {
    // JAX names the other operand's dtype first (for two 4-bit types, the right one).
    bool both = IsFourBit(a) && IsFourBit(b);
    DType other = both ? b : IsFourBit(b) ? a : b;
    DType four_bit = both ? a : IsFourBit(b) ? b : a;
    FourBitPromotionError(fmt::format("'{}'", DTypeName(other)), four_bit);
  }
  if (IsFloating(a) || IsFloating(b)) {
    if (!IsFloating(a)) return b;
    if (!IsFloating(b)) return a;
    // Two different float types: bfloat16 and float16 meet at float32.
    return DType::kFloat32;
  }
  bool ua = IsUnsigned(a), ub = IsUnsigned(b);
  if (ua && ub) return UnsignedBits(a) >= UnsignedBits(b) ? a : b;
  if (!ua && !ub) return SignedBits(a) >= SignedBits(b) ? a : b;
  // Mixed signedness: the smallest signed type holding both (uint32 + int → int64 → int32).
  int unsigned_bits = ua ? UnsignedBits(a) : UnsignedBits(b);
  int signed_bits = ua ? SignedBits(b) : SignedBits(a);
  return SignedOfBits(std::max(unsigned_bits * 2, signed_bits));
}

TypeInfo Promote(TypeInfo a, TypeInfo b) {
  if (a.weak && b.weak) {
    // Two Python scalars: the wider kind wins, still weak.
    DType d = PromoteTypes(a.dtype, b.dtype);
    return TypeInfo{d, true};
  }
  if (a.weak) std::swap(a, b);  // now b is the weak one, if any
  if (!b.weak) return TypeInfo{PromoteTypes(a.dtype, b.dtype), false};
  // a is concrete, b is a weak Python scalar of kind bool/int/float.
  if (IsBool(b.dtype)) return a;
  if (IsInteger(b.dtype)) {
    if (IsBool(a.dtype)) return TypeInfo{DType::kInt32, true};
    return a;
  }
  // weak float
  if (IsFourBit(a.dtype)) FourBitPromotionError("\"<class 'float'>\"", a.dtype);
  if (IsFloating(a.dtype)) return a;
  return TypeInfo{DType::kFloat32, true};
}

// ---- 16-bit floats -----------------------------------------------------------------------------

uint16_t FloatToBFloat16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float BFloat16BitsToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint16_t FloatToHalfBits(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint32_t sign = (f >> 16) & 0x8000;
  uint32_t abs = f & 0x7FFFFFFF;
  if (abs > 0x7F800000) return static_cast<uint16_t>(sign | 0x7E00);   // NaN
  if (abs >= 0x477FF000) return static_cast<uint16_t>(sign | 0x7C00);  // overflow → inf
  if (abs < 0x38800000) {
    // Subnormal or zero in half precision: round the value scaled by 2^24 to an integer.
    float magnitude;
    std::memcpy(&magnitude, &abs, 4);
    auto scaled = static_cast<uint32_t>(std::nearbyint(magnitude * 16777216.0f));
    return static_cast<uint16_t>(sign | scaled);
  }
  // Normal: rebias the exponent (127 → 15) and round the mantissa to 10 bits, ties to even.
  uint32_t mantissa_rounding = 0xFFF + ((abs >> 13) & 1);
  uint32_t rounded = abs + mantissa_rounding;
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000) >> 13));
}

float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  uint32_t bits;
  if (exponent == 0) {
    float magnitude = static_cast<float>(mantissa) / 16777216.0f;  // mantissa × 2^-24
    std::memcpy(&bits, &magnitude, 4);
    bits |= sign;
  } else if (exponent == 31) {
    bits = sign | 0x7F800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

float RoundToDType(float value, DType dtype) {
  switch (dtype) {
    case DType::kBFloat16:
      return BFloat16BitsToFloat(FloatToBFloat16Bits(value));
    case DType::kFloat16:
      return HalfBitsToFloat(FloatToHalfBits(value));
    default:
      return value;
  }
}

}  // namespace pz::array
