// The course layer's pure parts: puzzle cells and editable regions, hints, the manifest's
// puzzle names, the progress store, and check's comparison and block map.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../scratch_dir.h"

#include "array/creation.h"
#include "course/compare.h"
#include "course/manifest.h"
#include "course/progress.h"
#include "course/puzzle_file.h"

namespace pz::course {
namespace {
namespace fs = std::filesystem;

constexpr const char* kStarter =
    "# %% [markdown]\n"
    "# # Title\n"
    "#\n"
    "# Some theory. ![d](../../images/a.svg) and ![e](images/b.svg)\n"
    "\n"
    "# %%\n"
    "def k(x_ref, o_ref):\n"
    "    # YOUR CODE BEGIN\n"
    "    pass\n"
    "    # YOUR CODE END\n"
    "check(1, 1)\n";

TEST(PuzzleFile, SplitsMarkdownAndCodeCells) {
  std::vector<Cell> cells = SplitCells(kStarter);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].kind, Cell::Kind::kMarkdown);
  EXPECT_EQ(cells[0].text,
            "# Title\n\nSome theory. ![d](../../images/a.svg) and ![e](images/b.svg)");
  EXPECT_EQ(cells[1].kind, Cell::Kind::kCode);
  EXPECT_EQ(cells[1].text.substr(0, 8), "def k(x_");
}

TEST(PuzzleFile, FindsRegionsAndTheirText) {
  RegionScan scan = FindRegions(kStarter);
  ASSERT_TRUE(scan.errors.empty());
  ASSERT_EQ(scan.regions.size(), 1u);
  EXPECT_EQ(scan.regions[0].begin_line, 8);
  EXPECT_EQ(scan.regions[0].end_line, 10);
  EXPECT_EQ(RegionText(kStarter, scan.regions[0]), "    pass\n");
}

TEST(PuzzleFile, EditableCellsAreTheCodeCellsHoldingARegion) {
  std::string source = std::string(kStarter) +
                       "\n# %%\nprint(1)\n\n# %%\n\ndef g():\n    # YOUR CODE BEGIN\n"
                       "    # YOUR CODE END\n\n\n";
  std::vector<EditableCell> cells = EditableCells(source);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].first_line, 7);  // `def k`, after the `# %%` marker
  EXPECT_EQ(cells[0].last_line, 11);  // `check(1, 1)`, before the blank line
  ASSERT_EQ(cells[0].regions.size(), 1u);
  EXPECT_EQ(cells[0].regions[0].begin_line, 8);
  EXPECT_EQ(cells[1].first_line, 18);  // blank lines at both ends are left out
  EXPECT_EQ(cells[1].last_line, 20);
  // Markers in a markdown cell make no editable code cell.
  EXPECT_TRUE(EditableCells("# %% [markdown]\n# YOUR CODE BEGIN\n# YOUR CODE END\n").empty());
}

TEST(PuzzleFile, UnbalancedMarkersAreReported) {
  EXPECT_EQ(FindRegions("# YOUR CODE END\n").errors.size(), 1u);
  RegionScan open = FindRegions("x\n# YOUR CODE BEGIN\n");
  ASSERT_EQ(open.errors.size(), 1u);
  EXPECT_NE(open.errors[0].find("line 2"), std::string::npos);
}

TEST(PuzzleFile, StarterAndSolutionMayDifferOnlyInsideRegions) {
  std::string solution = kStarter;
  solution.replace(solution.find("    pass\n"), 9, "    a = 1\n    o_ref[...] = a\n");
  EXPECT_EQ(CompareOutsideRegions(kStarter, solution), std::nullopt);
  std::string drifted = solution + "print(2)\n";
  ASSERT_TRUE(CompareOutsideRegions(kStarter, drifted).has_value());
  std::string renamed = solution;
  renamed.replace(renamed.find("def k("), 6, "def j(");
  std::optional<std::string> why = CompareOutsideRegions(kStarter, renamed);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("starter line 7"), std::string::npos) << *why;
}

