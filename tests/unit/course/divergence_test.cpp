// FindDivergence on edits of the course's solutions: the first step and buffer where the edited
// kernel parts from the solution's, and the pattern named for it.
#include "course/divergence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "../scratch_dir.h"

#include "support/source.h"

namespace pz::course {
namespace {

namespace fs = std::filesystem;

fs::path Solution(const std::string& puzzle) {
  return fs::path(PZ_SOURCE_DIR) / "solutions" / (puzzle + ".py");
}

// The solution of `puzzle` with `before` (which must occur once) replaced by `after`, written to
// a file of its own; the divergence of that file from the solution.
std::optional<Divergence> DivergenceOfEdit(const std::string& puzzle, const std::string& before,
                                           const std::string& after) {
  std::optional<std::string> text = ReadFile(Solution(puzzle));
  EXPECT_TRUE(text.has_value());
  if (!text) return std::nullopt;
  size_t at = text->find(before);
  EXPECT_NE(at, std::string::npos) << before;
  if (at == std::string::npos) return std::nullopt;
  text->replace(at, before.size(), after);
  pz::testing::ScratchDir scratch;
  fs::path file = scratch / "puzzle.py";
  std::ofstream(file) << *text;
  return FindDivergence(file, Solution(puzzle), RunOptions{});
}

bool Has(const Divergence& d, const std::string& pattern) {
  return std::find(d.patterns.begin(), d.patterns.end(), pattern) != d.patterns.end();
}

std::string Text(const Divergence& d) { return FormatDivergence(d); }

TEST(Divergence, AnAccumulatorNotRescaledIsNamedAtItsFirstStep) {
  auto d = DivergenceOfEdit("03_attention/03_flash_forward",
                            "acc_ref[...] = acc_ref[...] * corr + jnp.dot(p, v_ref[...])",
                            "acc_ref[...] = acc_ref[...] + jnp.dot(p, v_ref[...])");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "not-rescaled")) << Text(*d);
  // The first key/value step matches (nothing to rescale yet); the second does not.
  EXPECT_NE(d->summary.find("after grid step (0, 1), scratch `acc_ref`"), std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("last written at line 82"), std::string::npos) << Text(*d);
}

TEST(Divergence, AStoreUnderAWhenThatNeverHoldsNamesTheCondition) {
  auto d =
      DivergenceOfEdit("03_attention/03_flash_forward", "@pl.when(kv == pl.num_programs(1) - 1)",
                       "@pl.when(kv == pl.num_programs(1))");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "when-never-true")) << Text(*d);
  EXPECT_NE(Text(*d).find("`@pl.when(kv == pl.num_programs(1))` (line 85)"), std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("program_id(1) runs 0 to 3"), std::string::npos) << Text(*d);
}

