// Megacore (`--cores 2`, engine/tpu/megacore.cpp): how the leading "parallel" grid axes are cut
// into one chunk per TensorCore, that a race-free kernel gives the single-core result on two
// threads, and the race detector (both cores writing one HBM element, one reading what the other
// writes, DMAs into pl.ANY outputs). Expected chunks are worked out by hand from JAX's TPU
// interpret mode (contiguous chunks of ceil(points / cores) points of the parallel sub-grid).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tpu/megacore.h"
#include "unit/tpu/run_kernel.h"

namespace pz::tpu {
namespace {

using testing::KernelRun;
using testing::RunKernelProgram;
using testing::Tpu;
using Chunks = std::vector<std::pair<int64_t, int64_t>>;

EmulatorOptions TwoCores() {
  EmulatorOptions options = Tpu();
  options.cores = 2;
  return options;
}

// ---- Splitting the grid ---------------------------------------------------------------------

TEST(SplitGrid, OneParallelAxisOfThreeGivesTwoRowsToCoreZero) {
  // grid (3, 4), ("parallel", "arbitrary"): 3 points, 2 per core; a point is 4 steps.
  EXPECT_EQ(SplitGrid({3, 4}, 1, 2), (Chunks{{0, 8}, {8, 12}}));
}

TEST(SplitGrid, TwoParallelAxesSplitTheirFlattenedPoints) {
  // grid (3, 4), ("parallel", "parallel"): 12 points, 6 per core, cutting row i = 1 in half.
  EXPECT_EQ(SplitGrid({3, 4}, 2, 2), (Chunks{{0, 6}, {6, 12}}));
}

TEST(SplitGrid, OddSizesGiveTheFirstCoreTheLargerChunk) {
  EXPECT_EQ(SplitGrid({5}, 1, 2), (Chunks{{0, 3}, {3, 5}}));
  EXPECT_EQ(SplitGrid({5, 2, 3}, 1, 2), (Chunks{{0, 18}, {18, 30}}));
}

TEST(SplitGrid, ASinglePointLeavesCoreOneEmpty) {
  EXPECT_EQ(SplitGrid({1, 4}, 1, 2), (Chunks{{0, 4}, {4, 4}}));
}

TEST(SplitGrid, NoParallelAxisRunsEverythingOnCoreZero) {
  EXPECT_EQ(SplitGrid({3, 4}, 0, 2), (Chunks{{0, 12}, {12, 12}}));
  EXPECT_EQ(SplitGrid({0, 4}, 1, 2), (Chunks{{0, 0}, {0, 0}}));
}

TEST(SplitGrid, OneCoreRunsEverything) { EXPECT_EQ(SplitGrid({3, 4}, 2, 1), (Chunks{{0, 12}})); }

TEST(SplitGrid, OnlyLeadingParallelAxesCount) {
  EXPECT_EQ(LeadingParallelAxes({"parallel", "arbitrary", "parallel"}), 1);
  EXPECT_EQ(LeadingParallelAxes({"arbitrary", "parallel"}), 0);
  EXPECT_EQ(LeadingParallelAxes({"parallel", "parallel"}), 2);
  EXPECT_EQ(LeadingParallelAxes({}), 0);
}

// ---- Race-free kernels ------------------------------------------------------------------------

constexpr std::string_view kMatmul = R"(
def kernel(x_ref, y_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)


x = (jnp.arange(24 * 16).reshape(24, 16) % 7 - 3).astype(jnp.float32)
y = (jnp.arange(16 * 16).reshape(16, 16) % 5 - 2).astype(jnp.float32)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((24, 16), jnp.float32), grid=(3, 2, 2),
    in_specs=[pl.BlockSpec((8, 8), lambda i, j, k: (i, k)),
              pl.BlockSpec((8, 8), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((8, 8), lambda i, j, k: (i, j)),
    compiler_params=pltpu.CompilerParams(
        dimension_semantics=("parallel", "parallel", "arbitrary")))(x, y)
print(out.sum(), bool(jnp.array_equal(out, x @ y)))
)";

TEST(Megacore, MatmulOnTwoCoresEqualsOneCore) {
  KernelRun one = RunKernelProgram(kMatmul, Tpu());
  KernelRun two = RunKernelProgram(kMatmul, TwoCores());
  ASSERT_FALSE(one.error) << one.rendered;
  ASSERT_FALSE(two.error) << two.rendered;
  EXPECT_EQ(two.output, one.output);
  EXPECT_NE(two.output.find("True"), std::string::npos) << two.output;
  EXPECT_TRUE(two.warnings.empty()) << two.rendered;
  // 6 (i, j) points: 3 per core, 2 k steps each.
  const CallStats& stats = two.stats.at(0);
  ASSERT_EQ(stats.core_counters.size(), 2u);
  EXPECT_EQ(stats.core_counters[0].grid_steps, 6);
  EXPECT_EQ(stats.core_counters[1].grid_steps, 6);
  EXPECT_EQ(stats.core_steps, (Chunks{{0, 6}, {6, 12}}));
  EXPECT_EQ(two.counters().grid_steps, 12);
  EXPECT_EQ(two.counters().flops, one.counters().flops);
  EXPECT_EQ(two.counters().hbm_bytes_written, one.counters().hbm_bytes_written);
  // Each core's first step fetches both inputs even when core 0's last step had the same block.
  EXPECT_GE(two.counters().hbm_bytes_read, one.counters().hbm_bytes_read);
  EXPECT_EQ(stats.megacore_note,
            "grid axes 0 (`i`, 3 points) and 1 (`j`, 2 points), the leading \"parallel\" axes, "
            "split into 2 contiguous chunks of 3 points, one per TensorCore; each core runs the "
            "other axes whole");
}

TEST(Megacore, RepeatedRunsGiveTheSameResult) {
  std::string first = RunKernelProgram(kMatmul, TwoCores()).output;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(RunKernelProgram(kMatmul, TwoCores()).output, first);
}

TEST(Megacore, EachCoreStartsWithItsOwnScratchAndFetch) {
  // The accumulator is initialised at k == 0 of each row: a core that shared scratch with the
  // other, or skipped its first fetch, would sum the wrong blocks.
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]


x = jnp.arange(4 * 16, dtype=jnp.float32).reshape(4, 16)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((4, 8), jnp.float32), grid=(4, 2),
    in_specs=[pl.BlockSpec((1, 8), lambda i, k: (0, k))],
    out_specs=pl.BlockSpec((1, 8), lambda i, k: (i, 0)),
    scratch_shapes=[pltpu.VMEM((1, 8), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")))(x)
print(out[:, 0].tolist())
)",
                                 TwoCores());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[8.0, 8.0, 8.0, 8.0]\n");  // x[0, 0] + x[0, 8] on every row
}

TEST(Megacore, NoDimensionSemanticsRunsOnOneCoreWithANote) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


spec = pl.BlockSpec((8,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32,), jnp.float32), grid=(4,),
                     in_specs=[spec], out_specs=spec)(jnp.zeros(32, jnp.float32))
