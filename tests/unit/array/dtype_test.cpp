#include "array/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "array/array.h"

namespace pz::array {
namespace {

constexpr DType kTypes[] = {DType::kBool,  DType::kUInt8,    DType::kInt8,    DType::kUInt32,
                            DType::kInt32, DType::kBFloat16, DType::kFloat16, DType::kFloat32};

// jnp.promote_types(row, column) for kTypes, printed by JAX 0.10.2 (32-bit mode).
constexpr DType kExpected[8][8] = {
    {DType::kBool, DType::kUInt8, DType::kInt8, DType::kUInt32, DType::kInt32, DType::kBFloat16,
     DType::kFloat16, DType::kFloat32},
    {DType::kUInt8, DType::kUInt8, DType::kInt16, DType::kUInt32, DType::kInt32, DType::kBFloat16,
     DType::kFloat16, DType::kFloat32},
    {DType::kInt8, DType::kInt16, DType::kInt8, DType::kInt32, DType::kInt32, DType::kBFloat16,
     DType::kFloat16, DType::kFloat32},
    {DType::kUInt32, DType::kUInt32, DType::kInt32, DType::kUInt32, DType::kInt32, DType::kBFloat16,
     DType::kFloat16, DType::kFloat32},
    {DType::kInt32, DType::kInt32, DType::kInt32, DType::kInt32, DType::kInt32, DType::kBFloat16,
     DType::kFloat16, DType::kFloat32},
    {DType::kBFloat16, DType::kBFloat16, DType::kBFloat16, DType::kBFloat16, DType::kBFloat16,
     DType::kBFloat16, DType::kFloat32, DType::kFloat32},
    {DType::kFloat16, DType::kFloat16, DType::kFloat16, DType::kFloat16, DType::kFloat16,
     DType::kFloat32, DType::kFloat16, DType::kFloat32},
    {DType::kFloat32, DType::kFloat32, DType::kFloat32, DType::kFloat32, DType::kFloat32,
     DType::kFloat32, DType::kFloat32, DType::kFloat32},
};

// Storage of 256 bytes or more starts on a cache line, whether fresh, zeroed or recycled by the
// per-thread cache of large blocks (so vector loads of its rows do not straddle two lines).
TEST(Array, LargeStorageStartsOnACacheLine) {
  for (int round = 0; round < 3; ++round) {
    for (int64_t n : {64, 1000, 16 * 1024, 128 * 128, 1 << 20}) {
      Array empty = Array::Empty(DType::kFloat32, {n});
      Array zeros = Array::Zeros(DType::kFloat32, {n});
      EXPECT_EQ(reinterpret_cast<uintptr_t>(empty.raw()) % 64, 0u) << n;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(zeros.raw()) % 64, 0u) << n;
      EXPECT_EQ(zeros.GetDouble(n - 1), 0.0);
    }
  }
}

TEST(DType, PromotionMatchesJaxLattice) {
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(PromoteTypes(kTypes[i], kTypes[j]), kExpected[i][j])
          << DTypeName(kTypes[i]) << " + " << DTypeName(kTypes[j]);
    }
  }
}

TEST(DType, WeakPythonScalarsKeepTheArrayType) {
  // x_bf16 * 2.0 stays bf16; int32 + 1.5 is float32; uint8 + 1 stays uint8; bool + 1 is int32.
  EXPECT_EQ(Promote({DType::kBFloat16}, {DType::kFloat32, true}).dtype, DType::kBFloat16);
  EXPECT_EQ(Promote({DType::kInt32}, {DType::kFloat32, true}).dtype, DType::kFloat32);
  EXPECT_EQ(Promote({DType::kUInt8}, {DType::kInt32, true}).dtype, DType::kUInt8);
  EXPECT_EQ(Promote({DType::kBool}, {DType::kInt32, true}).dtype, DType::kInt32);
  EXPECT_FALSE(Promote({DType::kUInt8}, {DType::kInt32, true}).weak);
  EXPECT_TRUE(Promote({DType::kInt32, true}, {DType::kFloat32, true}).weak);
}

TEST(DType, SixtyFourBitNamesNarrowToThirtyTwoBits) {
  EXPECT_EQ(ParseDTypeName("float64"), DType::kFloat32);
  EXPECT_EQ(ParseDTypeName("int64"), DType::kInt32);
  EXPECT_EQ(ParseDTypeName("uint64"), DType::kUInt32);
  EXPECT_FALSE(ParseDTypeName("complex64").has_value());
}

TEST(DType, SixteenBitFloatsRoundToNearestEven) {
  // 1 + 2^-8 is halfway between two bf16 values: it rounds to the even one, 1.0.
  EXPECT_EQ(RoundToDType(1.0f + 1.0f / 256, DType::kBFloat16), 1.0f);
  EXPECT_EQ(RoundToDType(1.0f + 3.0f / 256, DType::kBFloat16), 1.0f + 4.0f / 256);
  EXPECT_EQ(RoundToDType(65504.0f, DType::kFloat16), 65504.0f);
  EXPECT_TRUE(std::isinf(RoundToDType(70000.0f, DType::kFloat16)));
  EXPECT_EQ(RoundToDType(5.96046448e-8f, DType::kFloat16), 5.96046448e-8f);  // smallest subnormal
  EXPECT_TRUE(std::isnan(RoundToDType(std::nanf(""), DType::kBFloat16)));
}

}  // namespace
}  // namespace pz::array