TEST(Divergence, AnAccumulatorResetOnlyOnceCarriesIntoTheNextOutputBlock) {
  auto d = DivergenceOfEdit("01_basics/08_tiled_matmul", "@pl.when(k == 0)",
                            "@pl.when((k == 0) & (pl.program_id(1) == 0))");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "not-reset")) << Text(*d);
  EXPECT_NE(Text(*d).find("the output block of `o_ref` moves from (0, 0) to (0, 1)"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AnotherIndexMapIsReportedAsConfigurationAtItsLine) {
  auto d = DivergenceOfEdit("03_attention/03_flash_forward",
                            "pl.BlockSpec((bk, H), lambda i, kv: (kv, 0)),\n        "
                            "pl.BlockSpec((bk, H), lambda i, kv: (kv, 0)),",
                            "pl.BlockSpec((bk, H), lambda i, kv: (kv, 0)),\n        "
                            "pl.BlockSpec((bk, H), lambda i, kv: (0, 0)),");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "configuration")) << Text(*d);
  EXPECT_NE(d->summary.find("the index map of `v_ref` gives block (0, 0); the solution's gives "
                            "(1, 0)"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AnOffByOneMaskIsFoundByFlippingItsComparison) {
  auto d =
      DivergenceOfEdit("01_basics/12_ragged_edges", "b = jnp.where(b_row < K, b_ref[...], 0.0)",
                       "b = jnp.where(b_row <= K, b_ref[...], 0.0)");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "off-by-one")) << Text(*d);
  EXPECT_NE(Text(*d).find("why: the comparison at line 85 is off by one: with `<` in place of "
                          "`<=` there, every check passes"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("your condition includes that case, and the checks need it excluded"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, NoOffByOneIsClaimedWhenNoFlipFixesTheKernel) {
  // A mask on the wrong axis: no comparison flipped alone makes the checks pass.
  auto d =
      DivergenceOfEdit("01_basics/12_ragged_edges", "b = jnp.where(b_row < K, b_ref[...], 0.0)",
                       "b = jnp.where(b_row < K - 2, b_ref[...], 0.0)");
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(Has(*d, "off-by-one")) << Text(*d);
}

TEST(Divergence, TheFirstValueTheSolutionNeverComputesIsTracedToItsLine) {
  // The correction factor inverted: its inputs (the old and new maxima) agree with the
  // solution's, what line 86 makes of them does not.
  auto d = DivergenceOfEdit("02_softmax/03_online_softmax", "correction = jnp.exp(m_old - m_new)",
                            "correction = jnp.exp(m_new - m_old)");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "first-wrong-value")) << Text(*d);
  EXPECT_NE(Text(*d).find("line 86 is where your kernel first computes a value that the "
                          "solution's never does, from values that the solution's kernel "
                          "computes too"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("line 86: correction = jnp.exp(m_new - m_old)"), std::string::npos)
      << Text(*d);
}

TEST(Divergence, AStoreThatDoesNotRunWhereTheSolutionsDoesNamesItsCondition) {
  auto d = DivergenceOfEdit("01_basics/08_tiled_matmul", "@pl.when(k == pl.num_programs(2) - 1)",
                            "@pl.when(k == 1)");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "store-skipped")) << Text(*d);
  EXPECT_NE(Text(*d).find("why: at this grid step the solution's kernel stores into `o_ref`, "
                          "and yours does not"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("runs under `@pl.when(k == 1)`"), std::string::npos) << Text(*d);
}

// Two programs of one's own (no editable regions: every line is the learner's), the divergence
// of the first from the second.
std::optional<Divergence> DivergenceOfPrograms(const std::string& mine, const std::string& theirs) {
  pz::testing::ScratchDir scratch;
  std::ofstream(scratch / "mine.py") << mine;
  std::ofstream(scratch / "theirs.py") << theirs;
  return FindDivergence(scratch / "mine.py", scratch / "theirs.py", RunOptions{});
}

constexpr const char* kPlainHead =
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from pallas_check import check\n"
    "x = jax.random.normal(jax.random.key(0), (8, 16))\n";

TEST(Divergence, PlainJaxNumpyCodeIsFollowedBackToTheFirstWrongValue) {
  // Line 6 scales by 3 where the solution scales by 2; lines 7 and 8 then compute from it as the
  // solution does, and only the check (line 9) sees the difference.
  std::string tail =
      "y = jnp.tanh(x) + 1.0\n"
      "z = jnp.sum(s * y, axis=1)\n"
      "r = jnp.sqrt(jnp.abs(z)) - 0.5\n"
      "check(r, jnp.sqrt(jnp.abs(jnp.sum(2.0 * (jnp.tanh(x) + 1.0) * (jnp.tanh(x) + 1.0), "
      "axis=1))) - 0.5)\n";
  auto d = DivergenceOfPrograms(std::string(kPlainHead) + "s = 3.0 * (jnp.tanh(x) + 1.0)\n" + tail,
                                std::string(kPlainHead) + "s = 2.0 * (jnp.tanh(x) + 1.0)\n" + tail);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "first-wrong-value")) << Text(*d);
  EXPECT_NE(d->summary.find("(no pallas_call ran)"), std::string::npos) << Text(*d);
  EXPECT_NE(Text(*d).find("line 5 is where your code first computes a value that the solution "
                          "never does (`mul` of values that the solution computes as well"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("line 5: s = 3.0 * (jnp.tanh(x) + 1.0)"), std::string::npos) << Text(*d);
}

