// Element types of arrays and JAX's type promotion. JAX runs in 32-bit mode by default, so there
// are no 64-bit types: requests for float64/int64 become float32/int32, as in JAX without x64.
// bfloat16 and float16 are stored as 16-bit patterns and computed in float32, rounding back to
// nearest-even after every operation.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace pz::array {

enum class DType : uint8_t {
  kBool,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kBFloat16,
  kFloat16,
  kFloat32,
  // 4-bit integers, one per byte here (a TPU packs them; JAX's arrays of them are ml_dtypes').
  kInt4,
  kUInt4,
};

inline constexpr int kNumDTypes = 12;

// "float32", "bfloat16", "int32", "bool", ...
std::string_view DTypeName(DType dtype);
// Parses a dtype name as JAX/numpy accept it ("float32", "f32"? no: only numpy names), mapping
// 64-bit names to their 32-bit counterparts ("float64" → float32, "int64" → int32,
// "uint64" → uint32). nullopt for unknown names.
std::optional<DType> ParseDTypeName(std::string_view name);
// Bytes per element (inline: every array access asks).
inline constexpr size_t ItemSize(DType dtype) {
  switch (dtype) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt4:
    case DType::kUInt4:
      return 1;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kBFloat16:
    case DType::kFloat16:
      return 2;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kFloat32:
      return 4;
  }
  return 4;
}
bool IsFloating(DType dtype);
bool IsInteger(DType dtype);   // signed or unsigned, not bool
bool IsUnsigned(DType dtype);  // uint4/8/16/32
bool IsBool(DType dtype);

// The type of an operand for promotion: a concrete dtype, or a weakly typed Python scalar
// (`x * 2.0`), whose kind only matters when it meets a concrete type.
struct TypeInfo {
  DType dtype;
  bool weak = false;
};

// JAX's promotion lattice (jnp.promote_types) for two concrete types, e.g. uint8+int8 → int16,
// bfloat16+float16 → float32, int32+bfloat16 → bfloat16.
DType PromoteTypes(DType a, DType b);
// Promotion with weak types: a weak int meets T → T (bool → int32), a weak float meets an integer
// or bool → float32, a weak float meets a float type → that type. The result is weak only if
// both are weak.
TypeInfo Promote(TypeInfo a, TypeInfo b);

// ---- 16-bit float conversions (round to nearest even; NaN stays NaN) --------------------------

uint16_t FloatToBFloat16Bits(float value);
float BFloat16BitsToFloat(uint16_t bits);
uint16_t FloatToHalfBits(float value);
float HalfBitsToFloat(uint16_t bits);

// Rounds a float32 value to the precision of `dtype` (identity for float32).
float RoundToDType(float value, DType dtype);

}  // namespace pz::array