TEST(PuzzleFile, ImageReferencesComeFromMarkdownOnly) {
  EXPECT_EQ(ImageReferences(kStarter), (std::vector<std::string>{"a.svg", "b.svg"}));
  EXPECT_TRUE(ImageReferences("x = '![a](images/c.svg)'\n").empty());
}

TEST(Hints, EachLevelIsASection) {
  std::vector<Hint> hints = ParseHints(
      "# Title\nintro\n\n## Hint 1: a\nfirst\n\n## Hint 2: b\n```python\n## not a level\n```\n");
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_EQ(hints[0].title, "Hint 1: a");
  EXPECT_EQ(hints[0].body, "first");
  EXPECT_EQ(hints[1].body, "```python\n## not a level\n```");
}

Course TwoChapters() {
  Course c;
  c.chapters = {
      {.id = "01_basics",
       .puzzles = {{.chapter = "01_basics", .id = "01_add", .chapter_number = 1, .number = 1},
                   {.chapter = "01_basics",
                    .id = "02_reversed_blocks",
                    .chapter_number = 1,
                    .number = 2}}},
      {.id = "02_softmax",
       .puzzles = {{.chapter = "02_softmax", .id = "01_add", .chapter_number = 2, .number = 1}}}};
  return c;
}

TEST(Manifest, PuzzleNamesLearnersType) {
  Course c = TwoChapters();
  EXPECT_EQ(c.Find("1.2")->id, "02_reversed_blocks");
  EXPECT_EQ(c.Find("01/02")->id, "02_reversed_blocks");
  EXPECT_EQ(c.Find("reversed_blocks")->id, "02_reversed_blocks");
  EXPECT_EQ(c.Find("01_basics/02_reversed_blocks.py")->id, "02_reversed_blocks");
  EXPECT_EQ(c.Find("softmax/add")->chapter, "02_softmax");
  EXPECT_EQ(c.Find("add"), nullptr);  // ambiguous
  EXPECT_EQ(c.Find("3.1"), nullptr);
  EXPECT_EQ(c.Find("1.9"), nullptr);
}

TEST(Progress, RoundTripsAndSurvivesCorruption) {
  pz::testing::ScratchDir scratch;
  fs::path file = scratch / "progress.json";
  Progress p;
  p.current = "01_basics/02_x";
  p.Of("01_basics/01_y").solved = true;
  p.Of("01_basics/01_y").hints_shown = 2;
  ASSERT_EQ(SaveProgress(file, p), std::nullopt);
  ProgressLoad load = LoadProgress(file);
  EXPECT_FALSE(load.warning);
  EXPECT_EQ(load.progress.current, "01_basics/02_x");
  EXPECT_EQ(load.progress.SolvedCount(), 1);
  EXPECT_EQ(load.progress.Find("01_basics/01_y")->hints_shown, 2);
  std::ofstream(file) << "[1, 2";
  ProgressLoad corrupt = LoadProgress(file);
  ASSERT_TRUE(corrupt.warning);
  EXPECT_NE(corrupt.warning->find("corrupt"), std::string::npos);
  EXPECT_EQ(corrupt.progress.SolvedCount(), 0);
}

array::Array Iota(int64_t rows, int64_t cols) {
  array::Array a = array::Zeros({rows, cols}, array::DType::kFloat32);
  for (int64_t i = 0; i < rows * cols; ++i) a.data<float>()[i] = static_cast<float>(i);
  return a;
}

TEST(Compare, EqualArraysPassWithTheirMaxError) {
  LeafReport r = CompareLeaf(Iota(2, 3), Iota(2, 3), DefaultTolerance(array::DType::kFloat32),
                             nullptr, nullptr);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.summary, "(2, 3) float32, max abs error 0");
}

