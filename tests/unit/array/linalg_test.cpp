// dot_general, jnp.dot, jnp.matmul and jnp.einsum against real JAX 0.10.2 (cases generated into
// random_linalg_expected.inc): exact for integer, bool and 16-bit float results and for float32
// products of exactly representable inputs, within 1e-5 relative for float32 sums of sines.
#include "array/linalg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>

#include "array/elementwise.h"
#include "array/shape_ops.h"
#include "unit/array/random_linalg_expected.h"

namespace pz::array {
namespace {

using expected::kLinalgCases;
using expected::LinalgCase;

// Mirrors make_input in tests/tools/gen_random_linalg_expected.py.
Array MakeInput(const Shape& shape, DType dtype, int salt, int kind) {
  int64_t n = NumElements(shape);
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t grid = (i * 37 + salt * 11) % 101;
    if (IsBool(dtype)) {
      values[i] = (i * 37 + salt) % 3 == 0 ? 1.0 : 0.0;
    } else if (IsInteger(dtype)) {
      values[i] = static_cast<double>(grid - (IsUnsigned(dtype) ? 0 : 50));
    } else if (kind == 0) {
      values[i] = static_cast<double>(grid - 50) / 16.0;
    } else {
      values[i] = static_cast<float>(std::sin(static_cast<double>(i) * 0.37 + salt));
    }
  }
  if (IsFloating(dtype)) return Array::FromDoubles(DType::kFloat32, shape, values).AsType(dtype);
  return Array::FromDoubles(dtype, shape, values);
}

std::vector<int> ParseAxes(const std::string& text) {
  std::vector<int> axes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) axes.push_back(std::stoi(item));
  }
  return axes;
}

DotDimensionNumbers ParseDims(const std::string& spec) {
  std::vector<std::string> parts;
  std::stringstream in(spec);
  std::string part;
  while (std::getline(in, part, '|')) parts.push_back(part);
  parts.resize(4);
  return {.lhs_contracting = ParseAxes(parts[0]),
          .rhs_contracting = ParseAxes(parts[1]),
          .lhs_batch = ParseAxes(parts[2]),
          .rhs_batch = ParseAxes(parts[3])};
}

Array RunCase(const LinalgCase& c) {
  std::vector<Array> xs;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    xs.push_back(
        MakeInput(c.shapes[i], *ParseDTypeName(c.dtypes[i]), static_cast<int>(i), c.input_kind));
  }
  std::optional<DType> pref;
  if (*c.pref != '\0') pref = ParseDTypeName(c.pref);
  std::string op = c.op;
  if (op == "dot") return Dot(xs[0], xs[1], pref);
  if (op == "matmul") return Matmul(xs[0], xs[1], pref);
  if (op == "einsum") return Einsum(c.spec, xs[0], xs[1], pref);
  if (op == "einsum1") return Einsum(c.spec, xs[0], pref);
  return DotGeneral(xs[0], xs[1], ParseDims(c.spec), pref);
}

std::string Name(const LinalgCase& c) {
  std::string name = std::string(c.op) + "(" + c.spec;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    name += std::string(" ") + c.dtypes[i] + ShapeToString(c.shapes[i]);
  }
  return name + (*c.pref ? std::string(" -> ") + c.pref : "") + ")";
}

TEST(Linalg, ProductsMatchJax) {
  for (const LinalgCase& c : kLinalgCases) {
    Array out = RunCase(c);
    ASSERT_EQ(out.shape(), c.out_shape) << Name(c);
    EXPECT_EQ(DTypeName(out.dtype()), c.out_dtype) << Name(c);
    std::vector<double> got = out.ToDoubles();
    ASSERT_EQ(got.size(), c.expected.size()) << Name(c);
    bool exact = out.dtype() != DType::kFloat32 || c.input_kind == 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (exact) {
        EXPECT_EQ(got[i], c.expected[i]) << Name(c) << " element " << i;
      } else {
        EXPECT_NEAR(got[i], c.expected[i], 1e-5 * std::max(1.0, std::fabs(c.expected[i])))
            << Name(c) << " element " << i;
      }
    }
  }
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ArrayError& e) {
    return e.message;
  }
  return "no error";
}

