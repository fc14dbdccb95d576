#include "array/indexing.h"

#include <gtest/gtest.h>

namespace pz::array {
namespace {

Array Iota2D() {  // [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i;
  return Array::FromDoubles(DType::kInt32, {3, 4}, v);
}

Index Int(int64_t i) { return Index{.kind = Index::Kind::kInt, .value = i}; }
Index Slice(std::optional<int64_t> start, std::optional<int64_t> stop,
            std::optional<int64_t> step = std::nullopt) {
  return Index{.kind = Index::Kind::kSlice, .start = start, .stop = stop, .step = step};
}
Index Ints(std::vector<double> v) {
  return Index{.kind = Index::Kind::kArray,
               .array = Array::FromDoubles(DType::kInt32, {static_cast<int64_t>(v.size())}, v)};
}

TEST(Indexing, IntegersAndSlicesMakeViews) {
  Array a = Iota2D();
  Array row = GetIndexed(a, {Int(-1), Slice(std::nullopt, std::nullopt, -2)});
  EXPECT_EQ(row.shape(), (Shape{2}));
  EXPECT_EQ(row.ToDoubles(), (std::vector<double>{11, 9}));
  EXPECT_TRUE(row.SharesStorageWith(a));
}

TEST(Indexing, NewAxisAndEllipsisInsertAndSkipDimensions) {
  Array a = Iota2D();
  Array r = GetIndexed(a, {Index{.kind = Index::Kind::kNewAxis}, Int(1),
                           Index{.kind = Index::Kind::kEllipsis}, Int(2)});
  EXPECT_EQ(r.shape(), (Shape{1}));
  EXPECT_EQ(r.ToDoubles(), (std::vector<double>{6}));
}

TEST(Indexing, IntegerArraysGatherWithNumpyPlacement) {
  Array a = Iota2D();
  Array cols = GetIndexed(a, {Slice(std::nullopt, std::nullopt), Ints({1, -1})});
  EXPECT_EQ(cols.shape(), (Shape{3, 2}));
  EXPECT_EQ(cols.ToDoubles(), (std::vector<double>{1, 3, 5, 7, 9, 11}));
  Array pairs = GetIndexed(a, {Ints({0, 2}), Ints({3, 0})});
  EXPECT_EQ(pairs.ToDoubles(), (std::vector<double>{3, 8}));
}

TEST(Indexing, BooleanMasksSelectElements) {
  Array a = Iota2D();
  std::vector<double> mask(12);
  for (int i = 0; i < 12; ++i) mask[i] = i > 8;
  Array picked = GetIndexed(a, {Index{.kind = Index::Kind::kArray,
                                      .array = Array::FromDoubles(DType::kBool, {3, 4}, mask)}});
  EXPECT_EQ(picked.ToDoubles(), (std::vector<double>{9, 10, 11}));
}

TEST(Indexing, OutOfRangeIndexIsAnErrorNotAClamp) {
  Array a = Iota2D();
  try {
    GetIndexed(a, {Int(5)});
    FAIL() << "expected an IndexError";
  } catch (const ArrayError& e) {
    EXPECT_EQ(e.kind, ArrayError::Kind::kIndexError);
    EXPECT_EQ(e.message, "index 5 is out of bounds for axis 0 with size 3");
  }
  EXPECT_THROW(GetIndexed(a, {Ints({0, 7})}), ArrayError);
  EXPECT_THROW(GetIndexed(a, {Int(0), Int(0), Int(0)}), ArrayError);
}

TEST(Indexing, UpdatesAreFunctionalAndAccumulateRepeatedIndices) {
  Array a = Iota2D();
  Array ones = Array::FromDoubles(DType::kInt32, {}, {1});
  Array b = UpdateIndexed(a, {Ints({0, 0})}, ones, UpdateOp::kAdd);
  EXPECT_EQ(b.ToDoubles()[0], 2);
  EXPECT_EQ(b.ToDoubles()[4], 4);
  EXPECT_EQ(a.ToDoubles()[0], 0);  // the original is unchanged
  Array c = UpdateIndexed(a, {Int(0), Int(0)}, Array::FromDoubles(DType::kFloat32, {}, {9.5}),
                          UpdateOp::kSet);
  EXPECT_EQ(c.dtype(), DType::kInt32);
  EXPECT_EQ(c.ToDoubles()[0], 9);  // cast to the array's dtype, as JAX does
  Array d = UpdateIndexed(a, {Slice(std::nullopt, std::nullopt), Int(1)},
                          Array::FromDoubles(DType::kInt32, {3}, {100, 200, 300}), UpdateOp::kMax);
  EXPECT_EQ(d.ToDoubles()[1], 100);
  EXPECT_EQ(d.ToDoubles()[9], 300);
}

}  // namespace
}  // namespace pz::array