print(out.sum())
)",
                                 TwoCores());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "32.0\n");
  EXPECT_TRUE(r.stats.at(0).core_counters.empty());
  EXPECT_NE(r.stats.at(0).megacore_note.find("no dimension_semantics"), std::string::npos);
}

TEST(Megacore, ErrorsOnTheSecondCoreAreReported) {
  // Only core 1 (i = 2, 3) reaches the out-of-range block.
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((32,), jnp.float32), grid=(4,),
    in_specs=[pl.BlockSpec((8,), lambda i: (i * i,))],
    out_specs=pl.BlockSpec((8,), lambda i: (i,)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(jnp.zeros(32))
)",
                                 TwoCores());
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("Out-of-bounds block index (4,)"), std::string::npos)
      << r.error_message;
}

TEST(Megacore, PythonErrorsInsideAKernelOnACoreThreadAreReported) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    jax.debug.print("core step {}", pl.program_id(0))
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...].T)


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((16, 8), jnp.float32), grid=(2,),
    in_specs=[pl.BlockSpec((8, 8), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 8), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.ones((16, 8)))
print(out.sum())
)",
                                 TwoCores());
  ASSERT_FALSE(r.error) << r.rendered;
  // Both cores print (in an order that depends on timing) and the result is complete.
  EXPECT_NE(r.output.find("core step 0\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("core step 1\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1024.0\n"), std::string::npos) << r.output;
}

// ---- The race detector ------------------------------------------------------------------------

TEST(MegacoreRace, ReductionAxisMarkedParallelIsReported) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


x = jnp.ones((6, 32), jnp.float32)
params = pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"))
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((6, 8), jnp.float32), grid=(3, 4),
    in_specs=[pl.BlockSpec((2, 8), lambda i, k: (i, k))],
    out_specs=pl.BlockSpec((2, 8), lambda i, k: (i, 0)),
    compiler_params=params)(x)
)",
                                 TwoCores());
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_line, 12);  // the pallas_call
  // Core 0 runs (0, 0)..(1, 1) and writes block (1, 0) back at its last step; core 1 starts in
  // the middle of row 1 and writes it back at (1, 3).
  EXPECT_NE(r.error_message.find("both TensorCores write block (1, 0) of output `o_ref`: core 0 "
                                 "writes it back in grid step (1, 1) and core 1 writes it back "
                                 "in grid step (1, 3)"),
            std::string::npos)
      << r.error_message;
  std::string notes;
  for (const Note& note : r.error->notes) notes += note.message + "\n";
  EXPECT_NE(notes.find("axis 1 (`k` in the index map of `o_ref`) is a reduction"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("axis 0 "), std::string::npos) << notes;
  // The split is explained at the CompilerParams line.
  EXPECT_NE(r.rendered.find("test.py:17:10: note: dimension_semantics=(\"parallel\", "
                            "\"parallel\") splits the leading axes 0-1 across the 2 cores: core "
                            "0 runs grid steps (0, 0) to (1, 1), core 1 runs (1, 2) to (2, 3)"),
            std::string::npos)
      << r.rendered;
}

