// Scratch buffers of the emulated TPU core (engine/tpu/grid_loop.cpp, executor_access.cpp) seen
// through whole programs: they persist across grid steps, start as poison (NaN for floats, the
// minimum for integers), and every read is checked against the elements stored so far, box by
// box and for whole refs.
// Expected values are worked out by hand from the Pallas rules (pallas-semantics.md), never
// copied from the emulator.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tpu/pallas_call.h"
#include "unit/tpu/run_kernel.h"

namespace pz::tpu {
namespace {

using testing::Interpret;
using testing::kCounterProgram;
using testing::KernelRun;
using testing::RunKernelProgram;
using testing::Tpu;

TEST(Scratch, PersistsAcrossGridSteps) {
  for (EmulatorOptions options : {Tpu(), Interpret()}) {
    KernelRun r = RunKernelProgram(kCounterProgram, options);
    ASSERT_FALSE(r.error) << r.rendered;
    EXPECT_TRUE(r.warnings.empty()) << r.rendered;
    EXPECT_EQ(r.output, "[1, 102, 203, 304]\n");
  }
}

TEST(Scratch, StartsPoisoned) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref, acc_ref):
    o_ref[...] = acc_ref[...] + x_ref[...]


x = jnp.ones((8,), jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec,
                     scratch_shapes=[pltpu.VMEM((4,), jnp.float32)])(x)
print(jnp.isnan(out).all())
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "True\n");
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_EQ(r.warnings[0].message,
            "read of uninitialised memory from acc_ref (first in grid step (0,)); output o_ref "
            "holds NaN");
  ASSERT_TRUE(r.warnings[0].span);
}

// The uninitialised-read check walks a box of the buffer's shadow in runs (a contiguous box is
// one run): boxes of a 2-D scratch buffer, whole rows, parts of rows and columns, each read after
// only some of it was stored.
TEST(Scratch, ReadsOfPartlyStoredBoxesAreCheckedElementForElement) {
  struct Case {
    const char* store;
    const char* shape;  // of the stored box
    const char* read;
    bool warns;
  };
  for (Case c : {Case{"s_ref[0:4, :]", "(4, 128)", "s_ref[0:4, :]", false},
                 Case{"s_ref[0:4, :]", "(4, 128)", "s_ref[2:6, :]", true},
                 Case{"s_ref[:, 0:64]", "(8, 64)", "s_ref[:, 0:64]", false},
                 Case{"s_ref[:, 0:64]", "(8, 64)", "s_ref[1:3, 0:64]", false},
                 Case{"s_ref[:, 0:64]", "(8, 64)", "s_ref[:, 32:96]", true},
                 Case{"s_ref[:, 0:64]", "(8, 64)", "s_ref[7:8, 63:65]", true},
                 Case{"s_ref[:, 0:64]", "(8, 64)", "s_ref[0:1, :]", true},
                 Case{"s_ref[2:3, :]", "(1, 128)", "s_ref[2:3, 0:128]", false},
                 Case{"s_ref[0:4, :]", "(4, 128)", "s_ref[:, 5:6]", true},
                 Case{"s_ref[:, 0:8]", "(8, 8)", "s_ref[:, 5:6]", false},
                 Case{"s_ref[...]", "(8, 128)", "s_ref[...]", false},
                 Case{"s_ref[0:4, :]", "(4, 128)", "s_ref[...]", true},
                 Case{"s_ref[:, 0:127]", "(8, 127)", "s_ref[...]", true}}) {
    std::string program = fmt::format(R"(
def kernel(o_ref, s_ref):
    {0} = jnp.ones({1}, jnp.float32)
    o_ref[0:1, 0:1] = jnp.sum({2}).reshape(1, 1)
    o_ref[0:1, 1:128] = jnp.zeros((1, 127), jnp.float32)
    o_ref[1:8, :] = jnp.zeros((7, 128), jnp.float32)


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                     scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)])()
print(out[0, 0] > 0)
)",
                                      c.store, c.shape, c.read);
    KernelRun r = RunKernelProgram(program);
    ASSERT_FALSE(r.error) << r.rendered;
    bool warned = false;
    for (const Diagnostic& w : r.warnings) {
      warned |= w.message.find("read of uninitialised memory from s_ref") != std::string::npos;
    }
    EXPECT_EQ(warned, c.warns) << "stored " << c.store << ", read " << c.read << "\n" << r.rendered;
  }
}

