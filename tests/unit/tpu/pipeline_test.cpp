// The emulated TPU pipeline (engine/tpu/grid_loop.cpp, operand_pipeline.cpp) seen through whole
// programs: grid order, block windows, when blocks are fetched and written back, the checks of
// `tpu` semantics and how `interpret` semantics differ, scalar prefetch, aliasing, warnings,
// counters (scratch buffers: scratch_test.cpp).
// Expected values are worked out by hand from the Pallas rules (pallas-semantics.md), never
// copied from the emulator.
#include "tpu/pallas_call.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "unit/tpu/run_kernel.h"

namespace pz::tpu {
namespace {

using testing::Interpret;
using testing::kCounterProgram;
using testing::KernelOutput;
using testing::KernelRun;
using testing::RunKernelProgram;
using testing::Tpu;

// ---- Grid order ---------------------------------------------------------------------------------

constexpr std::string_view kGridOrder = R"(
def kernel(x_ref, o_ref):
    jax.debug.print("{} {}", pl.program_id(0), pl.program_id(1))
    o_ref[...] = x_ref[...]


x = jnp.arange(6, dtype=jnp.int32).reshape(2, 3)
spec = pl.BlockSpec((1, 1), lambda i, j: (i, j))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 3), jnp.int32), grid=(2, 3),
                     in_specs=[spec], out_specs=spec)(x)
print(out.tolist())
)";

TEST(Pipeline, GridIsRowMajorLastAxisFastest) {
  for (EmulatorOptions options : {Tpu(), Interpret()}) {
    KernelRun r = RunKernelProgram(kGridOrder, options);
    ASSERT_FALSE(r.error) << r.rendered;
    EXPECT_EQ(r.output, "0 0\n0 1\n0 2\n1 0\n1 1\n1 2\n[[0, 1, 2], [3, 4, 5]]\n");
    EXPECT_EQ(r.counters().grid_steps, 6);
  }
}

TEST(Pipeline, ThreeAxisGridOrder) {
  KernelRun r = RunKernelProgram(R"(
def kernel(o_ref):
    jax.debug.print("{}{}{}", pl.program_id(0), pl.program_id(1), pl.program_id(2))
    o_ref[...] = jnp.zeros((1, 1, 1), jnp.int32)


spec = pl.BlockSpec((1, 1, 1), lambda i, j, k: (i, j, k))
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 1, 2), jnp.int32), grid=(2, 1, 2),
               out_specs=spec)()
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "000\n001\n100\n101\n");
}

// ---- Block windows ------------------------------------------------------------------------------

TEST(Pipeline, BlockedWindowStartsAtIndexTimesSize) {
  // Input blocks are read in reverse order: step i reads x[4 * (2 - i) : 4 * (2 - i) + 4].
  EXPECT_EQ(KernelOutput(R"(
def copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.arange(12, dtype=jnp.int32)
out = pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((12,), jnp.int32), grid=(3,),
                     in_specs=[pl.BlockSpec((4,), lambda i: (2 - i,))],
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)))(x)
print(out.tolist())
)"),
            "[8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]\n");
}

TEST(Pipeline, SqueezedDimsAreDroppedAndIndexedByElement) {
  // None in a block shape: the kernel sees the dimension removed; the block index on it is the
  // element index.
  EXPECT_EQ(KernelOutput(R"(
def rows(x_ref, o_ref):
    print(x_ref.shape, o_ref.shape)
    o_ref[...] = x_ref[...] * 10 + pl.program_id(0)


x = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
out = pl.pallas_call(rows, out_shape=jax.ShapeDtypeStruct((3, 4), jnp.int32), grid=(3,),
                     in_specs=[pl.BlockSpec((None, 4), lambda i: (2 - i, 0))],
                     out_specs=pl.BlockSpec((None, 4), lambda i: (i, 0)))(x)
print(out.tolist())


def copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


# columns of a (4, 3) array become rows of a (3, 4) one
y = jnp.arange(12, dtype=jnp.int32).reshape(4, 3)
cols = pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((3, 4), jnp.int32), grid=(3,),
                      in_specs=[pl.BlockSpec((4, None), lambda i: (0, i))],
                      out_specs=pl.BlockSpec((None, 4), lambda i: (i, 0)))(y)
print(cols.tolist())
)"),
            "(4,) (4,)\n"
            "[[80, 90, 100, 110], [41, 51, 61, 71], [2, 12, 22, 32]]\n"
            "[[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]\n");
}