TEST(MegacoreRace, MarkingTheReductionArbitraryFixesIt) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


x = jnp.ones((6, 32), jnp.float32)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((6, 8), jnp.float32), grid=(3, 4),
    in_specs=[pl.BlockSpec((2, 8), lambda i, k: (i, k))],
    out_specs=pl.BlockSpec((2, 8), lambda i, k: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")))(x)
print(out.sum())
)",
                                 TwoCores());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "192.0\n");
  EXPECT_EQ(r.stats.at(0).core_steps, (Chunks{{0, 8}, {8, 12}}));
}

TEST(MegacoreRace, LintWarnsOfAParallelReductionAxisOnOneCore) {
  EmulatorOptions options = Tpu();
  options.lint = true;
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), grid=(2, 4),
    in_specs=[pl.BlockSpec((8, 128), lambda i, k: (i, k))],
    out_specs=pl.BlockSpec((8, 128), lambda i, k: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")))(
        jnp.ones((16, 512)))
)",
                                 options);
  ASSERT_FALSE(r.error) << r.rendered;  // one core: the result is right
  EXPECT_EQ(r.WarningText(),
            "grid axis 1 (`k`) is marked \"parallel\" but the block of output `o_ref` does not "
            "change along it: it is a reduction, and on a megacore chip (TPU v4, v5p) both "
            "TensorCores would write the same block\n");
  // Reported at the CompilerParams that mark the axis, not at the pallas_call.
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.rendered.find("|     compiler_params=pltpu.CompilerParams(dimension_semantics="),
            std::string::npos)
      << r.rendered;
}

// ---- Waits for what the point before started (kernel::WaitCarriedAcrossPoints) --------------