TEST(Divergence, AResultTheSolutionOnlyPassesOnTheWayIsAMissingStep) {
  std::string mine = std::string(kPlainHead) +
                     "a = jnp.exp(x) / jnp.sum(jnp.exp(x), axis=1, keepdims=True)\n"
                     "check(a, jax.nn.softmax(x, axis=1) * 2.0 + 1.0)\n";
  std::string theirs = std::string(kPlainHead) +
                       "a = jnp.exp(x) / jnp.sum(jnp.exp(x), axis=1, keepdims=True)\n"
                       "a = a * 2.0 + 1.0\n"
                       "check(a, jax.nn.softmax(x, axis=1) * 2.0 + 1.0)\n";
  auto d = DivergenceOfPrograms(mine, theirs);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "stops-early")) << Text(*d);
  EXPECT_NE(Text(*d).find("the solution goes on from it with 2 more steps (`mul` and `add`)"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AResultOfPythonNumbersIsFollowedThroughTheNumberItHolds) {
  // float() of a wrong jax.numpy result, put back in an array by the check's line.
  std::string head = std::string(kPlainHead) + "def spread(v):\n";
  std::string tail =
      "    return float(jnp.max(w)), float(jnp.min(v))\n"
      "hi, lo = spread(x)\n"
      "check(jnp.array([hi, lo]), jnp.array([float(jnp.max(x * x)), float(jnp.min(x))]))\n";
  auto d =
      DivergenceOfPrograms(head + "    w = v * v * 2.0\n" + tail, head + "    w = v * v\n" + tail);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "first-wrong-value")) << Text(*d);
  EXPECT_NE(Text(*d).find("line 6 is where your code first computes"), std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("followed back from element 0 of your result"), std::string::npos)
      << Text(*d);
}

