// jax.random against real JAX 0.10.2: every stream in random_linalg_expected.inc must match bit
// for bit (keys, split, fold_in, bits, uniform, randint, bernoulli, permutation), normal within
// 2 ulp (XLA's log1p inside erf_inv is its own approximation).
#include "array/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "array/isa.h"
#include "unit/array/random_linalg_expected.h"

namespace pz::array {
namespace {

using expected::kRandomCases;
using expected::RandomCase;

// The raw bit patterns of `a` in the generator's convention.
std::vector<uint32_t> BitsOf(const Array& a) {
  Array c = a.Contiguous();
  std::vector<uint32_t> out(static_cast<size_t>(c.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    switch (ItemSize(c.dtype())) {
      case 4:
        std::memcpy(&out[i], c.raw() + 4 * i, 4);
        break;
      case 2: {
        uint16_t v;
        std::memcpy(&v, c.raw() + 2 * i, 2);
        out[i] = IsFloating(c.dtype()) || IsUnsigned(c.dtype())
                     ? v
                     : static_cast<uint32_t>(static_cast<int16_t>(v));
        break;
      }
      default:
        out[i] = static_cast<uint32_t>(c.GetInt(static_cast<int64_t>(i)));
    }
  }
  return out;
}

Array RunCase(const RandomCase& c) {
  Array key = Key(c.seed);
  std::string fn = c.fn;
  DType dtype = *ParseDTypeName(c.dtype);
  if (fn == "key") return key;
  if (fn == "split") return SplitKey(key, static_cast<int64_t>(c.a));
  if (fn == "fold_in") return FoldIn(key, static_cast<int64_t>(c.a));
  if (fn == "bits") return Bits(key, c.shape, dtype);
  if (fn == "uniform") return Uniform(key, c.shape, dtype, c.a, c.b);
  if (fn == "normal") return Normal(key, c.shape, dtype);
  if (fn == "randint") {
    return RandInt(key, c.shape, static_cast<int64_t>(c.a), static_cast<int64_t>(c.b), dtype);
  }
  if (fn == "bernoulli") return Bernoulli(key, c.a, c.shape);
  if (fn == "permutation") return Permutation(key, static_cast<int64_t>(c.a));
  if (fn == "permutation_rows") {
    std::vector<double> rows(static_cast<size_t>(NumElements(c.shape)));
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<double>(i);
    return Permutation(key, Array::FromDoubles(DType::kFloat32, c.shape, rows));
  }
  ADD_FAILURE() << "unknown case " << fn;
  return key;
}

std::string Name(const RandomCase& c) {
  return std::string(c.fn) + "(seed=" + std::to_string(c.seed) + ", " + c.dtype + ", " +
         ShapeToString(c.shape) + ")";
}

TEST(Random, StreamsMatchJaxBitForBit) {
  int checked = 0;
  for (const RandomCase& c : kRandomCases) {
    if (std::string(c.fn) == "normal") continue;
    Array out = RunCase(c);
    EXPECT_EQ(out.shape(), c.shape) << Name(c);
    EXPECT_EQ(DTypeName(out.dtype()), c.dtype) << Name(c);
    EXPECT_EQ(BitsOf(out), c.bits) << Name(c);
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(Random, NormalMatchesJaxWithinTwoUlp) {
  for (const RandomCase& c : kRandomCases) {
    if (std::string(c.fn) != "normal") continue;
    std::vector<uint32_t> got = BitsOf(RunCase(c));
    ASSERT_EQ(got.size(), c.bits.size()) << Name(c);
    int exact = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      // Same-sign floats are ordered like their bit patterns, so ulps are integer differences.
      int64_t diff = std::llabs(static_cast<int64_t>(got[i]) - static_cast<int64_t>(c.bits[i]));
      EXPECT_LE(diff, 2) << Name(c) << " element " << i;
      exact += diff == 0;
    }
    EXPECT_GT(exact, static_cast<int>(got.size()) * 9 / 10) << Name(c);
  }
}

TEST(Random, ThreefryMatchesTheReferenceVector) {
  // Known-answer test from the Random123 distribution (threefry2x32, 20 rounds, zero key/count).
  auto [x0, x1] = Threefry2x32(0, 0, 0, 0);
  EXPECT_EQ(x0, 0x6b200159u);
  EXPECT_EQ(x1, 0x99ba4efeu);
}

TEST(Random, UniformStaysInRange) {
  Array u = Uniform(Key(3), {4096}, DType::kFloat32, -2.0, 3.0);
  for (double v : u.ToDoubles()) {
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 3.0);
  }
}

TEST(Random, RandIntWithEmptyRangeReturnsMinval) {
  for (double v : RandInt(Key(1), {16}, 7, 3).ToDoubles()) EXPECT_EQ(v, 7.0);
}

TEST(Random, PermutationIsAPermutation) {
  Array p = Permutation(Key(5), 3000);
  std::vector<double> v = p.ToDoubles();
  std::sort(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], static_cast<double>(i));
}

TEST(Random, NonKeyArgumentIsATypeError) {
  Array not_a_key = Array::Zeros(DType::kFloat32, {2});
  try {
    SplitKey(not_a_key, 2);
    FAIL() << "expected ArrayError";
  } catch (const ArrayError& e) {
    EXPECT_EQ(e.kind, ArrayError::Kind::kTypeError);
    EXPECT_NE(e.message.find("float32(2,)"), std::string::npos) << e.message;
  }
}

TEST(Random, UniformRejectsIntegerDtypes) {
  EXPECT_THROW(Uniform(Key(0), {2}, DType::kInt32), ArrayError);
  EXPECT_THROW(RandInt(Key(0), {2}, 0, 3, DType::kFloat32), ArrayError);
}

TEST(Random, ArraySeedsAndFoldInDataMatchTheIntegerForms) {
  for (int64_t seed : {0, 7, -1, 2147483647}) {
    Array from_array = KeyFromSeed(Array::Scalar(DType::kInt32, static_cast<double>(seed)));
    EXPECT_EQ(BitsOf(from_array), BitsOf(Key(seed))) << seed;
    Array folded = FoldIn(Key(3), Array::Scalar(DType::kInt32, static_cast<double>(seed)));
    EXPECT_EQ(BitsOf(folded), BitsOf(FoldIn(Key(3), seed))) << seed;
  }
  EXPECT_THROW(KeyFromSeed(Array::Scalar(DType::kFloat32, 1.5)), ArrayError);
  EXPECT_THROW(FoldIn(Key(3), Array::Zeros(DType::kInt32, {2})), ArrayError);
}

TEST(Random, SamplersAreTheirBitsThenTheirStep) {
  Array key = Key(11);
  Array bits = Bits(key, {4, 33});
  Array lo = Array::Scalar(DType::kFloat32, -3.0), hi = Array::Scalar(DType::kFloat32, 5.0);
  EXPECT_EQ(BitsOf(UniformFromBits(bits, DType::kFloat32, lo, hi)),
            BitsOf(Uniform(key, {4, 33}, DType::kFloat32, lo, hi)));
  EXPECT_EQ(BitsOf(NormalFromBits(bits, DType::kBFloat16)),
            BitsOf(Normal(key, {4, 33}, DType::kBFloat16)));
  EXPECT_THROW(UniformFromBits(Array::Zeros(DType::kInt32, {3}), DType::kFloat32, lo, hi),
               ArrayError);
}

TEST(Random, CorePrngIsReproducibleAndMovesOn) {
  CorePrng a, b;
  EXPECT_FALSE(a.seeded());
  a.Seed({5, 9});
  b.Seed({5, 9});
  EXPECT_TRUE(a.seeded());
  Array first = a.Draw({8, 128});
  EXPECT_EQ(first.dtype(), DType::kInt32);
  EXPECT_EQ(BitsOf(first), BitsOf(b.Draw({8, 128})));
  std::vector<uint32_t> second = BitsOf(a.Draw({8, 128}));
  EXPECT_NE(BitsOf(first), second);
  b.Seed({5, 10});
  EXPECT_NE(BitsOf(b.Draw({8, 128})), BitsOf(first));
  // Re-seeding starts the stream again.
  a.Seed({5, 9});
  EXPECT_EQ(BitsOf(a.Draw({8, 128})), BitsOf(first));
  // About half of all bits are set.
  int64_t ones = 0;
  for (uint32_t word : second) ones += __builtin_popcount(word);
  EXPECT_NEAR(static_cast<double>(ones) / (32.0 * second.size()), 0.5, 0.01);
}

// The lanes run wherever the CPU has them: a check at first use turns them off if they disagree
// with the scalar loops, which here would mean the C library's log1pf is no longer fdlibm's (as
// glibc 2.36 of Debian 12 has it); PZ_ISA=baseline turns them off on purpose.
TEST(Random, LanesRunWhereTheCpuHasThem) {
  const char* forced = std::getenv("PZ_ISA");
  bool baseline = forced != nullptr && std::string(forced) == "baseline";
  if (baseline) {
    EXPECT_EQ(RuntimeIsa(), Isa::kBaseline);
  }
  EXPECT_EQ(RandomLanesActive(), RuntimeIsa() >= Isa::kAvx2Fma);
}

TEST(Random, LargeDrawsSplitAcrossThreadsMatchSmallOnes) {
  // 2^19 values run in pieces on several threads; their prefix is the stream of a small draw.
  Array key = Key(21);
  for (DType dtype : {DType::kFloat32, DType::kBFloat16}) {
    Array big = Normal(key, {1 << 19}, dtype), small = Normal(key, {1000}, dtype);
    std::vector<uint32_t> big_bits = BitsOf(big), small_bits = BitsOf(small);
    EXPECT_TRUE(std::equal(small_bits.begin(), small_bits.end(), big_bits.begin()));
  }
  std::vector<uint32_t> draws = BitsOf(Bits(key, {1 << 19}));
  for (uint32_t i : {0u, 7u, 8u, 131071u, 131072u, 262143u, 262144u, 524287u}) {
    auto [b0, b1] = Threefry2x32(0, 21, 0, i);
    EXPECT_EQ(draws[i], b0 ^ b1) << i;
  }
  Array big_uniform = Uniform(key, {1 << 19}, DType::kFloat32, -2.0, 5.0);
  Array small_uniform = Uniform(key, {77}, DType::kFloat32, -2.0, 5.0);
  std::vector<uint32_t> bu = BitsOf(big_uniform), su = BitsOf(small_uniform);
  EXPECT_TRUE(std::equal(su.begin(), su.end(), bu.begin()));
}

}  // namespace
}  // namespace pz::array