// A call of grid (4,) whose body is `body`, with a DMA input `x_hbm` of 4 chunks of 128 floats,
// a block of 128 of the output (zeros: the copies land in scratch nothing reads) and scratch
// `buf` (2, 128), `sems` (2 DMA semaphores) and `flag` (a regular one).
std::string LintDmaProgram(const std::string& body, const std::string& semantics) {
  return R"(
def kernel(x_hbm, o_ref, buf, sems, flag):
    i = pl.program_id(0)
    n = pl.num_programs(0)

    def copy(chunk, slot):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(chunk * 128, 128)], buf.at[slot],
                                     sems.at[slot])

)" + body +
         R"(
    o_ref[...] = jnp.zeros_like(o_ref)


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((512,), jnp.float32), grid=(4,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    out_specs=pl.BlockSpec((128,), lambda i: (i,)),
    scratch_shapes=[pltpu.VMEM((2, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,)),
                    pltpu.SemaphoreType.REGULAR],
    compiler_params=pltpu.CompilerParams(dimension_semantics=()" +
         semantics + R"(,)))(
        jnp.arange(512, dtype=jnp.float32))
)";
}

// `text` with every occurrence of each hole (COND, ROWS, ...) replaced by its value.
std::string Filled(std::string text,
                   const std::vector<std::pair<std::string, std::string>>& holes) {
  for (const auto& [hole, value] : holes) {
    for (size_t at = text.find(hole); at != std::string::npos;
         at = text.find(hole, at + value.size())) {
      text.replace(at, hole.size(), value);
    }
  }
  return text;
}

// A program run on one core with --lint.
KernelRun Linted(const std::string& text) {
  EmulatorOptions options = Tpu();
  options.lint = true;
  return RunKernelProgram(text, options);
}

KernelRun LintDmaBody(const std::string& body, const std::string& semantics = "\"parallel\"") {
  return Linted(LintDmaProgram(body, semantics));
}

constexpr const char* kDoubleBuffer = R"(
    @pl.when(i == 0)
    def _():
        copy(0, 0).start()

    @pl.when(i + 1 < n)
    def _():
        copy(i + 1, (i + 1) % 2).start()

    copy(i, i % 2).wait()
)";

TEST(MegacoreHazard, LintWarnsOfAWaitForACopyThePointBeforeStarted) {
  KernelRun r = LintDmaBody(kDoubleBuffer);
  ASSERT_FALSE(r.error) << r.rendered;  // one core runs the steps in order
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_EQ(r.warnings[0].message,
            "at grid step (1,), where a point of the \"parallel\" axis 0 starts, this waits for a "
            "DMA that no earlier instruction of the step started, so it takes what the point "
            "before started: on a megacore chip (TPU v4, v5p) the two TensorCores split the "
            "points between them, and the second core's first point waits for what its core "
            "never started (it hangs)");
  EXPECT_NE(r.rendered.find("|     copy(i, i % 2).wait()"), std::string::npos) << r.rendered;
  // On two cores the chain breaks where they split the grid, and the error says so.
  EmulatorOptions two = TwoCores();
  two.lint = true;
  std::string program = LintDmaProgram(kDoubleBuffer, "\"parallel\"");
  KernelRun split = RunKernelProgram(program, two);
  ASSERT_TRUE(split.error) << split.rendered;
  EXPECT_NE(split.error_message.find("was never waited"), std::string::npos) << split.rendered;
  EXPECT_NE(split.rendered.find("note: TensorCore 0 runs grid steps (0,) to (1,) of this call, "
                                "with semaphores and DMAs of its own"),
            std::string::npos)
      << split.rendered;
  // Along an "arbitrary" axis the chain is the kernel's own business.
  KernelRun arbitrary = LintDmaBody(kDoubleBuffer, "\"arbitrary\"");
  ASSERT_FALSE(arbitrary.error) << arbitrary.rendered;
  EXPECT_EQ(arbitrary.WarningText(), "");
}