TEST(Pipeline, ElementDimsTakeElementOffsets) {
  // pl.Element(3): the index map returns the first element; windows overlap.
  EXPECT_EQ(KernelOutput(R"(
def copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.arange(10, dtype=jnp.int32)
out = pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((4, 3), jnp.int32), grid=(4,),
                     in_specs=[pl.BlockSpec((pl.Element(3),), lambda i: (1 + 2 * i,))],
                     out_specs=pl.BlockSpec((None, 3), lambda i: (i, 0)))(x)
print(out.tolist())
)"),
            "[[1, 2, 3], [3, 4, 5], [5, 6, 7], [7, 8, 9]]\n");
}

TEST(Pipeline, TransposedIndexMapOnNonSymmetricData) {
  // Output block (i, j) is input block (j, i) of a (4, 6) array in (2, 3) blocks; then a full
  // transpose: output block (i, j) of x.T is input block (j, i) transposed.
  EXPECT_EQ(KernelOutput(R"(
def copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def transpose(x_ref, o_ref):
    o_ref[...] = x_ref[...].T


x = jnp.arange(24, dtype=jnp.int32).reshape(4, 6)
swapped = pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((4, 6), jnp.int32), grid=(2, 2),
                         in_specs=[pl.BlockSpec((2, 3), lambda i, j: (j, i))],
                         out_specs=pl.BlockSpec((2, 3), lambda i, j: (i, j)))(x)
print(swapped.tolist())
xt = pl.pallas_call(transpose, out_shape=jax.ShapeDtypeStruct((6, 4), jnp.int32), grid=(2, 2),
                    in_specs=[pl.BlockSpec((2, 3), lambda i, j: (j, i))],
                    out_specs=pl.BlockSpec((3, 2), lambda i, j: (i, j)))(x)
print(xt.tolist())
)"),
            "[[0, 1, 2, 12, 13, 14], [6, 7, 8, 18, 19, 20], [3, 4, 5, 15, 16, 17], "
            "[9, 10, 11, 21, 22, 23]]\n"
            "[[0, 6, 12, 18], [1, 7, 13, 19], [2, 8, 14, 20], [3, 9, 15, 21], [4, 10, 16, 22], "
            "[5, 11, 17, 23]]\n");
}

TEST(Pipeline, PartialEdgeBlockMovesOnlyTheInBoundsPart) {
  // Length 10 in blocks of 4: grid 3, the last block has 2 real elements.
  KernelRun r = RunKernelProgram(R"(
def scale(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0 + 1.0


x = jnp.arange(10, dtype=jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(scale, out_shape=jax.ShapeDtypeStruct((10,), jnp.float32), grid=(3,),
                     in_specs=[spec], out_specs=spec)(x)
print(out.shape, jnp.array_equal(out, x * 3.0 + 1.0))
print(out.astype(jnp.int32).tolist())
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, "(10,) True\n[1, 4, 7, 10, 13, 16, 19, 22, 25, 28]\n");
  EXPECT_EQ(r.counters().grid_steps, 3);
  EXPECT_EQ(r.counters().hbm_bytes_written, 10 * 4);
  EXPECT_EQ(r.counters().hbm_bytes_read, 10 * 4);
}

// ---- Big input blocks (borrowed from HBM, RefBuffer::borrowed) ---------------------------------

// Input blocks of (32, 128) f32 are 16 KiB, big enough to be borrowed from HBM instead of copied;
// 100 rows make the block of rows 96..127 partial, which is copied (with poison past row 99). The
// index map visits it first, then the whole blocks, so the buffer moves between its own storage
// and borrowed windows both ways.
TEST(Pipeline, BigInputBlocksBorrowedOrCopiedGiveTheSameValues) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0 + y_ref[...]


x = jnp.arange(100 * 128, dtype=jnp.float32).reshape(100, 128)
y = jnp.ones((100, 128), jnp.float32)
spec = pl.BlockSpec((32, 128), lambda i: (3 - i, 0))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((100, 128), jnp.float32), grid=(4,),
                     in_specs=[spec, spec], out_specs=spec)(x, y)
print(jnp.array_equal(out, x * 3.0 + 1.0))
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, "True\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 2 * 100 * 128 * 4);
  EXPECT_EQ(r.counters().hbm_bytes_written, 100 * 128 * 4);
}

