// RunChain (array/fused_rows.h) against the same ops run one after the other with Binary, Unary
// and Reduce: bit for bit, over values that take every path of the kernels (NaN, infinities,
// signed zeros, exp overflowing and underflowing to subnormals), operands broadcast along either
// axis or as scalars, rows longer than a piece, in place and into a separate array. The suite
// runs on every instruction set (tests/unit/CMakeLists.txt), so the scalar rows are checked too.
#include "array/fused_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "array/shape_ops.h"

namespace pz::array::testing {
namespace {

// Floats of `shape`: mostly in [-30, 30], with a sprinkling of the values kernels treat apart.
Array Values(const Shape& shape, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(-30.0, 30.0);
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             0.0,
                             -0.0,
                             95.0,    // exp overflows
                             -95.0,   // exp is subnormal (flushed to zero)
                             -87.5,   // exp is near the smallest normal
                             1e-40};  // a subnormal operand
  std::vector<double> values(static_cast<size_t>(NumElements(shape)));
  for (double& v : values) {
    v = random() % 11 == 0 ? specials[random() % std::size(specials)] : uniform(random);
  }
  return Array::FromDoubles(DType::kFloat32, shape, values);
}

bool SameBits(const Array& a, const Array& b) {
  Array x = a.Contiguous(), y = b.Contiguous();
  return SameDims(x.shape(), y.shape()) &&
         std::memcmp(x.raw(), y.raw(), static_cast<size_t>(x.size()) * sizeof(float)) == 0;
}

// The steps one after the other, as the executor runs them without fusing.
Array Apart(const Array& source, const std::vector<ChainStep>& steps) {
  Array v = source;
  for (const ChainStep& step : steps) {
    if (step.unary) {
      v = Unary(*step.unary, v);
    } else {
      v = step.other_first ? Binary(step.binary, *step.other, v)
                           : Binary(step.binary, v, *step.other);
    }
  }
  return v;
}

struct Case {
  const char* name;
  Shape shape;
  Shape other_shape;  // the binary steps' other operand
};

TEST(FusedRows, ChainAndItsReductionsEqualTheOpsOneAfterAnother) {
  const Case cases[] = {
      {"row_broadcast_column", {128, 128}, {128, 1}},
      {"column_broadcast_row", {6, 200}, {200}},
      {"scalar", {5, 3, 40}, {}},
      {"same_shape", {9, 64}, {9, 64}},
      {"long_rows_in_pieces", {3, 2500}, {3, 1}},
      {"one_long_row", {5000}, {5000}},
      {"big_enough_for_ynnpack_sums", {40, 128}, {40, 1}},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Array source = Values(c.shape, seed++);
    Array m = Values(c.other_shape, seed++);
    Array k = Values(c.other_shape, seed++);
    // exp(max(source - m, k) * m) + k, and (k - exp(-|source|)) * source's square's min with m.
    const std::vector<std::vector<ChainStep>> chains = {
        {{.binary = BinaryOp::kSub, .other = &m},
         {.binary = BinaryOp::kMaximum, .other = &k, .other_first = true},
         {.binary = BinaryOp::kMul, .other = &m},
         {.unary = UnaryOp::kExp},
         {.binary = BinaryOp::kAdd, .other = &k}},
        {{.unary = UnaryOp::kAbs},
         {.unary = UnaryOp::kNeg},
         {.unary = UnaryOp::kExp},
         {.binary = BinaryOp::kSub, .other = &k, .other_first = true},
         {.unary = UnaryOp::kSquare},
         {.binary = BinaryOp::kMinimum, .other = &m}},
        {{.unary = UnaryOp::kExp}},
    };
    for (size_t i = 0; i < chains.size(); ++i) {
      SCOPED_TRACE(i);
      Array want = Apart(source, chains[i]);
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
        SCOPED_TRACE(static_cast<int>(op));
        std::optional<LastAxisReduction> reduction = LastAxisReduction::For(
            op, DType::kFloat32, c.shape, std::vector<int>{static_cast<int>(c.shape.size()) - 1},
            std::nullopt);
        ASSERT_TRUE(reduction);
        Array reduced =
            Reduce(op, want, std::vector<int>{static_cast<int>(c.shape.size()) - 1}, false);
        Shape reduced_shape(c.shape.begin(), c.shape.end() - 1);
        // Into a separate array, and in place (into a copy of the source).
        for (bool in_place : {false, true}) {
          Array copy = Array::FromDoubles(DType::kFloat32, c.shape, source.ToDoubles());
          Array out = in_place ? copy : Array::Empty(DType::kFloat32, c.shape);
          Array tap = Array::Empty(DType::kFloat32, reduced_shape);
          ChainTap taps[] = {{*reduction, tap.data<float>()}};
          ASSERT_TRUE(RunChain(in_place ? copy : source, chains[i], out, taps));
          EXPECT_TRUE(SameBits(out, want)) << (in_place ? "in place" : "apart");
          EXPECT_TRUE(SameBits(tap, reduced)) << (in_place ? "in place" : "apart");
        }
      }
    }
  }
}

// A source read through strides along its rows is left to the ops apart; a transposed view
// whose rows are contiguous again is not.
TEST(FusedRows, DeclinesASourceStridedAlongItsRowsAndWritesNothing) {
  Array a = Values({64, 32}, 40);
  Array m = Values({32, 1}, 41);
  Array columns = Transpose(a);  // (32, 64), its rows step by 32
  Array out = Array::Zeros(DType::kFloat32, {32, 64});
  ChainStep steps[] = {{.binary = BinaryOp::kSub, .other = &m}, {.unary = UnaryOp::kExp}};
  EXPECT_FALSE(RunChain(columns, steps, out, {}));
  EXPECT_TRUE(SameBits(out, Array::Zeros(DType::kFloat32, {32, 64})));
  Array twice = Transpose(columns);  // (64, 32) with contiguous rows again
  Array m_row = Values({32}, 42);
  ChainStep row_steps[] = {{.binary = BinaryOp::kSub, .other = &m_row}, {.unary = UnaryOp::kExp}};
  Array out2 = Array::Empty(DType::kFloat32, {64, 32});
  ASSERT_TRUE(RunChain(twice, row_steps, out2, {}));
  EXPECT_TRUE(SameBits(out2, Apart(a, {row_steps[0], row_steps[1]})));
}

TEST(FusedRows, ChainsOnlyOpsThatDependOnTheirElementAlone) {
  for (BinaryOp op :
       {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kMaximum, BinaryOp::kMinimum}) {
    EXPECT_TRUE(Chainable(op));
  }
  // Division by a broadcast operand multiplies by its reciprocal (two roundings), comparisons
  // give bool.
  for (BinaryOp op : {BinaryOp::kDiv, BinaryOp::kPow, BinaryOp::kLt, BinaryOp::kMod}) {
    EXPECT_FALSE(Chainable(op));
  }
  EXPECT_TRUE(Chainable(UnaryOp::kExp));
  EXPECT_FALSE(Chainable(UnaryOp::kTanh));
  EXPECT_FALSE(Chainable(UnaryOp::kIsNan));
}

}  // namespace
}  // namespace pz::array::testing