TEST(MegacoreHazard, CopiesStartedAndWaitedWithinTheStepAreFine) {
  for (const char* body : {
           // One descriptor, started and waited.
           "    c = copy(i, 0)\n    c.start()\n    c.wait()\n",
           // Two slots at once, waited in the other order.
           "    copy(i, 0).start()\n    copy(i, 1).start()\n    copy(i, 1).wait()\n"
           "    copy(i, 0).wait()\n",
           // Started in a branch either way, waited after it.
           "    @pl.when(i % 2 == 0)\n    def _():\n        copy(i, 0).start()\n\n"
           "    @pl.when(i % 2 == 1)\n    def _():\n        copy(i, 0).start()\n\n"
           "    copy(i, 0).wait()\n",
           // A chain inside a loop: each iteration waits for what the one before started.
           "    copy(0, 0).start()\n\n    def body(k, carry):\n"
           "        @pl.when(k + 1 < 2)\n        def _():\n            copy(k + 1, (k + 1) % "
           "2).start()\n\n"
           "        copy(k, k % 2).wait()\n        return carry\n\n"
           "    jax.lax.fori_loop(0, 2, body, 0)\n",
           // The other way round: a wait for the iteration before, the last waited after.
           "    def body(k, carry):\n        @pl.when(k > 0)\n        def _():\n"
           "            copy(k - 1, (k - 1) % 2).wait()\n\n"
           "        copy(k, k % 2).start()\n        return carry\n\n"
           "    jax.lax.fori_loop(0, 2, body, 0)\n    copy(1, 1).wait()\n",
       }) {
    // As it is, and only in the steps after the first, so that the first step (whose waits the
    // walk leaves to the run when they fail there too) does not hide what the walk finds.
    std::string later = "    @pl.when(i > 0)\n    def _():\n";
    for (size_t at = 0, end; at < std::strlen(body); at = end + 1) {
      end = std::string_view(body).find('\n', at);
      std::string line(body + at, end - at);
      later += line.empty() ? "\n" : "    " + line + "\n";
    }
    for (const std::string& text : {std::string(body), later}) {
      KernelRun r = LintDmaBody(text);
      ASSERT_FALSE(r.error) << text << r.rendered;
      EXPECT_EQ(r.WarningText(), "") << text;
    }
  }
}

TEST(MegacoreHazard, LintFollowsDmasIntoAndOutOfScratch) {
  // Weights copied into scratch at the grid's first step only: the second core never has them.
  // Copied in when each point starts, or into a part of the scratch (not judged), no warning.
  const std::string program = R"(
def once(w_hbm, x_ref, o_ref, w_vmem, sem):
    @pl.when(COND)
    def _():
        copy = pltpu.make_async_copy(w_hbm.at[ROWS], w_vmem.at[ROWS], sem)
        copy.start()
        copy.wait()

    o_ref[...] = x_ref[...] * w_vmem[...]


out = pl.pallas_call(
    once, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(4,),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.full((8, 128), 3.0), jnp.ones((32, 128)))
print(out[::8, 0])
)";
  auto run = [&](const std::string& cond, const std::string& rows) {
    return Linted(Filled(program, {{"COND", cond}, {"ROWS", rows}}));
  };
  KernelRun once = run("pl.program_id(0) == 0", ":");
  ASSERT_FALSE(once.error) << once.rendered;
  EXPECT_EQ(once.output, "[3. 3. 3. 3.]\n");
  EXPECT_NE(once.WarningText().find("scratch `w_vmem` is read at the first step of a point of "
                                    "the \"parallel\" axis 0 before that step writes all of it"),
            std::string::npos)
      << once.rendered;
  // Every step copies them in: fine, whether the condition is static or only holds at every
  // point the walk tries with its program id known.
  for (const char* cond : {"True", "pl.program_id(0) >= 0"}) {
    KernelRun every = run(cond, ":");
    ASSERT_FALSE(every.error) << every.rendered;
    EXPECT_EQ(every.WarningText(), "") << cond;
  }
  // A copy into the scratch's first rows only leaves it unjudged (its reads are the
  // uninitialised-memory detector's business: rows 1 to 7 are never written).
  KernelRun part = run("True", "0:1");
  EXPECT_EQ(part.WarningText().find("is read at the first step of a point"), std::string::npos)
      << part.rendered;
}

