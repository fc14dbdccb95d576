// Float sums, means and products in JAX's CPU order (array/reduce_order.h), against results of
// real JAX on operands both sides build from one integer formula
// (tests/tools/gen_reduce_order_expected.py). Cases marked exact must match bit for bit; the
// others are orders we only approximate, held to 2 ulp.
#include "array/reduce_order.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <vector>

#include "array/reduce.h"
#include "unit/array/jax_cases.h"

namespace pz::array::testing {
namespace {

struct ReduceOrderCase {
  const char* name;
  ReduceOp op;
  DType dtype;
  Shape shape;
  std::optional<std::vector<int>> axes;
  uint64_t seed;
  float scale;
  float bias;
  bool exact;
  std::vector<uint32_t> expected_bits;
};

#include "unit/array/reduce_order_expected.inc"

void PrintTo(const ReduceOrderCase& c, std::ostream* os) { *os << c.name; }

// The generator's operand: element i from a 24-bit hash, in float32 arithmetic.
Array MakeOperand(const ReduceOrderCase& c) {
  int64_t size = 1;
  for (int64_t d : c.shape) size *= d;
  std::vector<double> values(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    uint64_t m = ((static_cast<uint64_t>(i) * 2654435761u + c.seed * 40503u) % (1ull << 32)) >> 8;
    float v = static_cast<float>(static_cast<int64_t>(m) - (1 << 23)) / static_cast<float>(1 << 23);
    values[static_cast<size_t>(i)] = v * c.scale + c.bias;
  }
  return Array::FromDoubles(DType::kFloat32, c.shape, values).AsType(c.dtype);
}

class ReduceOrderMatchesJax : public ::testing::TestWithParam<ReduceOrderCase> {};

TEST_P(ReduceOrderMatchesJax, Case) {
  const ReduceOrderCase& c = GetParam();
  Array result = Reduce(c.op, MakeOperand(c), c.axes, false).AsType(DType::kFloat32).Contiguous();
  ASSERT_EQ(static_cast<size_t>(result.size()), c.expected_bits.size());
  const float* got = result.data<float>();
  int64_t worst = 0;
  for (size_t i = 0; i < c.expected_bits.size(); ++i) {
    float want = std::bit_cast<float>(c.expected_bits[i]);
    int64_t ulps = UlpDistance(want, got[i], c.dtype);
    worst = std::max(worst, ulps);
    if (c.exact) {
      EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), c.expected_bits[i]) << "output " << i;
    }
  }
  EXPECT_LE(worst, 2) << "largest distance from JAX, in ulp of " << DTypeName(c.dtype);
}

INSTANTIATE_TEST_SUITE_P(Jax, ReduceOrderMatchesJax, ::testing::ValuesIn(kReduceOrderCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ReduceOrder, XlaWindowsPadTheSmallerHalfInFront) {
  // 33 elements: one window of 32 (padding 15 in front, 16 behind) holds elements 0..16, the
  // second holds 17..32; with 2^24 first, the ones of the first window vanish one by one, but
  // the 16 ones of the second window are summed first and survive.
  std::vector<float> x(33, 1.0f);
  x[0] = 16777216.0f;
  std::vector<int64_t> dims{33};
  EXPECT_EQ(XlaTreeReduce(x.data(), 1, dims, false), 16777216.0f + 16.0f);
}

TEST(ReduceOrder, EmptyReductionsGiveTheIdentity) {
  std::vector<int64_t> dims{0, 100};
  EXPECT_EQ(XlaTreeReduce(nullptr, 1, dims, false), 0.0f);
  EXPECT_EQ(XlaTreeReduce(nullptr, 1, dims, true), 1.0f);
  Array empty = Array::Zeros(DType::kFloat32, {0, 100});
  EXPECT_EQ(Reduce(ReduceOp::kSum, empty, std::nullopt, false).GetDouble(0), 0.0);
  EXPECT_EQ(Reduce(ReduceOp::kProd, empty, std::vector<int>{0}, false).size(), 100);
}

TEST(ReduceOrder, YnnpackRowsAddLaneByHalves) {
  // Lane 8 meets lane 0 before lanes 4 and 12 (already summed) do.
  std::vector<float> x(16, 0.0f);
  x[0] = 33554432.0f;  // 2^25
  x[8] = -33554432.0f;
  x[4] = 1.0f;
  EXPECT_EQ(YnnRowSum(x.data(), 16), 1.0f);
  x[8] = 0.0f;
  x[4] = -33554432.0f;
  x[12] = 1.0f;  // 2^25 + (-2^25 + 1): the one is lost inside the lane 4 + lane 12 sum
  EXPECT_EQ(YnnRowSum(x.data(), 16), 0.0f);
}

TEST(ReduceOrder, YnnpackSumsKeepInfinities) {
  // Kahan's compensation of an infinite total is inf - inf; dropped there, the sums are what JAX
  // 0.10.2 prints for these 8192 elements: -inf, nan, inf, inf, -inf, nan.
  constexpr int64_t n = 8192;
  const float inf = std::numeric_limits<float>::infinity();
  auto sum = [](const std::vector<float>& x) {
    std::vector<double> values(x.begin(), x.end());
    Array a = Array::FromDoubles(DType::kFloat32, {static_cast<int64_t>(x.size())}, values);
    return static_cast<float>(Reduce(ReduceOp::kSum, a, std::nullopt, false).GetDouble(0));
  };
  std::vector<float> a(n), b(n), c(n, 1e35f), d(n, 1.0f), e(n, 2.0f), f(n);
  for (int64_t i = 0; i < n; ++i) {
    a[static_cast<size_t>(i)] = i % 7 == 0 ? -inf : 1.0f;
    f[static_cast<size_t>(i)] = i < n / 2 ? 3e38f : -3e38f;
  }
  b = a;
  b[5000] = inf;
  d[100] = inf;
  e[8000] = -inf;
  EXPECT_EQ(sum(a), -inf);
  EXPECT_TRUE(std::isnan(sum(b)));
  EXPECT_EQ(sum(c), inf);
  EXPECT_EQ(sum(d), inf);
  EXPECT_EQ(sum(e), -inf);
  EXPECT_TRUE(std::isnan(sum(f)));
  // Down the columns too: (64, 128) with -inf in every column.
  std::vector<double> rows(a.begin(), a.end());
  Array m = Array::FromDoubles(DType::kFloat32, {64, 128}, rows);
  Array columns = Reduce(ReduceOp::kSum, m, std::vector<int>{0}, false);
  for (int64_t j = 0; j < 128; ++j) EXPECT_EQ(columns.GetDouble(j), -inf) << "column " << j;
}

TEST(ReduceOrder, PathChoiceFollowsXlasElementThreshold) {
  EXPECT_FALSE(SumUsesYnnpack(4095));
  EXPECT_TRUE(SumUsesYnnpack(4096));
}

}  // namespace
}  // namespace pz::array::testing