Array F32(Shape shape) { return Array::Zeros(DType::kFloat32, std::move(shape)); }

TEST(Linalg, DotOfMismatchedShapesNamesBoth) {
  EXPECT_EQ(ErrorOf([] {
              Dot(F32({8, 16}), F32({32, 4}), std::nullopt);
            }),
            "`jnp.dot` cannot contract shapes (8, 16) and (32, 4): 16 != 32");
}

TEST(Linalg, MatmulOfScalarIsAnError) {
  EXPECT_EQ(ErrorOf([] { Matmul(F32({}), F32({3}), std::nullopt); }),
            "`jnp.matmul` operand 0 must have at least 1 dimension, got shape ()");
}

TEST(Linalg, MatmulBatchAxesMustBroadcast) {
  EXPECT_EQ(ErrorOf([] {
              Matmul(F32({2, 3, 4}), F32({5, 4, 2}), std::nullopt);
            }),
            "`jnp.matmul` cannot broadcast the batch axes of shapes (2, 3, 4) and (5, 4, 2)");
}

TEST(Linalg, DotGeneralRejectsRepeatedAndOutOfRangeAxes) {
  DotDimensionNumbers repeated{
      .lhs_contracting = {1}, .rhs_contracting = {0}, .lhs_batch = {1}, .rhs_batch = {1}};
  EXPECT_NE(ErrorOf([&] {
              DotGeneral(F32({3, 4}), F32({4, 4}), repeated, std::nullopt);
            }).find("more than once"),
            std::string::npos);
  DotDimensionNumbers out_of_range{.lhs_contracting = {2}, .rhs_contracting = {0}};
  EXPECT_NE(ErrorOf([&] {
              DotGeneral(F32({3, 4}), F32({4, 4}), out_of_range, std::nullopt);
            }).find("out of bounds"),
            std::string::npos);
}

TEST(Linalg, EinsumErrorsNameTheLabel) {
  EXPECT_EQ(ErrorOf([] {
              Einsum("ij,jk->ik", F32({2, 3}), F32({4, 5}), std::nullopt);
            }),
            "`jnp.einsum` label 'j' has size 3 in operand 0 of shape (2, 3) but 4 in operand 1 "
            "of shape (4, 5)");
  EXPECT_EQ(ErrorOf([] {
              Einsum("ij,jk->iz", F32({2, 3}), F32({3, 5}), std::nullopt);
            }),
            "`jnp.einsum` output label 'z' in 'ij,jk->iz' does not occur in any operand");
  EXPECT_EQ(ErrorOf([] {
              Einsum("ijk,jk->i", F32({2, 3}), F32({3, 5}), std::nullopt);
            }),
            "`jnp.einsum` subscripts 'ijk,jk->i' give operand 0 3 labels, but its shape is (2, 3)");
  EXPECT_EQ(ErrorOf([] {
              Einsum("...ij,...jk", F32({2, 2, 3}), F32({4, 3, 5}), std::nullopt);
            }),
            "`jnp.einsum` cannot broadcast the `...` axes of shapes (2, 2, 3) and (4, 3, 5)");
  EXPECT_EQ(ErrorOf([] {
              Einsum("i1,1k", F32({2, 3}), F32({3, 5}), std::nullopt);
            }),
            "`jnp.einsum` subscripts 'i1,1k' contain an invalid label '1'; use letters");
}

TEST(Linalg, EmptyContractionGivesZeros) {
  Array out = Dot(F32({3, 0}), F32({0, 2}), std::nullopt);
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  for (double v : out.ToDoubles()) EXPECT_EQ(v, 0.0);
}

TEST(Linalg, TransposedViewsAreReadThroughTheirStrides) {
  Array a = Array::FromDoubles(DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Array at = a.View({3, 2}, {1, 3}, 0);  // a.T
  Array out = Dot(at, a, std::nullopt);
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{17, 22, 27, 22, 29, 36, 27, 36, 45}));
}

