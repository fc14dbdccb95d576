#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "../scratch_dir.h"

#include "array/npy.h"
#include "array/sort.h"

namespace pz::array {
namespace {

TEST(Npy, RoundTripsEveryDtype) {
  pz::testing::ScratchDir scratch;
  std::string path = (scratch / "roundtrip.npy").string();
  for (DType dtype : {DType::kBool, DType::kInt8, DType::kUInt8, DType::kInt32, DType::kUInt32,
                      DType::kFloat16, DType::kFloat32}) {
    Array a = Array::FromDoubles(dtype, {2, 3}, {0, 1, 1, 0, 1, 1});
    SaveNpy(path, a);
    Array b = LoadNpy(path);
    EXPECT_EQ(b.dtype(), dtype);
    EXPECT_EQ(b.shape(), a.shape());
    EXPECT_EQ(b.ToDoubles(), a.ToDoubles());
  }
}

TEST(Npy, RejectsFilesThatAreNotNpy) {
  pz::testing::ScratchDir scratch;
  std::string path = (scratch / "not_npy.npy").string();
  std::ofstream(path) << "hello";
  EXPECT_THROW(LoadNpy(path), ArrayError);
  EXPECT_THROW(LoadNpy((scratch / "definitely_missing.npy").string()), ArrayError);
}

TEST(Sort, IsStableWithNanLast) {
  Array a = Array::FromDoubles(DType::kFloat32, {5}, {3, 1, std::nan(""), 2, 1});
  std::vector<double> sorted = Sort(a, 0).ToDoubles();
  EXPECT_EQ(sorted[0], 1);
  EXPECT_EQ(sorted[3], 3);
  EXPECT_TRUE(std::isnan(sorted[4]));
  EXPECT_EQ(ArgSort(a, 0).ToDoubles(), (std::vector<double>{1, 4, 3, 0, 2}));
}

TEST(Sort, SortsAlongTheGivenAxis) {
  Array a = Array::FromDoubles(DType::kInt32, {2, 2}, {3, 1, 0, 2});
  EXPECT_EQ(Sort(a, 0).ToDoubles(), (std::vector<double>{0, 1, 3, 2}));
  EXPECT_EQ(Sort(a, -1).ToDoubles(), (std::vector<double>{1, 3, 0, 2}));
}

TEST(Sort, UniqueCountsAndHistogramMatchJax) {
  UniqueResult u = Unique(Array::FromDoubles(DType::kInt32, {5}, {3, 1, 2, 1, 3}));
  EXPECT_EQ(u.values.ToDoubles(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(u.counts.ToDoubles(), (std::vector<double>{2, 1, 2}));
  // jnp.histogram([1, 2, 2, 3, 4], bins=3) == ([1, 2, 2], [1, 2, 3, 4]), counts in float32.
  auto [counts, edges] =
      Histogram(Array::FromDoubles(DType::kFloat32, {5}, {1, 2, 2, 3, 4}), {.bins = 3});
  EXPECT_EQ(counts.dtype(), DType::kFloat32);
  EXPECT_EQ(counts.ToDoubles(), (std::vector<double>{1, 2, 2}));
  EXPECT_EQ(edges.ToDoubles(), (std::vector<double>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace pz::array