// A read of a whole small buffer checks its shadow eight bytes at a time, then the rest: a
// missing element in either part is seen.
TEST(Scratch, WholeReadsOfASmallPartlyStoredBufferAreChecked) {
  struct Case {
    const char* stores;  // of ones, into (2, 5): its ten shadow bytes are one word and two more
    bool warns;
  };
  for (Case c :
       {Case{"s_ref[...] = jnp.ones((2, 5))", false},
        Case{"s_ref[:, 0:4] = jnp.ones((2, 4))", true},
        Case{"s_ref[1:2, :] = jnp.ones((1, 5))", true},
        Case{"s_ref[:, 1:5] = jnp.ones((2, 4))", true},
        Case{"s_ref[0:1, :] = jnp.ones((1, 5)); s_ref[1:2, 0:3] = jnp.ones((1, 3))", true},
        Case{"s_ref[0:1, :] = jnp.ones((1, 5)); s_ref[1:2, 0:4] = jnp.ones((1, 4))", true},
        Case{"s_ref[0:1, :] = jnp.ones((1, 5)); s_ref[1:2, :] = jnp.ones((1, 5))", false}}) {
    std::string program = fmt::format(R"(
def kernel(o_ref, s_ref):
    {0}
    o_ref[...] = s_ref[...] * 2.0


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 5), jnp.float32),
                     scratch_shapes=[pltpu.VMEM((2, 5), jnp.float32)])()
print(out[0, 0])
)",
                                      c.stores);
    KernelRun r = RunKernelProgram(program);
    ASSERT_FALSE(r.error) << r.rendered;
    bool warned = false;
    for (const Diagnostic& w : r.warnings) {
      warned |= w.message.find("read of uninitialised memory from s_ref") != std::string::npos;
    }
    EXPECT_EQ(warned, c.warns) << c.stores << "\n" << r.rendered;
  }
}

TEST(Scratch, IntegerStartsAtTheMinimum) {
  // Integer poison is the dtype's minimum; no NaN reaches the output, so no warning.
  KernelRun r = RunKernelProgram(R"(
def kernel(o_ref, s_ref):
    o_ref[0] = s_ref[0]


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1,), jnp.int32),
                     scratch_shapes=[pltpu.SMEM((1,), jnp.int32)])()
print(out.tolist())
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[-2147483648]\n");
}

TEST(Scratch, InitialisedGivesNoWarning) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[...] = jnp.zeros((4,), jnp.float32)

    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]


x = jnp.ones((8,), jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec,
                     scratch_shapes=[pltpu.VMEM((4,), jnp.float32)])(x)
print(out.tolist())
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, "[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]\n");
}

// ---- The run-time carry check (EmulatorOptions::carry_axes) --------------------------------
// With `--lint` (the leading "parallel" axes) or `--emit-cuda` (every "parallel" axis), the run
// marks what scratch holds whenever a point of those axes ends, and reports the first read of a
// marked element: a value one point passed to another, which the static walks cannot see when
// the stores that fill the scratch depend on loaded values.

// The options `--emit-cuda` runs the emulator with: its trace hook is set (and adds nothing).
EmulatorOptions EmitCuda() {
  EmulatorOptions options = Tpu();
  options.on_trace = [](const kernel::KernelProgram&, const kernel::GridMapping&,
                        const kernel::CallOperands&,
                        const kernel::RunOptions&) { return std::vector<kernel::CallWarning>{}; };
  return options;
}

// The options of `--lint`.
EmulatorOptions Linting() {
  EmulatorOptions options = Tpu();
  options.lint = true;
  return options;
}

// Scratch of two rows: row 0 stored at every point, row 1 only where the block's sum is positive
// (points 0, 1 and 3 of the four); the kernel reads the row `row` names. Point 2 reads row 1
// unwritten by itself, holding what point 1 stored.
std::string RowsProgram(int row, const std::string& semantics) {
  return fmt::format(R"(
def kernel(x_ref, o_ref, rows_ref):
    rows_ref[0:1, :] = x_ref[0:1, :]

    @pl.when(jnp.sum(x_ref[...]) > 0)
    def _():
        rows_ref[1:2, :] = x_ref[0:1, :] * 2

    o_ref[...] = rows_ref[{0}:{1}, :]


x = jnp.ones((4, 8, 128), jnp.float32) * jnp.array([1.0, 2.0, -1.0, 3.0]).reshape(4, 1, 1)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((4, 1, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((None, 8, 128), lambda i: (i, 0, 0))],
    out_specs=pl.BlockSpec((None, 1, 128), lambda i: (i, 0, 0)),
    scratch_shapes=[pltpu.VMEM((2, 128), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=({2},)),
)(x)
print(out[:, 0, 0])
)",
                     row, row + 1, semantics);
}