TEST(Pipeline, PoisonPastTheEndOfABigInputIsStillSeenAfterBorrowedBlocks) {
  // Whole blocks first (borrowed), then the partial one: its rows past 99 are poison again.
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=0, keepdims=True)


x = jnp.ones((100, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 128), jnp.float32), grid=(4,),
                     in_specs=[pl.BlockSpec((32, 128), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((1, 128), lambda i: (i, 0)))(x)
print(out[:, 0].tolist())
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[32.0, 32.0, 32.0, nan]\n");
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_NE(r.warnings[0].message.find("read of uninitialised memory from x_ref"),
            std::string::npos)
      << r.rendered;
  EXPECT_NE(r.warnings[0].message.find("grid step (3,)"), std::string::npos) << r.rendered;
}

TEST(Pipeline, WritesIntoABigInputBlockStayInVmem) {
  // The kernel writes its input block, so it keeps a copy: the write persists while the block
  // stays resident (one fetch for all three steps) and never reaches the caller's array.
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    x_ref[0, 0] = x_ref[0, 0] + 1.0
    o_ref[...] = x_ref[...]


x = jnp.zeros((32, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((96, 128), jnp.float32), grid=(3,),
                     in_specs=[pl.BlockSpec((32, 128), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((32, 128), lambda i: (i, 0)))(x)
print(out[::32, 0].tolist(), float(out.sum()), float(x[0, 0]))
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[1.0, 2.0, 3.0] 6.0 0.0\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 32 * 128 * 4);
}

TEST(Pipeline, LoadingABigInputBlockWhileADmaIsInFlightIsNoRace) {
  // The DMA copies the pl.ANY input into scratch while the kernel loads its (borrowed) blocked
  // input: different memory, so nothing to report.
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, z_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(z_hbm, buf, sem)
    copy.start()
    v = x_ref[...]
    copy.wait()
    o_ref[...] = v + buf[...]


x = jnp.arange(64 * 128, dtype=jnp.float32).reshape(64, 128)
z = jnp.ones((32, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((32, 128), lambda i: (i, 0)),
                               pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec((32, 128), lambda i: (i, 0)),
                     scratch_shapes=[pltpu.VMEM((32, 128), jnp.float32),
                                     pltpu.SemaphoreType.DMA(())])(x, z)
print(jnp.array_equal(out, x + 1.0))
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, "True\n");
}

// ---- Fetch decisions (tpu semantics) ------------------------------------------------------------

// A kernel with one f32 input of `n` elements in blocks of 8 under `index_map`, grid (4,), and
// an output of 32 elements written block by block.
std::string FetchProgram(int n, std::string_view index_map) {
  return std::string(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


x = jnp.arange()") +
         std::to_string(n) +
         R"(, dtype=jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32,), jnp.float32), grid=(4,),
                     in_specs=[pl.BlockSpec((8,), )" +
         std::string(index_map) + R"()],
                     out_specs=pl.BlockSpec((8,), lambda i: (i,)))(x)
print(out.reshape(4, 8)[:, 0].tolist())
)";
}

TEST(Pipeline, ConstantInputBlockIsFetchedOnce) {
  KernelRun r = RunKernelProgram(FetchProgram(8, "lambda i: (0,)"));
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[1.0, 1.0, 1.0, 1.0]\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 8 * 4);  // one block, outputs are never read
  EXPECT_EQ(r.counters().hbm_bytes_written, 32 * 4);
}

TEST(Pipeline, InputBlockChangingEveryStepIsFetchedEveryStep) {
  KernelRun r = RunKernelProgram(FetchProgram(32, "lambda i: (i,)"));
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[1.0, 9.0, 17.0, 25.0]\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 4 * 8 * 4);
}

TEST(Pipeline, InputBlockChangingEveryOtherStepIsFetchedHalfTheSteps) {
  KernelRun r = RunKernelProgram(FetchProgram(16, "lambda i: (i // 2,)"));
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[1.0, 1.0, 9.0, 9.0]\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 2 * 8 * 4);
}