TEST(MegacoreHazard, LintWarnsOfAWaitForASignalThePointBeforeSent) {
  KernelRun r = LintDmaBody(R"(
    @pl.when(i > 0)
    def _():
        pltpu.semaphore_wait(flag, 1)

    @pl.when(i + 1 < n)
    def _():
        pltpu.semaphore_signal(flag, 1)

    c = copy(i, 0)
    c.start()
    c.wait()
)");
  ASSERT_FALSE(r.error) << r.rendered;
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_NE(r.warnings[0].message.find(
                "this waits for a signal of semaphore `flag` that no earlier instruction of the "
                "step sent, so it takes what the point before signalled"),
            std::string::npos)
      << r.warnings[0].message;
}

TEST(MegacoreHazard, LintWarnsOfAnInputBlockStoredIntoAcrossPoints) {
  // A block a TPU keeps resident (its index does not change) carries what the kernel stores
  // into it from one point to the next on one core; the core that starts a point fetches it
  // afresh.
  const std::string program = R"(
def bump(x_ref, o_ref):
    v = x_ref[...]

    @pl.when(COND)
    def _():
        x_ref[...] = v + 1.0

    o_ref[...] = x_ref[...]


out = pl.pallas_call(
    bump, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: MAP)],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.zeros((32, 128)))
print(out[::8, 0])
)";
  auto text = [&](const std::string& cond, const std::string& map) {
    return Filled(program, {{"COND", cond}, {"MAP", map}});
  };
  auto lint = [&](const std::string& cond, const std::string& map) {
    return Linted(text(cond, map));
  };
  KernelRun every = lint("True", "(0, 0)");
  ASSERT_FALSE(every.error) << every.rendered;
  EXPECT_EQ(every.output, "[1. 2. 3. 4.]\n");
  EXPECT_NE(every.WarningText().find("input `x_ref` is read at grid step (1,), where a point of "
                                     "the \"parallel\" axis 0 starts, with the block grid step "
                                     "(0,) may have stored into still in its buffer"),
            std::string::npos)
      << every.rendered;
  EXPECT_NE(every.rendered.find("note: it is stored into here"), std::string::npos)
      << every.rendered;
  // Two cores: the second fetches the block afresh at its first point.
  KernelRun split = RunKernelProgram(text("True", "(0, 0)"), TwoCores());
  ASSERT_FALSE(split.error) << split.rendered;
  EXPECT_EQ(split.output, "[1. 2. 1. 2.]\n");
  // Stored into only at the first point: the walk folds the condition at each step before.
  KernelRun first = lint("pl.program_id(0) == 0", "(0, 0)");
  EXPECT_NE(first.WarningText().find("where a point of the \"parallel\" axis 0 starts"),
            std::string::npos)
      << first.rendered;
  // Stored into only at the last point: nothing is carried into a point.
  KernelRun last = lint("pl.program_id(0) == 3", "(0, 0)");
  ASSERT_FALSE(last.error) << last.rendered;
  EXPECT_EQ(last.output, "[0. 0. 0. 1.]\n");
  EXPECT_EQ(last.WarningText(), "");
  // A block that moves with each point is fetched afresh anyway, on one core too.
  EXPECT_EQ(lint("True", "(i, 0)").WarningText(), "");
  // An index map that computes its block (run on the reference executor): the same block...
  EXPECT_NE(lint("True", "(i // 4, 0)").WarningText().find("input `x_ref` is read"),
            std::string::npos);
  // ... or a new one at every point.
  EXPECT_EQ(lint("True", "(3 - i, 0)").WarningText(), "");
  // A scalar-prefetch ref keeps the kernel's stores for the whole grid: a counter in one.
  KernelRun counter = Linted(R"(
def count(c_ref, x_ref, o_ref):
    c_ref[0] += 1
    o_ref[...] = x_ref[...] + c_ref[0].astype(jnp.float32)


out = pl.pallas_call(
    count, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, c: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, c: (i, 0))),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.zeros((1,), jnp.int32), jnp.zeros((32, 128)))