TEST(CarryCheck, ReportsTheFirstReadOfWhatAnEarlierPointStored) {
  KernelRun r = RunKernelProgram(RowsProgram(1, "\"parallel\""), EmitCuda());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[2. 4. 4. 6.]\n");  // point 2 sees point 1's row: 2 * 2
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_EQ(r.warnings[0].message,
            "scratch `rows_ref` is read at grid step (2,) where it still holds what an earlier "
            "point of the \"parallel\" axis 0 stored: on the emulated TPU, which runs every step "
            "in order, this read sees that value, but a megacore TPU (v4, v5p) splits the "
            "leading \"parallel\" axes between its two TensorCores and the CUDA backend runs "
            "each point on a CUDA block of its own, each with scratch of its own, and there it "
            "sees something else");
  // At the read, `o_ref[...] = rows_ref[1:2, :]` (line 9 of the program, after the prelude).
  EXPECT_NE(r.rendered.find(fmt::format("test.py:{}:18: warning", 9 + testing::kPreludeLines)),
            std::string::npos)
      << r.rendered;
}

TEST(CarryCheck, JudgesTheElementsReadNotTheWholeBuffer) {
  // Row 0 is stored at every point before it is read: the stale row 1 is never read.
  KernelRun r = RunKernelProgram(RowsProgram(0, "\"parallel\""), EmitCuda());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[ 1.  2. -1.  3.]\n");
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
}

TEST(CarryCheck, LeavesArbitraryAxesAndRunsWithoutTheFlagsAlone) {
  // Along an "arbitrary" axis a value may flow from step to step.
  KernelRun arbitrary = RunKernelProgram(RowsProgram(1, "\"arbitrary\""), EmitCuda());
  ASSERT_FALSE(arbitrary.error) << arbitrary.rendered;
  EXPECT_EQ(arbitrary.output, "[2. 4. 4. 6.]\n");
  EXPECT_TRUE(arbitrary.warnings.empty()) << arbitrary.rendered;
  // A plain run does not check.
  KernelRun plain = RunKernelProgram(RowsProgram(1, "\"parallel\""));
  ASSERT_FALSE(plain.error) << plain.rendered;
  EXPECT_TRUE(plain.warnings.empty()) << plain.rendered;
}

TEST(CarryCheck, LintChecksOnlyTheLeadingParallelAxes) {
  // Grid (2, 4): the carry runs along axis 1, "parallel" after an "arbitrary" axis 0. A megacore
  // splits only leading "parallel" axes, so `--lint` says nothing; each CUDA block runs one point
  // of axis 1, so `--emit-cuda` warns.
  const std::string program = R"(
def kernel(x_ref, o_ref, best_ref):
    @pl.when(jnp.sum(x_ref[...]) > 0)
    def _():
        best_ref[...] = x_ref[0:1, :]

    o_ref[...] = best_ref[...]


x = jnp.ones((2, 4, 8, 128), jnp.float32) * jnp.array([1.0, 2.0, -1.0, 3.0]).reshape(1, 4, 1, 1)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((2, 4, 1, 128), jnp.float32),
    grid=(2, 4),
    in_specs=[pl.BlockSpec((None, None, 8, 128), lambda a, p: (a, p, 0, 0))],
    out_specs=pl.BlockSpec((None, None, 1, 128), lambda a, p: (a, p, 0, 0)),
    scratch_shapes=[pltpu.VMEM((1, 128), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
)(x)
print(out[0, :, 0, 0])
)";
  KernelRun linted = RunKernelProgram(program, Linting());
  ASSERT_FALSE(linted.error) << linted.rendered;
  EXPECT_EQ(linted.output, "[1. 2. 2. 3.]\n");
  EXPECT_TRUE(linted.warnings.empty()) << linted.rendered;
  KernelRun emitted = RunKernelProgram(program, EmitCuda());
  ASSERT_FALSE(emitted.error) << emitted.rendered;
  ASSERT_EQ(emitted.warnings.size(), 1u) << emitted.rendered;
  EXPECT_NE(emitted.warnings[0].message.find(
                "`best_ref` is read at grid step (0, 2) where it still holds what an earlier "
                "point of the \"parallel\" axis 1 stored"),
            std::string::npos)
      << emitted.warnings[0].message;
}