// An element of a float32 product does not depend on the product's shape: blocks of rows and
// columns of x @ y, multiplied alone, equal the same blocks of the whole product bit for bit (a
// blocked matmul kernel is compared with x @ y at rtol 1e-7 in JAX's own examples). Blocks of one
// row are left out: a vector times a matrix sums in another order. The test prefixes run this on
// each instruction set's GEMM.
TEST(Linalg, BlocksOfAProductEqualTheWholeBitForBit) {
  constexpr int64_t kRows = 96, kCols = 200;
  struct Range {
    int64_t start, size;
  };
  for (int64_t k : {7, 64, 129, 300, 700}) {
    Array x = MakeInput({kRows, k}, DType::kFloat32, 1, 1);
    Array y = MakeInput({k, kCols}, DType::kFloat32, 2, 1);
    std::vector<double> whole = Matmul(x, y, std::nullopt).ToDoubles();
    for (Range rows : {Range{0, kRows}, Range{3, 2}, Range{5, 37}, Range{64, 32}}) {
      for (Range cols : {Range{0, kCols}, Range{0, 1}, Range{17, 8}, Range{33, 48}, Range{100, 17},
                         Range{150, 50}, Range{1, 199}, Range{40, 24}}) {
        Array xs = x.View({rows.size, k}, {k, 1}, rows.start * k).Contiguous();
        Array ys = y.View({k, cols.size}, {kCols, 1}, cols.start).Contiguous();
        std::vector<double> block = Matmul(xs, ys, std::nullopt).ToDoubles();
        int64_t differ = 0;
        for (int64_t i = 0; i < rows.size; ++i) {
          for (int64_t j = 0; j < cols.size; ++j) {
            differ += block[i * cols.size + j] != whole[(rows.start + i) * kCols + cols.start + j];
          }
        }
        EXPECT_EQ(differ, 0) << "k " << k << ", rows " << rows.start << "+" << rows.size
                             << ", columns " << cols.start << "+" << cols.size;
      }
    }
  }
}

// The same for products of many rows (the GEMM packs a^T in several column blocks), with either
// operand transposed (each layout is packed its own way): every block of 128 rows, multiplied
// alone, equals those rows of the whole product bit for bit.
TEST(Linalg, RowBlocksOfALongProductEqualTheWholeBitForBit) {
  constexpr int64_t kRows = 2560, kBlock = 128;
  for (int64_t k : {64, 128}) {
    for (int64_t n : {128, 136, 40}) {
      for (int layout = 0; layout < 4; ++layout) {
        bool a_transposed = (layout & 1) != 0, b_transposed = (layout & 2) != 0;
        Array a = a_transposed
                      ? MakeInput({k, kRows}, DType::kFloat32, 6, 1).View({kRows, k}, {1, kRows}, 0)
                      : MakeInput({kRows, k}, DType::kFloat32, 6, 1);
        Array b = b_transposed ? MakeInput({n, k}, DType::kFloat32, 7, 1).View({k, n}, {1, k}, 0)
                               : MakeInput({k, n}, DType::kFloat32, 7, 1);
        std::vector<double> whole = Matmul(a, b, std::nullopt).ToDoubles();
        int64_t differ = 0;
        for (int64_t start : {int64_t{0}, int64_t{1280}, kRows - kBlock}) {
          Array rows = a.Contiguous().View({kBlock, k}, {k, 1}, start * k).Contiguous();
          std::vector<double> block = Matmul(rows, b, std::nullopt).ToDoubles();
          for (int64_t i = 0; i < kBlock * n; ++i) differ += block[i] != whole[start * n + i];
        }
        EXPECT_EQ(differ, 0) << "k " << k << ", n " << n << (a_transposed ? ", a transposed" : "")
                             << (b_transposed ? ", b transposed" : "");
      }
    }
  }
}