TEST(Pipeline, OnlyTheLastBlockIsRemembered) {
  // Blocks 0, 1, 0, 1: each step's block differs from the previous one, so each is fetched
  // (the pipeline compares with the previous step only; it is not a cache).
  KernelRun r = RunKernelProgram(FetchProgram(16, "lambda i: (i % 2,)"));
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[1.0, 9.0, 1.0, 9.0]\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 4 * 8 * 4);
}

TEST(Pipeline, InterpretSemanticsRereadsEveryBlockEveryStep) {
  // interpret=True slices inputs and outputs out of the full arrays at every step.
  KernelRun r = RunKernelProgram(FetchProgram(8, "lambda i: (0,)"), Interpret());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[1.0, 1.0, 1.0, 1.0]\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 4 * 8 * 4 + 4 * 8 * 4);
  EXPECT_EQ(r.counters().hbm_bytes_written, 32 * 4);
}

// ---- Write-back decisions -----------------------------------------------------------------------

// Row sums over a reduction axis k: output block (i, 0) is visited at steps (i, 0..2).
constexpr std::string_view kAccumulate = R"(
def acc(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros((1, 8), jnp.float32)

    o_ref[...] += x_ref[...]


x = jnp.arange(48, dtype=jnp.float32).reshape(2, 24)
out = pl.pallas_call(acc, out_shape=jax.ShapeDtypeStruct((2, 8), jnp.float32), grid=(2, 3),
                     in_specs=[pl.BlockSpec((1, 8), lambda i, k: (i, k))],
                     out_specs=pl.BlockSpec((1, 8), lambda i, k: (i, 0)))(x)
print(out.astype(jnp.int32).tolist())
)";
constexpr std::string_view kAccumulateResult =
    "[[24, 27, 30, 33, 36, 39, 42, 45], [96, 99, 102, 105, 108, 111, 114, 117]]\n";

TEST(Pipeline, ConsecutiveOutputRevisitsAreWrittenBackOnce) {
  KernelRun r = RunKernelProgram(kAccumulate);
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, kAccumulateResult);
  EXPECT_EQ(r.counters().hbm_bytes_written, 2 * 8 * 4);  // once per i
  EXPECT_EQ(r.counters().hbm_bytes_read, 6 * 8 * 4);     // the input changes every step
}

TEST(Pipeline, InterpretSemanticsWritesBackEveryStep) {
  KernelRun r = RunKernelProgram(kAccumulate, Interpret());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, kAccumulateResult);
  EXPECT_EQ(r.counters().hbm_bytes_written, 6 * 8 * 4);
  EXPECT_EQ(r.counters().hbm_bytes_read, 6 * 8 * 4 + 6 * 8 * 4);  // input + output each step
}

// Output block j is visited at steps (0, j) and again at (1, j): not consecutive.
constexpr std::string_view kRevisit = R"(
def acc(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros((2, 4), jnp.float32)

    o_ref[...] += x_ref[...]


x = jnp.arange(16, dtype=jnp.float32).reshape(4, 4)
spec = pl.BlockSpec((2, 4), lambda i, j: (j, 0))
out = pl.pallas_call(acc, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2, 2),
                     in_specs=[spec], out_specs=spec)(x)
print(out.astype(jnp.int32).tolist())
)";

TEST(Pipeline, NonConsecutiveRevisitIsAnErrorInTpuSemantics) {
  KernelRun r = RunKernelProgram(kRevisit);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_message,
            "IndexError: Revisited block (0, 0) of output o_ref in grid step (1, 0). The block "
            "was previously visited in grid steps (0, 0) through (0, 0)");
  EXPECT_EQ(r.error_line, 11);  // the spec whose index map revisits
  EXPECT_EQ(r.output, "");
}

TEST(Pipeline, NonConsecutiveRevisitRereadsTheBlockInInterpretSemantics) {
  // JAX interpret=True reads the block back from the output array at every visit, so the
  // second pass adds to the first: 2 * x.
  KernelRun r = RunKernelProgram(kRevisit, Interpret());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, "[[0, 2, 4, 6], [8, 10, 12, 14], [16, 18, 20, 22], [24, 26, 28, 30]]\n");
  EXPECT_EQ(r.counters().hbm_bytes_written, 4 * 8 * 4);
}

// ---- Out-of-range block indices -----------------------------------------------------------------