TEST(Divergence, AnOperandUsedBeforeTheSolutionsNextStepNamesWhereItWasMade) {
  // The mask misses its third condition: what is summed is the solution's intermediate.
  auto d = DivergenceOfEdit(
      "04_grouped_matmul/02_group_metadata",
      "overlap = (starts < tile_starts + bm) & (ends > tile_starts) & (ends > starts)",
      "overlap = (starts < tile_starts + bm) & (ends > tile_starts)");
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(Text(*d).find("its operand made at line 103 is a value the solution computes too, "
                          "but the solution does not `reduce_sum` it: it goes on from it with "
                          "`and` first"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AnOffByOneComparisonOutsideTheKernelsIsFoundByFlippingItsText) {
  auto d = DivergenceOfEdit("06_production/06_tuned_table", "while p < n:", "while p <= n:");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "off-by-one")) << Text(*d);
  EXPECT_NE(Text(*d).find("why: the comparison at line 121 is off by one: with `<` in place of "
                          "`<=` there, every check passes"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("your condition includes that case, and the checks need it excluded"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AFlopCountShortOfOnePrimitiveNamesIt) {
  auto d = DivergenceOfEdit("01_basics/15_roofline",
                            "flops = 2 * M * N * K + M * N * (K // bk) + 2 * grid_steps",
                            "flops = 2 * M * N * K + 2 * grid_steps");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "count-missing")) << Text(*d);
  EXPECT_NE(d->summary.find("check `counts, 128-blocks`: where the 2155873280 flops of "
                            "pallas_call `matmul_kernel`"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("line 135 `dot_general`: 4194304 per run x 512 runs = 2147483648"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("why: the 8388608 flops your formula leaves out are exactly what line "
                          "135 `add` (16384 per run x 512 runs) costs"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, BytesCountedOncePerInputNameTheRefetches) {
  auto d = DivergenceOfEdit("01_basics/15_roofline",
                            "hbm_bytes_read = (M * K * (N // bn) + K * N * (M // bm)) * itemsize",
                            "hbm_bytes_read = (M * K + K * N) * itemsize");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "count-refetch")) << Text(*d);
  EXPECT_NE(Text(*d).find("`x_ref` (input 0): 512 fetches of 65536 B = 33554432 (448 of them of "
                          "a block moved before)"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, ADifferenceNoPartMakesUpGetsTheBreakdownWithoutACause) {
  auto d = DivergenceOfEdit("01_basics/15_roofline",
                            "flops = 2 * M * N * K + M * N * (K // bk) + 2 * grid_steps",
                            "flops = 2 * M * N * K + M * N * (K // bk) + 2 * grid_steps - 7");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->patterns.empty()) << Text(*d);
  EXPECT_NE(Text(*d).find("line 135 `add`: 16384 per run x 512 runs = 8388608"), std::string::npos)
      << Text(*d);
  EXPECT_EQ(Text(*d).find("why"), std::string::npos) << Text(*d);
}

TEST(Divergence, ACallOfThePuzzlesFunctionWithSwappedArgumentsNamesThem) {
  auto d = DivergenceOfEdit("06_production/04_custom_vjp", "    g_loss, g_lse = cotangents\n",
                            "    g_lse, g_loss = cotangents\n");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "arguments")) << Text(*d);
  EXPECT_NE(Text(*d).find("why: your code calls `backward` (the puzzle's, defined at line 180) "
                          "at line 235 with other arguments than the solution's call: `g_loss` "
                          "gets what the solution passes as `g_lse`; and `g_lse` gets what the "
                          "solution passes as `g_loss`"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, ANumberPassedToThePuzzlesFunctionIsComparedWithTheSolutions) {
  auto d = DivergenceOfEdit("06_production/04_custom_vjp",
                            "dh, dw = backward(h, w, labels, lse, g_loss, g_lse, z_loss_weight)",
                            "dh, dw = backward(h, w, labels, lse, g_loss, g_lse, 0.0)");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "arguments")) << Text(*d);
  EXPECT_NE(Text(*d).find("`z_loss_weight` is 0 where the solution passes 0.01"), std::string::npos)
      << Text(*d);
}

TEST(Divergence, ARunningStatisticStartedAtAnotherNumberNamesBothStarts) {
  auto d =
      DivergenceOfEdit("02_softmax/02_two_pass_softmax", "m_ref[0] = -jnp.inf", "m_ref[0] = 0.0");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "start-value")) << Text(*d);
  EXPECT_NE(Text(*d).find("why: your kernel starts `m_ref` at 0 (line 90), the solution's at "
                          "-inf"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AnOperandTheSolutionMasksFirstIsNamedWhereItIsLoaded) {
  auto d =
      DivergenceOfEdit("01_basics/12_ragged_edges",
                       "    b = jnp.where(b_row < K, b_ref[...], 0.0)\n", "    b = b_ref[...]\n");
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(Text(*d).find("its operand made at line 85 is a value the solution's kernel has "
                          "too, but the solution does not `dot_general` it: it goes on from it "
                          "with `select_n` first"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AGuardThatDidNotHoldNamesTheLineComputingItsCondition) {
  auto d = DivergenceOfEdit("03_attention/04_causal",
                            "partial = (first_col <= last_row) & (last_col > first_row)",
                            "partial = (first_col <= first_row) & (last_col > first_row)");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "store-skipped")) << Text(*d);
  EXPECT_NE(Text(*d).find("runs under `@pl.when(partial)` (line 131), which does not hold at "
                          "this step; its condition is computed at line 125: partial = "
                          "(first_col <= first_row) & (last_col > first_row)"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, AStoreThatReplacesWhatTheSolutionAddsToSaysSo) {
  auto d = DivergenceOfEdit("02_softmax/05_softmax_cross_entropy", "picked_ref[...] += jnp.sum(",
                            "picked_ref[...] = jnp.sum(");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "stored-too-early")) << Text(*d);
  EXPECT_NE(Text(*d).find("but the solution goes on from it with `add` (together with what "
                          "`picked_ref` held) before it stores: your store replaces what "
                          "`picked_ref` held instead of combining with it"),
            std::string::npos)
      << Text(*d);
}

TEST(Divergence, ALoopCarryStartedAtAnotherNumberNamesBothStarts) {
  auto d = DivergenceOfEdit("02_softmax/04_online_softmax_loop",
                            "m0 = jnp.full((bm, 1), -jnp.inf, jnp.float32)",
                            "m0 = jnp.zeros((bm, 1), jnp.float32)");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Has(*d, "start-value")) << Text(*d);
  EXPECT_NE(Text(*d).find("the loop at line 79 starts its carry 0 (counting from 0) from 0"),
            std::string::npos)
      << Text(*d);
  EXPECT_NE(Text(*d).find("the solution's loop starts it from -inf"), std::string::npos)
      << Text(*d);
  // The values inside the loop no longer claim a line of their own.
  EXPECT_FALSE(Has(*d, "first-wrong-value")) << Text(*d);
}

TEST(Divergence, ValuesTheEagerStepsDidNotMakeAreNotGuessedAt) {
  // The wrong result is a Python list: no jax.numpy step made it, and no number in it was
  // computed, so the values say nothing about why.
  std::string mine = std::string(kPlainHead) +
                     "check(jnp.array([1.0, 2.0, 4.0]), "
                     "jnp.array([1.0, 2.0, 3.0]))\n";
  std::string theirs = std::string(kPlainHead) +
                       "check(jnp.array([1.0, 2.0, 3.0]), "
                       "jnp.array([1.0, 2.0, 3.0]))\n";
  auto d = DivergenceOfPrograms(mine, theirs);
  EXPECT_FALSE(d.has_value()) << Text(*d);
}

TEST(Divergence, NothingToTellWhenTheProgramPasses) {
  EXPECT_FALSE(FindDivergence(Solution("01_basics/08_tiled_matmul"),
                              Solution("01_basics/08_tiled_matmul"), RunOptions{})
                   .has_value());
}

TEST(Divergence, ACheckOfCountersIsNotAWrongValue) {
  // Computing the blocks above the diagonal and masking them gives the right numbers; only
  // check_saves fails, so there is no divergence to look for.
  auto d = DivergenceOfEdit("03_attention/04_causal",
                            "    @pl.when(full)\n"
                            "    def _full():\n"
                            "        fold_block(scores(), v_ref, m_ref, l_ref, acc_ref)\n"
                            "\n"
                            "    @pl.when(partial)\n"
                            "    def _partial():\n",
                            "    @pl.when(full | partial | ~(full | partial))\n"
                            "    def _partial():\n");
  EXPECT_FALSE(d.has_value()) << (d ? Text(*d) : "");
}

}  // namespace
}  // namespace pz::course