print(out[::8, 0])
)");
  ASSERT_FALSE(counter.error) << counter.rendered;
  EXPECT_EQ(counter.output, "[1. 2. 3. 4.]\n");
  // An index map over a scalar-prefetch array runs over the array as the call passed it: the
  // block table [0, 0, 1, 1] keeps block 0 resident into point 1 (a megacore's second core,
  // starting at point 2, fetches block 1 afresh anyway); [0, 1, 2, 3] moves it at every point.
  const std::string table_program = R"(
def bump(t_ref, x_ref, o_ref):
    x_ref[...] += 1.0
    o_ref[...] = x_ref[...]


out = pl.pallas_call(
    bump, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, t: (t[i], 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, t: (i, 0))),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.array(TABLE, jnp.int32), jnp.zeros((32, 128)))
print(out[::8, 0])
)";
  KernelRun pairs = Linted(Filled(table_program, {{"TABLE", "[0, 0, 1, 1]"}}));
  ASSERT_FALSE(pairs.error) << pairs.rendered;
  EXPECT_EQ(pairs.output, "[1. 2. 1. 2.]\n");
  EXPECT_NE(pairs.WarningText().find("input `x_ref` is read at grid step (1,), where a point of "
                                     "the \"parallel\" axis 0 starts"),
            std::string::npos)
      << pairs.rendered;
  KernelRun moving = Linted(Filled(table_program, {{"TABLE", "[0, 1, 2, 3]"}}));
  ASSERT_FALSE(moving.error) << moving.rendered;
  EXPECT_EQ(moving.output, "[1. 1. 1. 1.]\n");
  EXPECT_EQ(moving.WarningText(), "") << moving.rendered;
  EXPECT_NE(counter.WarningText().find("scalar-prefetch ref `c_ref` is read at grid step (1,), "
                                       "where a point of the \"parallel\" axis 0 starts, after "
                                       "grid step (0,) may have stored into it"),
            std::string::npos)
      << counter.rendered;
}

TEST(MegacoreRace, ReadingAnAliasedBlockTheOtherCoreWritesIsReported) {
  // In place with the blocks swapped: core 0 reads block 0 and writes block 1, core 1 the
  // reverse, through one HBM buffer.
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((16,), jnp.float32), grid=(2,),
    in_specs=[pl.BlockSpec((8,), lambda i: (i,))],
    out_specs=pl.BlockSpec((8,), lambda i: (1 - i,)),
    input_output_aliases={0: 0},
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(jnp.zeros(16))
)",
                                 TwoCores());
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("one TensorCore reads what the other writes, block (0,) of "
                                 "output `o_ref`: core 0 fetches it in grid step (0,) and core 1 "
                                 "writes it back in grid step (1,)"),
            std::string::npos)
      << r.error_message;
}

constexpr std::string_view kDmaKernel = R"(
def kernel(x_ref, o_hbm, buf, sem):
    buf[...] = x_ref[...]
    copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(START, 8)], sem)
    copy.start()
    copy.wait()


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((16,), jnp.float32), grid=(2,),
    in_specs=[pl.BlockSpec((8,), lambda i: (i,))],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.arange(16, dtype=jnp.float32))
print(out.tolist())
)";

std::string DmaKernel(std::string_view start) {
  std::string program(kDmaKernel);
  program.replace(program.find("START"), 5, start);
  return program;
}