constexpr std::string_view kInputOutOfRange = R"(
def copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((12,), jnp.int32), grid=(3,),
                     in_specs=[pl.BlockSpec((4,), lambda i: (i,))],
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)))(x)
print(out.tolist())
)";

TEST(Pipeline, OutOfRangeInputBlockIsAnErrorInTpuSemantics) {
  KernelRun r = RunKernelProgram(kInputOutOfRange);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_message,
            "IndexError: Out-of-bounds block index (2,) for input x_ref in grid step (2,): "
            "reading [8:12] but the input has shape (8,)");
  EXPECT_EQ(r.error_line, 8);  // the in_specs index map
}

TEST(Pipeline, OutOfRangeInputBlockIsClampedInInterpretSemantics) {
  // lax.dynamic_slice clamps the window [8:12] to [4:8]: step 2 reads the last block again.
  KernelRun r = RunKernelProgram(kInputOutOfRange, Interpret());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7]\n");
}

TEST(Pipeline, OutOfRangeOutputBlockIsAnErrorInTpuSemantics) {
  KernelRun r = RunKernelProgram(R"(
def copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.arange(12, dtype=jnp.int32)
out = pl.pallas_call(copy, out_shape=jax.ShapeDtypeStruct((8,), jnp.int32), grid=(3,),
                     in_specs=[pl.BlockSpec((4,), lambda i: (i,))],
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)))(x)
)");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_message,
            "IndexError: Out-of-bounds block index (2,) for output o_ref in grid step (2,): "
            "writing [8:12] but the output has shape (8,)");
  EXPECT_EQ(r.error_line, 9);
}

// ---- Scalar prefetch ----------------------------------------------------------------------------

constexpr std::string_view kPrefetchWrite = R"(
def kernel(s_ref, x_ref, o_ref):
    o_ref[0] = s_ref[0] + x_ref[0]
    s_ref[0] = s_ref[0] + 1


spec = pl.BlockSpec((1,), lambda i, s: (i,))
grid_spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(4,), in_specs=[spec],
                                         out_specs=spec)
start = jnp.array([10], dtype=jnp.int32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.int32),
                     grid_spec=grid_spec)(start, jnp.zeros((4,), jnp.int32))
print(out.tolist(), start.tolist())
)";

TEST(Pipeline, PrefetchWritesPersistInTpuSemantics) {
  KernelRun r = RunKernelProgram(kPrefetchWrite);
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[10, 11, 12, 13] [10]\n");
}

TEST(Pipeline, PrefetchWritesAreDroppedInInterpretSemantics) {
  KernelRun r = RunKernelProgram(kPrefetchWrite, Interpret());
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[10, 10, 10, 10] [10]\n");
}

// ---- Aliases and unwritten outputs --------------------------------------------------------------

TEST(Pipeline, AliasedOutputKeepsUnwrittenBlocksOfTheInput) {
  constexpr std::string_view program = R"(
def negate(x_ref, o_ref):
    o_ref[...] = -x_ref[...] * 10


x = jnp.arange(12, dtype=jnp.int32)
spec = pl.BlockSpec((4,), lambda i: (2 - 2 * i,))
out = pl.pallas_call(negate, out_shape=jax.ShapeDtypeStruct((12,), jnp.int32), grid=(2,),
                     in_specs=[spec], out_specs=spec, input_output_aliases={0: 0})(x)
print(out.tolist())
print(x.tolist())
)";
  for (EmulatorOptions options : {Tpu(), Interpret()}) {
    KernelRun r = RunKernelProgram(program, options);
    ASSERT_FALSE(r.error) << r.rendered;
    EXPECT_TRUE(r.warnings.empty()) << r.rendered;
    EXPECT_EQ(r.output,
              "[0, -10, -20, -30, 4, 5, 6, 7, -80, -90, -100, -110]\n"
              "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n");
    EXPECT_EQ(r.counters().hbm_bytes_written, 2 * 4 * 4);
  }
}