namespace pz::course {
namespace {

// A kernel computing `body` (indented by 4, reading x_ref, writing o_ref) on x = 100 * the
// values 0.0 to 0.7 in an (8, 128) block, checked against `reference(x)`; the run's diagnostics.
std::string DiagnosticsOf(const std::string& body, const std::string& reference) {
  pz::testing::ScratchDir scratch;
  fs::path file = scratch / "program.py";
  std::ofstream(file) << "import jax\n"
                         "import jax.numpy as jnp\n"
                         "from jax.experimental import pallas as pl\n"
                         "from pallas_check import check\n"
                         "\n"
                         "\n"
                         "def kernel(x_ref, o_ref):\n"
                      << body
                      << "\n"
                         "\n"
                         "\n"
                         "x = jnp.tile(jnp.arange(8, dtype=jnp.float32)[:, None] * 100, (1, 128))\n"
                         "out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), "
                         "jnp.float32))(x)\n"
                         "check(out, "
                      << reference << ")\n";
  PuzzleRun run = RunFile(file, RunOptions{});
  EXPECT_EQ(run.status, RunStatus::kFailed) << run.output << run.Diagnostics();
  return run.Diagnostics();
}

TEST(RunFile, AnInfinityFromExpIsTracedToItsLine) {
  // exp(x) / exp(x) is inf / inf = NaN from x = 100 on; the first non-finite number is the
  // overflow of exp(100).
  std::string text = DiagnosticsOf("    o_ref[...] = jnp.exp(x_ref[...]) / jnp.exp(x_ref[...])",
                                   "jnp.ones_like(x)");
  EXPECT_NE(text.find("program.py:8:18: note: the first infinity in a kernel was made here: in "
                      "`kernel` at grid step (), `exp` computed exp(100) = inf (element (1, 0) "
                      "of its result)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("exp overflows float32 above about 88.7"), std::string::npos) << text;
}

TEST(RunFile, ANanFromInfinitiesCancellingIsTracedToTheSubtraction) {
  // Row 0 is masked whole: its maximum is -inf, and -inf - -inf is NaN.
  std::string text = DiagnosticsOf(
      "    x = x_ref[...]\n"
      "    s = jnp.where(x > 0, x, -jnp.inf)\n"
      "    m = jnp.max(s, axis=1, keepdims=True)\n"
      "    o_ref[...] = jnp.exp(s - m)",
      "jnp.where(x > 0, 1.0, 0.0)");
  EXPECT_NE(text.find("`sub` computed -inf - -inf = nan (element (0, 0) of its result)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("program.py:11:26: note"), std::string::npos) << text;
  EXPECT_NE(text.find("infinities of opposite signs cancel to NaN"), std::string::npos) << text;
}

TEST(RunFile, NaNFromUninitialisedMemoryGetsNoArithmeticOrigin) {
  std::string text = DiagnosticsOf("    o_ref[...] = o_ref[...] + x_ref[...]", "x");
  EXPECT_EQ(text.find("the first NaN in a kernel"), std::string::npos) << text;
}

TEST(RunFile, ChecksAreReportsOfValues) {
  // Output block i comes from input block 1 - i: both blocks are wrong, and a second check of
  // the same output names the first instead of drawing the map again.
  pz::testing::ScratchDir scratch;
  fs::path file = scratch / "program.py";
  std::ofstream(file) << R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from pallas_check import check


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((8, 128), lambda i: (1 - i, 0))],
                     out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)))(x)
check(out[:0], x[:0], name="empty")
check(out, x, name="copy")
check(out, x, name="again")
)";
  PuzzleRun run = RunFile(file, RunOptions{});
  ASSERT_EQ(run.checks.size(), 3u) << run.output << run.Diagnostics();
  EXPECT_EQ(run.checks[0].status, CheckReport::Status::kPassed);
  const CheckReport& copy = run.checks[1];
  EXPECT_EQ(copy.status, CheckReport::Status::kFailed);
  EXPECT_EQ(copy.name, "copy");
  EXPECT_TRUE(copy.values);
  EXPECT_EQ(copy.summary, "2048 of 2048 elements differ (atol 1e-05, rtol 1e-05)");
  ASSERT_TRUE(copy.first_mismatch.has_value());
  EXPECT_EQ(copy.first_mismatch->index, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(copy.first_mismatch->block, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(copy.first_mismatch->expected, "0");
  EXPECT_EQ(copy.first_mismatch->got, "1024");
  EXPECT_EQ(copy.block_map_operand, "o_ref");
  EXPECT_FALSE(copy.block_map.empty());
  EXPECT_TRUE(copy.provenance.empty());
  EXPECT_EQ(run.checks[2].block_map_shown_in, "copy");
  EXPECT_TRUE(run.checks[2].block_map.empty());
  // The printed text is the reports rendered, in order.
  std::string rendered;
  for (const CheckReport& c : run.checks) rendered += RenderCheck(c);
  EXPECT_EQ(run.output, rendered);
}

TEST(RunFile, AWarningRepeatedByLaterCallsIsPrintedOnce) {
  pz::testing::ScratchDir scratch;
  fs::path file = scratch / "program.py";
  std::ofstream(file) << R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 9)
    def _():
        o_ref[...] = x_ref[...]


def run(n):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((n, 128), jnp.float32),
                          grid=(n // 8,), in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)))(
                              jnp.ones((n, 128), jnp.float32))


run(16)
run(32)
run(64)
)";
  PuzzleRun run = RunFile(file, RunOptions{});
  std::string text = run.Diagnostics();
  size_t first = text.find("were never written by any grid step");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("were never written by any grid step", first + 1), std::string::npos) << text;
  EXPECT_NE(text.find("the same warning came from 2 later pallas_calls"), std::string::npos)
      << text;
  EXPECT_NE(text.find("no grid step ever ran this line"), std::string::npos) << text;
}

}  // namespace
}  // namespace pz::course