TEST(MegacoreRace, DmasOfBothCoresIntoOneWindowAreReported) {
  KernelRun r = RunKernelProgram(DmaKernel("4 * pl.program_id(0)"), TwoCores());
  ASSERT_TRUE(r.error);
  // Core 0 writes [0, 8), core 1 [4, 12): element 4 is the first both write.
  EXPECT_NE(r.error_message.find("both TensorCores write element (4,) of `o_hbm` in HBM: core 0 "
                                 "writes it through the DMA at line 11 in grid step (0,) and "
                                 "core 1 writes it through the DMA at line 11 in grid step (1,)"),
            std::string::npos)
      << r.error_message;
  EXPECT_NE(r.rendered.find("test.py:11:5: note: the DMA of core 1 (writing it in grid step "
                            "(1,))"),
            std::string::npos)
      << r.rendered;
}

TEST(MegacoreRace, DmasIntoDisjointWindowsAreMerged) {
  KernelRun two = RunKernelProgram(DmaKernel("8 * pl.program_id(0)"), TwoCores());
  ASSERT_FALSE(two.error) << two.rendered;
  EXPECT_EQ(two.output, RunKernelProgram(DmaKernel("8 * pl.program_id(0)")).output);
  EXPECT_EQ(two.output.substr(0, 12), "[0.0, 1.0, 2");
  EXPECT_TRUE(two.warnings.empty()) << two.rendered;
}

TEST(DmaWriter, DmaIntoAnyOutputRecordsItsStep) {
  // One core: element 8.. of the output are written by no DMA, which is now a warning instead
  // of an output nobody looked at.
  KernelRun r = RunKernelProgram(R"(
def kernel(x_hbm, o_hbm, sem):
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 8)], o_hbm.at[pl.ds(0, 8)], sem)
    copy.start()
    copy.wait()


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
    in_specs=[pl.BlockSpec(memory_space=pl.ANY)], out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.SemaphoreType.DMA])(jnp.zeros(16))
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_NE(r.WarningText().find("8 of 16 elements of output o_hbm were never written"),
            std::string::npos)
      << r.rendered;
}

TEST(MegacoreHazard, LintWarnsOfDmasOfBothCoresIntoOneWindow) {
  const std::string program = R"(
def copy_out(x_ref, o_hbm, buf, sem):
    i = pl.program_id(0)
    buf[...] = x_ref[...] + 1.0

    @pl.when(COND)
    def _():
        copy = pltpu.make_async_copy(buf, o_hbm.at[pl.ds(START, 8)], sem)
        copy.start()
        copy.wait()


out = pl.pallas_call(
    copy_out, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec(memory_space=pl.ANY),
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(
        jnp.zeros((32, 128)))
print(out[0, 0])
)";
  auto text = [&](const std::string& cond, const std::string& start) {
    return Filled(program, {{"COND", cond}, {"START", start}});
  };
  auto lint = [&](const std::string& cond, const std::string& start) {
    return Linted(text(cond, start));
  };
  // Every point into the first rows: steps 0 and 2 run on different cores.
  KernelRun same = lint("True", "0");
  ASSERT_FALSE(same.error) << same.rendered;
  EXPECT_NE(same.WarningText().find("the DMAs of grid steps (0,) and (2,) both write element "
                                    "(0, 0) of `o_hbm` in HBM"),
            std::string::npos)
      << same.rendered;
  EXPECT_NE(same.rendered.find("|         copy.start()"), std::string::npos) << same.rendered;
  // Which two cores report as a race when they run it.
  KernelRun split = RunKernelProgram(text("True", "0"), TwoCores());
  ASSERT_TRUE(split.error) << split.rendered;
  EXPECT_NE(split.error_message.find("megacore race"), std::string::npos) << split.rendered;
  // Windows of their own; windows shared only by points of one core; a copy only one point
  // makes: no race.
  for (auto [cond, start] : std::vector<std::pair<std::string, std::string>>{
           {"True", "i * 8"}, {"True", "(i // 2) * 8"}, {"i == 0", "0"}, {"i < 0", "0"}}) {
    EXPECT_EQ(lint(cond, start).WarningText().find("both write"), std::string::npos)
        << cond << " " << start;
  }
}

}  // namespace
}  // namespace pz::tpu
