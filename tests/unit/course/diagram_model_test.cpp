// The picture model behind `pallas-puzzles diagram` on hand-made call records (which cells a
// block covers, squeezed and grouped dimensions, out-of-range blocks, step parsing, large grids),
// and the chapters' declared diagrams in the manifest and in `verify`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "../scratch_dir.h"

#include "course/diagram.h"
#include "course/manifest.h"
#include "course/verify.h"

namespace pz::course {
namespace {
namespace fs = std::filesystem;
using kernel::BlockDim;

kernel::BlockMapping Blocked(std::string name, array::Shape shape, std::vector<int64_t> block,
                             bool output = false) {
  kernel::BlockMapping op{.name = std::move(name), .is_output = output, .shape = std::move(shape)};
  for (int64_t b : block) {
    op.block.push_back(b < 0 ? BlockDim{.kind = BlockDim::Kind::kSqueezed}
                             : BlockDim{.kind = BlockDim::Kind::kBlocked, .size = b});
  }
  return op;
}

std::string Cells(const OperandPicture& op) {
  std::string s;
  for (int64_t r = 0; r < op.rows; ++r) {
    for (int64_t c = 0; c < op.cols; ++c) {
      BlockRole role = op.cells[static_cast<size_t>(r * op.cols + c)];
      s += role == BlockRole::kSkipped ? '.' : role == BlockRole::kError ? 'X' : '#';
    }
    s += '\n';
  }
  return s;
}

TEST(DiagramModel, A2DBlockCoversOneCell) {
  tpu::CallRecord call{.name = "k", .grid = {2, 3}};
  call.operands.push_back(Blocked("o_ref", {16, 384}, {8, 128}, true));
  call.trace.total_steps = 6;
  for (int64_t t = 0; t < 6; ++t) call.trace.steps.push_back({{t / 3, t % 3}});
  StepPicture pic = PictureOf(call, 4);
  EXPECT_EQ(pic.point, (std::vector<int64_t>{1, 1}));
  ASSERT_EQ(pic.operands.size(), 1u);
  EXPECT_EQ(Cells(pic.operands[0]), "...\n.#.\n");
  EXPECT_EQ(pic.operands[0].index, "index (1, 1)");
  EXPECT_EQ(pic.operands[0].cells[4], BlockRole::kOutput);
}

TEST(DiagramModel, SqueezedDimensionsCountElementsAndLeadingOnesAreNamed) {
  tpu::CallRecord call{.name = "k", .grid = {3}};
  call.operands.push_back(Blocked("x_ref", {3, 4, 256}, {-1, 4, 128}));
  call.trace.total_steps = 3;
  for (int64_t t = 0; t < 3; ++t) call.trace.steps.push_back({{t, 0, 1}});
  OperandPicture op = PictureOf(call, 2).operands[0];
  EXPECT_EQ(op.block, "block (None, 4, 128)");
  EXPECT_EQ(Cells(op), ".#\n");
  EXPECT_EQ(op.note, "showing slice [2, :, :] of the leading dimension (3,)");
}

TEST(DiagramModel, LongDimensionsGroupBlocksIntoCells) {
  tpu::CallRecord call{.name = "k", .grid = {100}};
  call.operands.push_back(Blocked("x_ref", {12800}, {128}));
  call.trace.total_steps = 100;
  for (int64_t t = 0; t < 100; ++t) call.trace.steps.push_back({{t}});
  OperandPicture op = PictureOf(call, 9).operands[0];
  EXPECT_EQ(op.cols, 25);
  EXPECT_EQ(Cells(op), "..#......................\n");
  EXPECT_EQ(op.note, "one cell is 1x4 blocks");
  GridShape g = GridLayout(call.grid);
  EXPECT_EQ(g.cols, 25);
  EXPECT_TRUE(g.Holds(0, 2, 9));
  EXPECT_EQ(g.note, "one cell is 1x4 steps");
}

TEST(DiagramModel, AnOutOfRangeBlockIsAnExtraRedCellAtTheFailingStep) {
  tpu::CallRecord call{.name = "k", .grid = {4}};
  call.operands.push_back(Blocked("x_ref", {512}, {128}));
  call.operands.push_back(Blocked("o_ref", {512}, {128}, true));
  call.trace = {.total_steps = 4,
                .steps = {{{4}, {0}}},
                .failed_step = 0,
                .failed_operand = 0,
                .failure = "Out-of-bounds block index (4,)"};
  StepPicture pic = PictureOf(call, 0);
  EXPECT_TRUE(pic.failed);
  EXPECT_EQ(pic.failure, "Out-of-bounds block index (4,)");
  EXPECT_EQ(Cells(pic.operands[0]), "....X\n");
  EXPECT_EQ(pic.operands[0].note, "the block lies outside the array");
  EXPECT_EQ(Cells(pic.operands[1]), "#...\n");
  std::string note;
  EXPECT_EQ(AllSteps(call, &note), std::vector<int64_t>{0});
  EXPECT_EQ(note, "the call stopped at step 1 of 4");
}

TEST(DiagramModel, ScratchAndPrefetchAreWholeBuffers) {
  tpu::CallRecord call{.name = "k", .grid = {2}};
  call.prefetch.push_back({.name = "ids_ref", .shape = {4}, .dtype = array::DType::kInt32});
  call.scratch.push_back({.name = "acc_ref", .shape = {8, 128}});
  call.scratch.push_back({.name = "sem", .space = kernel::MemorySpace::kSemaphore});
  call.trace = {.total_steps = 2, .steps = {{}, {}}};
  StepPicture pic = PictureOf(call, 1);
  ASSERT_EQ(pic.operands.size(), 2u);
  EXPECT_EQ(pic.operands[0].kind, "scalar prefetch");
  EXPECT_EQ(pic.operands[1].kind, "scratch");
  EXPECT_EQ(pic.operands[1].cells, std::vector<BlockRole>{BlockRole::kScratch});
}

TEST(DiagramModel, StepsAreProgramIdsInsideTheGrid) {
  tpu::CallRecord call{.name = "k", .grid = {2, 3}};
  call.trace.total_steps = 6;
  call.trace.steps.assign(6, {});
  EXPECT_EQ(ParseStep(call, "1,2").step, 5);
  EXPECT_EQ(ParseStep(call, "(1, 0)").step, 3);
  EXPECT_EQ(ParseStep(call, "2,0").error, "program id 2 of axis 0 is outside the grid (2, 3)");
  EXPECT_EQ(ParseStep(call, "1").error, "the grid (2, 3) has 2 axes, so a step is 2 program ids");
  EXPECT_NE(ParseStep(call, "a,b").error, "");
  call.trace.steps.resize(2);
  EXPECT_EQ(ParseStep(call, "1,0").error, "only the first 2 steps are recorded");
}

TEST(DiagramModel, SvgIsDeterministicAndSelfContained) {
  tpu::CallRecord call{.name = "k", .location = "k.py:3", .grid = {2}};
  call.operands.push_back(Blocked("x_ref", {256}, {128}));
  call.trace = {.total_steps = 2, .steps = {{{0}}, {{1}}}};
  std::string one = RenderSvg(call, {0, 1}, "");
  EXPECT_EQ(one, RenderSvg(call, {0, 1}, ""));
  EXPECT_EQ(one.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(one.find("href"), std::string::npos);
  EXPECT_NE(one.find("#dae8fc"), std::string::npos);  // the input block's blue
  EXPECT_NE(one.find("pallas_call k at k.py:3: grid (2,), 2 steps"), std::string::npos);
}

class DeclaredDiagrams : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<pz::testing::ScratchDir>();
    root_ = pz::testing::CopyTestCourse(*scratch_);
  }
  void TearDown() override { scratch_.reset(); }
  void Declare(const std::string& diagrams) {
    fs::path path = root_ / "puzzles" / "01_intro" / "chapter.json";
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.insert(text.rfind('}'), ", \"diagrams\": " + diagrams + "\n");
    std::ofstream(path) << text;
  }
  std::unique_ptr<pz::testing::ScratchDir> scratch_;
  fs::path root_;
};

TEST_F(DeclaredDiagrams, AreReadFromTheChapter) {
  Declare(R"([{"image": "gen.svg", "puzzle": "02_row_blocks", "args": ["--all-steps"]}])");
  CourseLoad load = LoadCourse(root_);
  ASSERT_TRUE(load.ok()) << load.errors[0];
  const ChapterEntry& chapter = load.course.chapters[0];
  ASSERT_EQ(chapter.diagrams.size(), 1u);
  EXPECT_EQ(chapter.diagrams[0].image, "gen.svg");
  EXPECT_EQ(chapter.diagrams[0].args, std::vector<std::string>{"--all-steps"});
  EXPECT_EQ(load.course.FindDiagramPuzzle(chapter, chapter.diagrams[0]), &chapter.puzzles[1]);
}

TEST_F(DeclaredDiagrams, BadEntriesAreManifestErrors) {
  Declare(R"([{"image": "../x.png", "puzzle": "01_double"}, {"image": "a.svg", "args": [1]}])");
  CourseLoad load = LoadCourse(root_);
  ASSERT_EQ(load.errors.size(), 3u);
  EXPECT_NE(load.errors[0].find("`image` must be a file name ending in .svg"), std::string::npos);
  EXPECT_NE(load.errors[1].find("`puzzle` must be a string"), std::string::npos);
  EXPECT_NE(load.errors[2].find("`args` must be a list of strings"), std::string::npos);
}

TEST_F(DeclaredDiagrams, VerifyWantsTheImageAndThePuzzle) {
  Declare(R"([{"image": "gen.svg", "puzzle": "99_nothing"}])");
  VerifyOptions options;
  options.only = "01_intro/01";
  VerifyReport report = Verify(LoadCourse(root_), options);
  ASSERT_EQ(report.course_problems.size(), 2u);
  EXPECT_NE(report.course_problems[0].find("draws `99_nothing`, which is not a puzzle"),
            std::string::npos);
  EXPECT_NE(report.course_problems[1].find("images/gen.svg: declared as a generated diagram but "
                                           "missing; run ./update_notebooks.sh"),
            std::string::npos);
}

// ---- Quoted time-lines
// ---------------------------------------------------------------------------

VerifyItem TimelineItem(const VerifyReport& report) {
  for (const VerifyRow& row : report.rows) {
    for (const VerifyItem& item : row.items) {
      if (item.name == "timeline") return item;
    }
  }
  ADD_FAILURE() << "no timeline item";
  return {};
}

TEST(QuotedTimeline, TheCourseQuotesWhatTheEmulatorPrints) {
  // 5.2 quotes a wrapped line of its solution's time-line, 5.3 four whole lines.
  for (const char* puzzle : {"05_dma/02", "05_dma/03"}) {
    VerifyOptions options;
    options.only = puzzle;
    VerifyItem item = TimelineItem(Verify(LoadCourse(PZ_SOURCE_DIR), options));
    EXPECT_TRUE(item.ok) << puzzle << ": " << item.detail;
  }
}

TEST(QuotedTimeline, AQuoteTheSolutionDoesNotPrintFailsVerify) {
  pz::testing::ScratchDir scratch;
  fs::path root = pz::testing::CopyTestCourse(scratch);
  const std::string quote =
      "# ```\n# (0,): start x_hbm -> buf on sem 32B @9;\n#       wait sem 32B @10\n# ```\n";
  for (const char* folder : {"puzzles", "solutions"}) {
    fs::path file = root / folder / "01_intro" / "01_double.py";
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.insert(text.find("\n") + 1, quote);
    std::ofstream(file) << text;
  }
  VerifyOptions options;
  options.only = "01_intro/01";
  VerifyItem item = TimelineItem(Verify(LoadCourse(root), options));
  EXPECT_FALSE(item.ok);
  EXPECT_EQ(item.detail,
            "the text quotes `(0,): start x_hbm -> buf on sem 32B @9; wait sem 32B @10`, which "
            "`run --stats --timeline` of the solution no longer prints");
}

}  // namespace
}  // namespace pz::course