// A product of two matrices takes a short path (no plan, no permuted views); it equals the
// general path, which the same product with a batch axis of one takes, bit for bit, in every
// operand layout, plain and accumulating.
TEST(Linalg, MatrixProductsEqualTheGeneralPath) {
  struct Case {
    int64_t m, k, n;
  };
  for (Case c : {Case{128, 128, 128}, Case{96, 64, 200}, Case{37, 129, 17}, Case{5, 300, 40}}) {
    for (int layout = 0; layout < 4; ++layout) {
      bool a_t = (layout & 1) != 0, b_t = (layout & 2) != 0;
      // a_t: lhs stored k x m (contracting axis 0); b_t: rhs stored n x k (contracting axis 1).
      Array lhs = a_t ? MakeInput({c.k, c.m}, DType::kFloat32, 8, 1)
                      : MakeInput({c.m, c.k}, DType::kFloat32, 8, 1);
      Array rhs = b_t ? MakeInput({c.n, c.k}, DType::kFloat32, 9, 1)
                      : MakeInput({c.k, c.n}, DType::kFloat32, 9, 1);
      DotDimensionNumbers plain{.lhs_contracting = {a_t ? 0 : 1}, .rhs_contracting = {b_t ? 1 : 0}};
      DotDimensionNumbers batched{.lhs_contracting = {a_t ? 1 : 2},
                                  .rhs_contracting = {b_t ? 2 : 1},
                                  .lhs_batch = {0},
                                  .rhs_batch = {0}};
      Array lhs3 = Reshape(lhs, {1, lhs.shape()[0], lhs.shape()[1]});
      Array rhs3 = Reshape(rhs, {1, rhs.shape()[0], rhs.shape()[1]});
      Array got = DotGeneral(lhs, rhs, plain, DType::kFloat32).Contiguous();
      Array want = DotGeneral(lhs3, rhs3, batched, DType::kFloat32).Contiguous();
      std::string where = std::to_string(c.m) + " x " + std::to_string(c.k) + " x " +
                          std::to_string(c.n) + ", layout " + std::to_string(layout);
      ASSERT_EQ(got.size(), want.size()) << where;
      EXPECT_EQ(std::memcmp(got.raw(), want.raw(), static_cast<size_t>(got.size()) * 4), 0)
          << where;
      Array acc = MakeInput({c.m, c.n}, DType::kFloat32, 10, 1).Contiguous();
      Array acc3 = Reshape(acc, {1, c.m, c.n}).Contiguous();
      Array sum = Array::FromDoubles(DType::kFloat32, acc.shape(), acc.ToDoubles());
      Array sum3 = Array::FromDoubles(DType::kFloat32, acc3.shape(), acc3.ToDoubles());
      bool took = DotGeneralAccumulate(lhs, rhs, plain, DType::kFloat32, sum, sum);
      bool took3 = DotGeneralAccumulate(lhs3, rhs3, batched, DType::kFloat32, sum3, sum3);
      EXPECT_EQ(took, took3) << where;
      if (took && took3) {
        EXPECT_EQ(std::memcmp(sum.raw(), sum3.raw(), static_cast<size_t>(sum.size()) * 4), 0)
            << where << ", accumulating";
      }
    }
  }
}