TEST(CarryCheck, KnowsAPointsOwnStoresWhereItResumes) {
  // Grid (3, 2), "parallel" axis 1 inside "arbitrary" axis 0: each point keeps a row of the
  // scratch of its own, which it zeroes at its first step and adds to at the next ones. Where a
  // point resumes, after the other point's step, its row holds only its own stores: the run, like
  // a CUDA block running the point as a chain, sees nothing carried over.
  const std::string program = R"(
def kernel(x_ref, o_ref, acc_ref):
    j = pl.program_id(1)

    @pl.when(pl.program_id(0) == 0)
    def _():
        acc_ref[j] = jnp.zeros((8, 128), jnp.float32)

    acc_ref[j] += x_ref[...]
    o_ref[...] = acc_ref[j]


x = jnp.ones((3, 16, 128), jnp.float32) * jnp.array([1.0, 2.0, 4.0]).reshape(3, 1, 1)
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((3, 16, 128), jnp.float32),
    grid=(3, 2),
    in_specs=[pl.BlockSpec((None, 8, 128), lambda i, j: (i, j, 0))],
    out_specs=pl.BlockSpec((None, 8, 128), lambda i, j: (i, j, 0)),
    scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "parallel")),
)(x)
print(out[:, ::8, 0])
)";
  KernelRun r = RunKernelProgram(program, EmitCuda());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[[1. 1.]\n [3. 3.]\n [7. 7.]]\n");
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
}

TEST(CarryCheck, DoesNotRepeatWhatTheStaticCheckSaid) {
  // The usual accumulator carried into the next point of a "parallel" axis: the lint's static
  // warning tells it at the read, and the run adds nothing.
  const std::string program = R"(
def kernel(x_ref, o_ref, total_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        total_ref[...] = jnp.zeros_like(total_ref)

    total_ref[...] += x_ref[...]
    o_ref[...] = total_ref[...]


x = jnp.ones((32, 128), jnp.float32)
spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid=(4,),
    in_specs=[spec],
    out_specs=spec,
    scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
)(x)
print(out[::8, 0])
)";
  KernelRun r = RunKernelProgram(program, Linting());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[1. 2. 3. 4.]\n");
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_NE(r.warnings[0].message.find("is read at the first step of a point"), std::string::npos)
      << r.warnings[0].message;
}

// The core generator seeded where `seed_when` holds; each point draws a block of bits.
std::string GeneratorProgram(const std::string& seed_when, const std::string& semantics) {
  return fmt::format(R"(
def kernel(o_ref):
    @pl.when({0})
    def _():
        pltpu.prng_seed(17, pl.program_id(0))

    o_ref[...] = pltpu.prng_random_bits(o_ref.shape)


out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((32, 128), jnp.int32),
    grid=(4,),
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=({1},)),
)()
print(bool((out[:8] == out[8:16]).any()))
)",
                     seed_when, semantics);
}

TEST(CarryCheck, ReportsADrawFromAGeneratorAnEarlierPointSeeded) {
  // Seeded at point 0 alone: point 1 goes on from point 0's state on the emulated TPU; on CUDA,
  // or on a megacore's other TensorCore, it would draw from another generator.
  const std::string program = GeneratorProgram("pl.program_id(0) == 0", "\"parallel\"");
  for (const EmulatorOptions& options : {EmitCuda(), Linting()}) {
    KernelRun r = RunKernelProgram(program, options);
    ASSERT_FALSE(r.error) << r.rendered;
    EXPECT_EQ(r.output, "False\n");
    ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
    EXPECT_EQ(r.warnings[0].message,
              "pltpu.prng_random_bits at grid step (1,) draws from the random number generator "
              "as an earlier point of the \"parallel\" axis 0 left it: on the emulated TPU, "
              "which runs every step on one core, these bits go on from that point's seed, but a "
              "megacore TPU (v4, v5p) splits the leading \"parallel\" axes between its two "
              "TensorCores, each with a generator of its own, and the CUDA backend gives each "
              "point a generator of its own, unseeded");
    EXPECT_NE(r.rendered.find(fmt::format("test.py:{}:18: warning", 7 + testing::kPreludeLines)),
              std::string::npos)
        << r.rendered;
  }
  // Along an "arbitrary" axis the state may flow on, and a plain run does not check.
  for (KernelRun r :
       {RunKernelProgram(GeneratorProgram("pl.program_id(0) == 0", "\"arbitrary\""), EmitCuda()),
        RunKernelProgram(program)}) {
    ASSERT_FALSE(r.error) << r.rendered;
    EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  }
}

TEST(CarryCheck, LeavesAGeneratorSeededAtEveryPointAlone) {
  KernelRun r = RunKernelProgram(GeneratorProgram("True", "\"parallel\""), EmitCuda());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "False\n");
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
}

}  // namespace
}  // namespace pz::tpu