TEST(Compare, FirstMismatchIsTheSameInPlaceAndThroughViews) {
  array::Array expected = Iota(3, 4);
  array::Array actual = Iota(3, 4);
  actual.data<float>()[1] += 0.25f;  // within atol 0.5: counts towards the max error
  actual.data<float>()[6] = 100.0f;  // the first mismatch
  actual.data<float>()[9] = std::nanf("");
  Tolerance tol{.atol = 0.5, .rtol = 0};
  double max_error = -1;
  EXPECT_EQ(FirstMismatch(actual, expected, tol, &max_error), 6);
  EXPECT_DOUBLE_EQ(max_error, 0.25);
  // Transposed views are not dense: the same answer element by element, in the view's order.
  array::Array at = actual.View({4, 3}, {1, 4}, 0), et = expected.View({4, 3}, {1, 4}, 0);
  // In the view's order, [1, 2] (actual's NaN at 9) comes before [2, 1] (actual's 6).
  EXPECT_EQ(FirstMismatch(at, et, tol), 1 * 3 + 2);
  EXPECT_EQ(FirstMismatch(expected, expected, {}, &max_error), -1);
  EXPECT_EQ(max_error, 0);
}

TEST(Compare, ShapeAndDtypeMismatchesSayWhich) {
  LeafReport shape = CompareLeaf(Iota(3, 2), Iota(2, 3), {}, nullptr, nullptr);
  EXPECT_FALSE(shape.passed);
  EXPECT_EQ(shape.summary, "shape (3, 2) but the reference has (2, 3)");
  EXPECT_EQ(shape.lines.at(0), "that is the reference's shape transposed");
  LeafReport dtype = CompareLeaf(array::Zeros({2}, array::DType::kInt32),
                                 array::Zeros({2}, array::DType::kFloat32), {}, nullptr, nullptr);
  EXPECT_EQ(dtype.summary, "dtype int32 but the reference has float32");
}