TEST(Pipeline, OutputBlockNeverVisitedIsReported) {
  KernelRun r = RunKernelProgram(R"(
def negate(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


x = jnp.arange(12, dtype=jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (2 * i,))
out = pl.pallas_call(negate, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec)(x)
print(out[:4].tolist(), jnp.isnan(out[4:8]).all(), out[8:].tolist())
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[-0.0, -1.0, -2.0, -3.0] True [-8.0, -9.0, -10.0, -11.0]\n");
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_EQ(r.warnings[0].message,
            "4 of 12 elements of output o_ref were never written by any grid step; they hold "
            "garbage");
}

// ---- Counters -----------------------------------------------------------------------------------

TEST(Pipeline, CountersOfABlockedMatmul) {
  // x (16, 32) in (8, 32) row blocks, w (32, 24) whole, out (16, 24) in (8, 24) blocks, an
  // (8, 24) f32 VMEM scratch; grid (2,).
  KernelRun r = RunKernelProgram(R"(
def matmul(x_ref, w_ref, o_ref, acc_ref):
    acc_ref[...] = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = acc_ref[...]


x = jnp.ones((16, 32), jnp.float32)
w = jnp.ones((32, 24), jnp.float32)
out = pl.pallas_call(matmul, out_shape=jax.ShapeDtypeStruct((16, 24), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((8, 32), lambda i: (i, 0)),
                               pl.BlockSpec((32, 24), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((8, 24), lambda i: (i, 0)),
                     scratch_shapes=[pltpu.VMEM((8, 24), jnp.float32)])(x, w)
print(out[0, 0], out[15, 23])
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "32.0 32.0\n");
  const Counters& c = r.counters();
  EXPECT_EQ(c.grid_steps, 2);
  EXPECT_EQ(c.flops, 2 * (2 * 8 * 24 * 32));
  // Blocks double-buffered: x 8*32*4, w 32*24*4, out 8*24*4; plus the scratch 8*24*4.
  EXPECT_EQ(c.vmem_high_water, 2 * (8 * 32 * 4 + 32 * 24 * 4 + 8 * 24 * 4) + 8 * 24 * 4);
  EXPECT_EQ(c.hbm_bytes_read, 2 * 8 * 32 * 4 + 32 * 24 * 4);  // w fetched once
  EXPECT_EQ(c.hbm_bytes_written, 16 * 24 * 4);
}

TEST(Pipeline, ElementwiseFlopsCountOnePerElement) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0 + 1.0


x = jnp.ones((4, 8), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 8), jnp.float32), grid=(4,),
                     in_specs=[pl.BlockSpec((1, 8), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((1, 8), lambda i: (i, 0)))(x)
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.counters().flops, 4 * 2 * 8);
}

TEST(Pipeline, OneStatsEntryPerCall) {
  KernelRun r = RunKernelProgram(std::string(kCounterProgram) + std::string(kCounterProgram));
  ASSERT_FALSE(r.error) << r.rendered;
  ASSERT_EQ(r.stats.size(), 2u);
  EXPECT_EQ(r.stats[0].name, "counter");
  EXPECT_EQ(r.stats[1].counters.grid_steps, 4);
}

// ---- Regressions found while writing these tests ------------------------------------------------

// A rank-0 operand's block index is the empty tuple at every step, which the pipeline takes for
// "already resident" (its "no block yet" marker is also the empty tuple), so the input is never
// fetched: the kernel reads poison. JAX (interpret=True) gives 6.0.
TEST(Pipeline, RankZeroInputIsFetched) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((), jnp.float32))(
    jnp.array(3.0, jnp.float32))
print(out)
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_TRUE(r.warnings.empty()) << r.rendered;
  EXPECT_EQ(r.output, "6.0\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 4);
}

// An output block only partly stored to is written back whole: its never-stored elements reach
// HBM as garbage (NaN) without any warning, because write-back marks the whole window written
// instead of consulting the buffer's initialised shadow.
TEST(Pipeline, PartlyWrittenOutputBlockIsReported) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_ref, o_ref):
    o_ref[0:2] = x_ref[0:2]


x = jnp.arange(8, dtype=jnp.float32)
spec = pl.BlockSpec((4,), lambda i: (i,))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[spec], out_specs=spec)(x)
)");
  ASSERT_FALSE(r.error) << r.rendered;
  // Some warning naming the output (e.g. "4 of 8 elements of output o_ref were never written").
  ASSERT_EQ(r.warnings.size(), 1u) << r.rendered;
  EXPECT_NE(r.warnings[0].message.find("o_ref"), std::string::npos) << r.rendered;
}

}  // namespace
}  // namespace pz::tpu