// The executor runs `acc + jnp.dot(a, b)` as one accumulating product where that is exact: each
// accepted case must equal the product followed by the add bit for bit (the addend holds -0.0
// where a row of `a` is zero, whose product is +0.0), and a product of 128-blocks must be
// accepted by every instruction set's GEMM. The test prefixes run this on each of them.
TEST(Linalg, AccumulatingProductEqualsProductThenAdd) {
  struct Case {
    int64_t m, k, n;
    bool transposed_rhs;
  };
  int accepted = 0;
  for (Case c : {Case{128, 128, 128, false}, Case{128, 128, 128, true}, Case{96, 64, 200, false},
                 Case{37, 129, 17, true}, Case{5, 300, 40, false}, Case{64, 256, 256, false},
                 Case{2, 9, 9, false}, Case{16, 2048, 16, false}}) {
    Array a = MakeInput({c.m, c.k}, DType::kFloat32, 3, 1).Contiguous();
    for (int64_t j = 0; j < c.k; ++j) a.data<float>()[j] = 0.0f;
    Array b = c.transposed_rhs
                  ? MakeInput({c.n, c.k}, DType::kFloat32, 4, 1).View({c.k, c.n}, {1, c.k}, 0)
                  : MakeInput({c.k, c.n}, DType::kFloat32, 4, 1);
    Array acc = MakeInput({c.m, c.n}, DType::kFloat32, 5, 1).Contiguous();
    for (int64_t j = 0; j < c.n; ++j) acc.data<float>()[j] = -0.0f;
    DotDimensionNumbers dims{.lhs_contracting = {1}, .rhs_contracting = {0}};
    Array want = Binary(BinaryOp::kAdd, acc, DotGeneral(a, b, dims, DType::kFloat32));
    // Into the addend itself, and into another array (the addend copied first).
    Array got = Array::FromDoubles(DType::kFloat32, acc.shape(), acc.ToDoubles());
    Array other = Array::Zeros(DType::kFloat32, acc.shape());
    bool in_place = DotGeneralAccumulate(a, b, dims, DType::kFloat32, got, got);
    bool copied = DotGeneralAccumulate(a, b, dims, DType::kFloat32, acc, other);
    EXPECT_EQ(in_place, copied);
    if (!in_place) {
      EXPECT_EQ(got.ToDoubles(), acc.ToDoubles()) << "declined, yet changed";
      EXPECT_FALSE(c.m == 128 && c.k == 128) << "a product of 128-blocks was declined";
      continue;
    }
    ++accepted;
    for (const Array* result : {&got, &other}) {
      EXPECT_EQ(std::memcmp(result->raw(), want.raw(), static_cast<size_t>(c.m * c.n) * 4), 0)
          << c.m << " x " << c.k << " x " << c.n << (c.transposed_rhs ? ", b transposed" : "")
          << (result == &got ? ", in place" : ", copied");
      EXPECT_FALSE(std::signbit(result->GetDouble(0)));
    }
    // With a row scale: scale * acc + a @ b, the scaled element rounded before the sum is added
    // (zeros of both signs, a negative scale, infinities whose products with zeros are NaN).
    Array scale = MakeInput({c.m, 1}, DType::kFloat32, 6, 1).Contiguous();
    const float specials[] = {0.0f, -0.0f, -2.5f, std::numeric_limits<float>::infinity()};
    for (int64_t i = 0; i < c.m && i < 4; ++i) scale.data<float>()[i] = specials[i];
    Array want_scaled = Binary(BinaryOp::kAdd, Binary(BinaryOp::kMul, scale, acc),
                               DotGeneral(a, b, dims, DType::kFloat32));
    Array scaled = Array::FromDoubles(DType::kFloat32, acc.shape(), acc.ToDoubles());
    Array scaled_other = Array::Zeros(DType::kFloat32, acc.shape());
    EXPECT_TRUE(DotGeneralAccumulate(a, b, dims, DType::kFloat32, scaled, scaled, &scale));
    EXPECT_TRUE(DotGeneralAccumulate(a, b, dims, DType::kFloat32, acc, scaled_other, &scale));
    for (const Array* result : {&scaled, &scaled_other}) {
      EXPECT_EQ(std::memcmp(result->raw(), want_scaled.raw(), static_cast<size_t>(c.m * c.n) * 4),
                0)
          << c.m << " x " << c.k << " x " << c.n << (c.transposed_rhs ? ", b transposed" : "")
          << (result == &scaled ? ", scaled in place" : ", scaled, copied");
    }
  }
  EXPECT_GE(accepted, 5);
  // Sums of k in several panels (2048 exceeds every instruction set's panel), other dtypes,
  // other shapes, and an accumulator that is an operand are declined.
  Array a = MakeInput({16, 2048}, DType::kFloat32, 1, 1);
  Array b = MakeInput({2048, 16}, DType::kFloat32, 2, 1);
  DotDimensionNumbers dims{.lhs_contracting = {1}, .rhs_contracting = {0}};
  Array acc = Array::Zeros(DType::kFloat32, {16, 16});
  EXPECT_FALSE(DotGeneralAccumulate(a, b, dims, DType::kFloat32, acc, acc));
  Array square = MakeInput({32, 32}, DType::kFloat32, 1, 1);
  Array same = square;
  EXPECT_FALSE(DotGeneralAccumulate(square, square, dims, DType::kFloat32, same, same));
  Array wrong_shape = Array::Zeros(DType::kFloat32, {32, 31});
  EXPECT_FALSE(
      DotGeneralAccumulate(square, square, dims, DType::kFloat32, wrong_shape, wrong_shape));
  Array half = square.AsType(DType::kBFloat16);
  Array out = Array::Zeros(DType::kFloat32, {32, 32});
  EXPECT_FALSE(DotGeneralAccumulate(half, half, dims, DType::kFloat32, out, out));
}

}  // namespace
}  // namespace pz::array
