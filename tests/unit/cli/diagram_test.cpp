// `pallas-puzzles diagram` on puzzles of the real course: golden terminal and SVG pictures of
// three pallas_calls (1-D grid, 2-D grid with operands of another rank, 3-D grid with scratch),
// `--step`, the `--walk` mode with and without input, colour, and a call that fails on an
// out-of-range block index. PZ_UPDATE_GOLDEN=1 rewrites the goldens in tests/unit/cli/diagrams.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../scratch_dir.h"
#include "run_cli.h"

namespace {
using pz::testing::Read;
using pz::testing::Result;
namespace fs = std::filesystem;

const fs::path kGoldens = fs::path(PZ_SOURCE_DIR) / "tests" / "unit" / "cli" / "diagrams";

// Runs the CLI in `dir` (default: the source tree) with `input` on standard input.
Result RunCli(const std::string& args, const std::string& input = "",
              const fs::path& dir = PZ_SOURCE_DIR) {
  // The input in a directory of the call's own (tests run in parallel processes).
  pz::testing::ScratchDir scratch;
  fs::path in = scratch / "stdin";
  std::ofstream(in, std::ios::binary) << input;
  std::string command = "cd '" + dir.string() + "' && env -u PALLAS_PUZZLES_COURSE NO_COLOR=1 " +
                        PZ_CLI_PATH + " " + args + " <'" + in.string() + "' 2>&1";
  return pz::testing::RunShell(command);
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  fs::path path = kGoldens / name;
  const char* update = std::getenv("PZ_UPDATE_GOLDEN");
  if (update != nullptr && *update != '\0') {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; run with PZ_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, Read(path)) << "differs from " << path << " (PZ_UPDATE_GOLDEN=1 rewrites it)";
}

// The terminal picture and the SVG of one diagram, against goldens NAME.txt and NAME.svg.
void ExpectDiagram(const std::string& name, const std::string& args) {
  Result text = RunCli("diagram " + args + " --color=never");
  EXPECT_EQ(text.exit_code, 0) << text.output;
  ExpectGolden(name + ".txt", text.output);
  pz::testing::ScratchDir scratch;
  fs::path svg = scratch / (name + ".svg");
  Result wrote = RunCli("diagram " + args + " --svg '" + svg.string() + "'");
  EXPECT_EQ(wrote.exit_code, 0) << wrote.output;
  std::string drawn = Read(svg);
  EXPECT_EQ(drawn.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  ExpectGolden(name + ".svg", drawn);
  // Deterministic: drawing again gives the same bytes.
  RunCli("diagram " + args + " --svg '" + svg.string() + "'");
  EXPECT_EQ(Read(svg), drawn);
}

TEST(Diagram, ReversedBlocksAllSteps) { ExpectDiagram("reversed_blocks", "1.3 --all-steps"); }

TEST(Diagram, OuterProductOneStepOfA2DGrid) {
  ExpectDiagram("outer_product", "1.5 --call 2 --step 1,2");
}

TEST(Diagram, TiledMatmulStepWithScratch) {
  ExpectDiagram("tiled_matmul", "01_basics/08_tiled_matmul --step 1,0,1");
}

TEST(Diagram, Rank3OperandsShowTheSliceOfTheirLeadingDimension) {
  Result r = RunCli("diagram 1.10 --step 1,1 --color=never");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("x_ref  input (3, 256, 128) float32, block (None, 128, 128), index "
                          "(1, 1, 0)\n         showing slice [1, :, :] of the leading dimension "
                          "(3,)\n         ░░\n         ██\n"),
            std::string::npos)
      << r.output;
}

TEST(Diagram, StepSelectsTheBlocksOfThatStep) {
  Result r = RunCli("diagram 1.3 --step 1 --color=never");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("grid step (1,), step 2 of 4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("index (2,)"), std::string::npos) << r.output;  // y: n - 1 - i
}

TEST(Diagram, WalkStepsOnEnterAndStopsAtQ) {
  Result r = RunCli("diagram 1.3 --walk --color=never", "\n\nq\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("grid step (0,)"), std::string::npos);
  EXPECT_NE(r.output.find("grid step (1,)"), std::string::npos);
  EXPECT_NE(r.output.find("grid step (2,)"), std::string::npos);
  EXPECT_EQ(r.output.find("grid step (3,)"), std::string::npos) << r.output;
}

TEST(Diagram, WalkEndsQuietlyAtTheEndOfInput) {
  Result r = RunCli("diagram 1.3 --walk --color=never", "");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("grid step (0,)"), std::string::npos);
  EXPECT_EQ(r.output.find("grid step (1,)"), std::string::npos) << r.output;
  r = RunCli("diagram 1.3 --walk --color=never", "\n\n\n\n\n\n");
  EXPECT_NE(r.output.find("grid step (3,)"), std::string::npos);
  EXPECT_NE(r.output.find("(last step)"), std::string::npos) << r.output;
}

TEST(Diagram, WalkStartsAtTheChosenStep) {
  Result r = RunCli("diagram 1.3 --walk --step 2 --color=never", "\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("grid step (1,)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("grid step (2,)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("grid step (3,)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(last step)"), std::string::npos) << r.output;
}

TEST(Diagram, ReplDrawsTheLearnersFileAndWalksOnTheSameInput) {
  pz::testing::ScratchDir scratch;
  fs::path ws = scratch / "ws";
  ASSERT_EQ(RunCli("init '" + ws.string() + "'").exit_code, 0);
  // The starter of 1.3 still reads block i of y: the picture shows the learner's index map.
  Result r = RunCli("", "diagram 1.3 --walk\n\nq\ndiagram 1.3 --solution\nprogress\nquit\n", ws);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("grid step (1,)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("grid step (2,)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("y_ref  input (512,) float32, block (128,), index (1,)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the solution's diagram shows its index maps, so it opens once 1.3 "
                          "passes"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("puzzles solved"), std::string::npos) << "the REPL went on: " << r.output;
}

TEST(Diagram, ColourOnlyWhenAsked) {
  EXPECT_EQ(RunCli("diagram 1.3").output.find("\033["), std::string::npos);
  Result r = RunCli("diagram 1.3 --color=always");
  EXPECT_NE(r.output.find("\033[34m██"), std::string::npos) << r.output;  // the input block
  EXPECT_NE(r.output.find("\033[32m██"), std::string::npos) << r.output;  // the output block
}

TEST(Diagram, OutOfRangeBlockIndexIsDrawnRedAtTheFailingStep) {
  pz::testing::ScratchDir scratch;
  fs::path file = scratch / "off_by_one.py";
  std::ofstream(file) << "import jax\n"
                         "import jax.numpy as jnp\n"
                         "from jax.experimental import pallas as pl\n"
                         "def k(x_ref, o_ref):\n"
                         "    o_ref[...] = x_ref[...]\n"
                         "x = jnp.zeros((512,))\n"
                         "pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct((512,), x.dtype),\n"
                         "    grid=(4,), in_specs=[pl.BlockSpec((128,), lambda i: (4 - i,))],\n"
                         "    out_specs=pl.BlockSpec((128,), lambda i: (i,)))(x)\n";
  Result r = RunCli("diagram --file '" + file.string() + "' --color=never");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("grid step (0,), step 1 of 4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Out-of-bounds block index (4,)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the block lies outside the array"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("░░░░░░░░XX"), std::string::npos) << r.output;
}

TEST(Diagram, UsageErrors) {
  EXPECT_EQ(RunCli("diagram 1.3 --step 9").exit_code, 64);
  EXPECT_EQ(RunCli("diagram 1.3 --step 1,1").exit_code, 64);
  EXPECT_EQ(RunCli("diagram 1.3 --call 7").exit_code, 64);
  EXPECT_EQ(RunCli("diagram 1.3 --color=sometimes").exit_code, 64);
  EXPECT_EQ(RunCli("diagram 1.3 --all-steps --walk").exit_code, 64);
  EXPECT_NE(RunCli("diagram 1.3 --step 9").output.find("outside the grid (4,)"), std::string::npos);
}

}  // namespace