TEST(Compare, BlockMapNamesStatesStepsAndMovedBlocks) {
  // A 4x4 output in 2x2 blocks, grid (2, 2): block (0, 1) holds block (1, 1)'s values, block
  // (1, 0) was never written (NaN), the others are right.
  array::Array expected = Iota(4, 4);
  array::Array actual = Iota(4, 4);
  float* a = actual.data<float>();
  for (int r = 0; r < 2; ++r) {
    for (int c = 2; c < 4; ++c) a[r * 4 + c] = static_cast<float>((r + 2) * 4 + c);
  }
  tpu::OutputRecord record;
  record.call = "k";
  record.operand = "o_ref";
  record.grid = {2, 2};
  record.block = {2, 2};
  record.writer = array::Full({4, 4}, {0, array::DType::kInt32}, array::DType::kInt32);
  int32_t* w = record.writer.data<int32_t>();
  for (int i = 0; i < 16; ++i) {
    int r = i / 4, c = i % 4;
    w[i] = (r / 2) * 2 + c / 2;
  }
  for (int r = 2; r < 4; ++r) {
    for (int c = 0; c < 2; ++c) {
      a[r * 4 + c] = std::nanf("");
      w[r * 4 + c] = -1;
    }
  }
  LeafReport report = CompareLeaf(actual, expected, {1e-5, 1e-5}, &record, nullptr);
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.summary, "8 of 16 elements differ (atol 1e-05, rtol 1e-05)");
  std::string text;
  for (const std::string& line : report.lines) text += line + "\n";
  EXPECT_NE(text.find("first mismatch at [0, 2] (block (0, 1)): expected 2, got 10"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    0  ok (0, 0)     WRONG (0, 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("    1  never         ok (1, 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("(0, 1) has (1, 1)'s"), std::string::npos) << text;
  EXPECT_NE(text.find("`never`: no grid step wrote"), std::string::npos) << text;
}

// The report of `actual` against `expected`, both (4, 4) in (2, 2) blocks on a (2, 2) grid
// whose every step wrote its block; its lines joined.
std::string BlockReport(const array::Array& actual, const array::Array& expected,
                        std::vector<int64_t> shape = {4, 4}, std::vector<int64_t> block = {2, 2}) {
  tpu::OutputRecord record;
  record.call = "k";
  record.operand = "o_ref";
  record.block = block;
  std::vector<int64_t> blocks;
  for (size_t d = 0; d < shape.size(); ++d) blocks.push_back(shape[d] / block[d]);
  record.grid = blocks;
  record.writer = array::Zeros(shape, array::DType::kInt32);
  LeafReport report = CompareLeaf(actual, expected, {1e-5, 1e-5}, &record, nullptr);
  EXPECT_FALSE(report.passed);
  std::string text;
  for (const std::string& line : report.lines) text += line + "\n";
  return text;
}

TEST(Compare, BlocksMirroredAcrossTheDiagonalAreNamed) {
  // Block (i, j) of the result is block (j, i) of the reference.
  array::Array expected = Iota(4, 4);
  array::Array actual = Iota(4, 4);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      int br = r / 2, bc = c / 2;
      actual.data<float>()[r * 4 + c] =
          expected.data<float>()[(bc * 2 + r % 2) * 4 + br * 2 + c % 2];
    }
  }
  std::string text = BlockReport(actual, expected);
  EXPECT_NE(text.find("(0, 1) has (1, 0)'s, (1, 0) has (0, 1)'s"), std::string::npos) << text;
  EXPECT_NE(text.find("the moves mirror the grid across its diagonal"), std::string::npos) << text;
}

TEST(Compare, BlocksShiftedByOneAreNamed) {
  // A (16,) result in blocks of 4 whose block i holds the reference's block i + 1.
  array::Array expected = array::Zeros({16}, array::DType::kFloat32);
  array::Array actual = array::Zeros({16}, array::DType::kFloat32);
  for (int i = 0; i < 16; ++i) {
    expected.data<float>()[i] = static_cast<float>(i);
    actual.data<float>()[i] = i < 12 ? static_cast<float>(i + 4) : -1.0f;
  }
  std::string text = BlockReport(actual, expected, {16}, {4});
  EXPECT_NE(text.find("(0,) has (1,)'s, (1,) has (2,)'s, (2,) has (3,)'s"), std::string::npos)
      << text;
  EXPECT_NE(text.find("every one of these blocks holds the block (1,) away from it"),
            std::string::npos)
      << text;
}

TEST(Compare, ABlockWithItsValuesTransposedIsNamed) {
  array::Array expected = Iota(4, 4);
  array::Array actual = Iota(4, 4);
  // Block (0, 1): rows 0-1, columns 2-3, swapped within the block.
  std::swap(actual.data<float>()[0 * 4 + 3], actual.data<float>()[1 * 4 + 2]);
  std::string text = BlockReport(actual, expected);
  EXPECT_NE(text.find("block (0, 1) holds the reference's values transposed"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("mirror"), std::string::npos) << text;
}

TEST(Compare, BlockMapOfAnAnyOutputNamesTheDmas) {
  // A (32,) pl.ANY output written by DMAs of 8 elements at grid step 0, the last one missing.
  array::Array expected = array::Full({32}, {1, array::DType::kFloat32}, array::DType::kFloat32);
  array::Array actual = array::Full({32}, {1, array::DType::kFloat32}, array::DType::kFloat32);
  tpu::OutputRecord record;
  record.call = "k";
  record.operand = "o_hbm";
  record.block = {8};
  record.dma = true;
  record.writer = array::Full({32}, {0, array::DType::kInt32}, array::DType::kInt32);
  for (int i = 24; i < 32; ++i) {
    actual.data<float>()[i] = std::nanf("");
    record.writer.data<int32_t>()[i] = -1;
  }
  LeafReport report = CompareLeaf(actual, expected, {1e-5, 1e-5}, &record, nullptr);
  EXPECT_FALSE(report.passed);
  std::string text;
  for (const std::string& line : report.lines) text += line + "\n";
  EXPECT_NE(text.find("first mismatch at [24] (block (3,))"), std::string::npos) << text;
  EXPECT_NE(text.find("ok ()  ok ()  ok ()  never"), std::string::npos) << text;
  EXPECT_NE(text.find("the grid step whose DMA last wrote it"), std::string::npos) << text;
  EXPECT_NE(text.find("`never`: no DMA wrote this block"), std::string::npos) << text;
}

}  // namespace
}  // namespace pz::course
