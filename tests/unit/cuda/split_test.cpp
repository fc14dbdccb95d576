// How a call's grid spreads over CUDA blocks: axes whose iterations start afresh (FreshStart,
// engine/cuda/plan.h) and grid points split into parts (engine/cuda/split.h): which kernels split
// and along what, and that a split kernel is a Pallas call of its own computing what the whole
// one does (run here on the emulated TPU, bit for bit).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/plan.h"
#include "cuda/split.h"
#include "tpu/tpu_backend.h"
#include "unit/cuda/trace_call.h"
#include "unit/tpu/run_kernel.h"

namespace pz::cuda {
namespace {

void Replace(std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

std::optional<PointSplit> Split(const Traced& t) {
  return SplitGridPoints(t.program, t.mapping, SplitGridForCuda(t.program, t.mapping));
}

// The split call's outputs on the emulator equal the whole call's, bit for bit.
void ExpectSameOutputs(const Traced& t, const PointSplit& split) {
  tpu::EmulatorOptions plain = tpu::testing::Tpu();
  tpu::TpuBackend backend(plain);
  std::vector<array::Array> outputs =
      backend.Run(split.program, split.mapping, t.operands, {}).outputs;
  ASSERT_EQ(outputs.size(), t.outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    array::Array a = outputs[o].Contiguous(), b = t.outputs[o].Contiguous();
    ASSERT_EQ(a.shape(), b.shape());
    size_t bytes = static_cast<size_t>(a.size()) * array::ItemSize(a.dtype());
    EXPECT_EQ(std::memcmp(a.raw(), b.raw(), bytes), 0) << "output " << o << " differs";
  }
}

constexpr const char* kMatmul = R"(
def kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)
    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = jnp.maximum(acc_ref[...], 0.0)

n, b = 512, 256
x = jnp.sin(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.37)
y = jnp.cos(jnp.arange(n * n, dtype=jnp.float32).reshape(n, n) * 0.11)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((n, n), jnp.float32), grid=(n // b, n // b, n // b),
    in_specs=[pl.BlockSpec((b, b), lambda i, j, k: (i, k)),
              pl.BlockSpec((b, b), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((b, b), lambda i, j, k: (i, j)),
    scratch_shapes=[pltpu.VMEM((b, b), jnp.float32)],
    compiler_params=pltpu.CompilerParams(
        dimension_semantics=("parallel", "parallel", "arbitrary")))(x, y)
)";

TEST(GridPointSplit, SplitsAMatmulAlongRowsAndColumnsKeepingItsSteps) {
  Traced t = Trace(kMatmul);
  std::optional<PointSplit> split = Split(t);
  ASSERT_TRUE(split);
  // 4 chains of 2 steps; halving 256 down to 128 (a product's least) on both axes gives 4 parts
  // a point.
  EXPECT_EQ(split->parts, 4);
  EXPECT_EQ(split->mapping.grid, (std::vector<int64_t>{2, 2, 2, 2, 2}));
  EXPECT_EQ(split->original_axis, (std::vector<int>{0, 1, -1, -1, 2}));
  EXPECT_EQ(
      split->mapping.dimension_semantics,
      (std::vector<std::string>{"parallel", "parallel", "parallel", "parallel", "arbitrary"}));
  EXPECT_EQ(split->mapping.inputs[0].ref_shape, (array::Shape{128, 256}));
  EXPECT_EQ(split->mapping.inputs[1].ref_shape, (array::Shape{256, 128}));
  EXPECT_EQ(split->mapping.outputs[0].ref_shape, (array::Shape{128, 128}));
  EXPECT_EQ(split->mapping.scratch[0].shape, (array::Shape{128, 128}));
  EXPECT_NE(split->note.find("4 parts"), std::string::npos) << split->note;
  ExpectSameOutputs(t, *split);
  // Step 1 of the split grid is point (0, 0, 0, 0, 1): the call's step 1, (0, 0, 1).
  EXPECT_EQ(OriginalStep(*split, t.mapping.grid, 1), 1);
  // The last point, (1, 1, 1, 1, 1), is the call's (1, 1, 1): step 7.
  EXPECT_EQ(OriginalStep(*split, t.mapping.grid, 31), 7);
}

TEST(GridPointSplit, KeepsWholeWhatARowReductionNeedsWhole) {
  // Softmax rows: the reduction runs along the columns, so only rows split.
  Traced t = Trace(R"(
def kernel(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)

x = jnp.sin(jnp.arange(512 * 256, dtype=jnp.float32).reshape(512, 256))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((512, 256), jnp.float32),
                     grid=(2,), in_specs=[pl.BlockSpec((256, 256), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((256, 256), lambda i: (i, 0)))(x)
)");
  std::optional<PointSplit> split = Split(t);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->parts, 4);
  EXPECT_EQ(split->mapping.outputs[0].ref_shape, (array::Shape{64, 256}));
  ExpectSameOutputs(t, *split);
}

TEST(GridPointSplit, KeepsAPointWholeWhenNoDimensionMaySplit) {
  // Column sums reduce the rows, the columns are iota's: nothing splits.
  EXPECT_FALSE(Split(Trace(R"(
def kernel(x_ref, o_ref):
    cols = lax.broadcasted_iota(jnp.int32, (1, 256), 1).astype(jnp.float32)
    o_ref[...] = jnp.sum(x_ref[...], axis=0, keepdims=True) + cols

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1, 256), jnp.float32),
                     in_specs=[pl.BlockSpec((256, 256), lambda: (0, 0))],
                     out_specs=pl.BlockSpec((1, 256), lambda: (0, 0)))(x)
)")));
  // A product of a block with its own transpose: its rows are the result's rows and columns.
  EXPECT_FALSE(Split(Trace(R"(
def kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = lax.dot_general(x, x, (((1,), (1,)), ((), ())))

x = jnp.ones((256, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32),
                     in_specs=[pl.BlockSpec((256, 128), lambda: (0, 0))],
                     out_specs=pl.BlockSpec((256, 256), lambda: (0, 0)))(x)
)")));
}

TEST(GridPointSplit, KeepsWholeTheDimensionsOfAWindowSlicedAtATracedStart) {
  // The rows read at a traced start may be any part's; the columns still split.
  Traced t = Trace(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[pl.ds(pl.program_id(0) * 3, 256), :] * 2.0

x = jnp.sin(jnp.arange(512 * 256, dtype=jnp.float32).reshape(512, 256))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32), grid=(1,),
                     in_specs=[pl.BlockSpec((512, 256), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((256, 256), lambda i: (0, 0)))(x)
)");
  std::optional<PointSplit> split = Split(t);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->parts, 4);
  EXPECT_EQ(split->mapping.inputs[0].ref_shape, (array::Shape{512, 64}));
  EXPECT_EQ(split->mapping.outputs[0].ref_shape, (array::Shape{256, 64}));
  ExpectSameOutputs(t, *split);
}

TEST(GridPointSplit, NeverSplitsKernelsThatMoveMemoryThemselves) {
  EXPECT_FALSE(Split(Trace(R"(
def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...] + 1.0

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec((256, 256), lambda: (0, 0)),
                     scratch_shapes=[pltpu.VMEM((256, 256), jnp.float32),
                                     pltpu.SemaphoreType.DMA])(x)
)")));
}

// A kernel that counts its steps in a scalar-prefetch ref (STORE), or only reads it.
constexpr const char* kPrefetchCounter = R"(
def kernel(c_ref, x_ref, o_ref):
    STORE
    o_ref[...] = x_ref[...] + c_ref[0].astype(jnp.float32)

x = jnp.ones((256, 256), jnp.float32)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((256, 256), jnp.float32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(2,),
        in_specs=[pl.BlockSpec((256, 128), lambda j, c: (0, j))],
        out_specs=pl.BlockSpec((256, 128), lambda j, c: (0, j))),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)))(
        jnp.full((1,), 3, jnp.int32), x)
)";

TEST(GridPointSplit, NeverSplitsKernelsThatStoreIntoAScalarPrefetchRef) {
  // The parts of a point run on CUDA blocks of their own, each with a copy of the ref: each part
  // would count from the start again.
  std::string counts = kPrefetchCounter, reads = kPrefetchCounter;
  Replace(counts, "STORE", "c_ref[0] += 1");
  Replace(reads, "STORE", "pass");
  EXPECT_FALSE(Split(Trace(counts)));
  std::optional<PointSplit> split = Split(Trace(reads));
  ASSERT_TRUE(split);
  EXPECT_GT(split->parts, 1);
}

TEST(ScalarPrefetchCopy, EachCudaBlockWritesACopyOfItsOwn) {
  // On a GPU the blocks run at once: a store into the HBM array would reach the other blocks'
  // reads. The copy starts as the array; a ref the kernel only reads stays the array itself.
  std::string counts = kPrefetchCounter, reads = kPrefetchCounter;
  Replace(counts, "STORE", "c_ref[0] += 1");
  Replace(reads, "STORE", "pass");
  Traced t = Trace(counts);
  PlannedCall plan = PlanCall(t.program, t.mapping, t.operands, {}, 0, 48 * 1024, WarpTile{});
  const std::string& source = plan.kernel.source;
  EXPECT_EQ(source.find("* const r0 = pz_hbm0;"), std::string::npos) << source;
  EXPECT_NE(source.find(" r0[pz_i] = pz_hbm0[pz_i];"), std::string::npos) << source;
  Traced r = Trace(reads);
  PlannedCall read_plan = PlanCall(r.program, r.mapping, r.operands, {}, 0, 48 * 1024, WarpTile{});
  EXPECT_NE(read_plan.kernel.source.find("* const r0 = pz_hbm0;"), std::string::npos)
      << read_plan.kernel.source;
}

TEST(GridPointSplit, LeavesCallsWithChainsEnoughAlone) {
  // 1024 parallel points already.
  EXPECT_FALSE(Split(Trace(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0

x = jnp.ones((1024 * 128, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32), grid=(1024,),
                     in_specs=[pl.BlockSpec((128, 128), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((128, 128), lambda i: (i, 0)),
                     compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))(x)
)")));
}

TEST(GridPointSplit, SplitsTheRowsOfAnAttentionStepWithItsRunningStatistics) {
  // m and l are (rows, 1) scratch: their rows split with the queries'; the keys stay whole.
  Traced t = Trace(R"(
def kernel(q_ref, k_ref, v_ref, o_ref, m_ref, l_ref, acc_ref):
    j = pl.program_id(1)
    @pl.when(j == 0)
    def _():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)
    s = lax.dot_general(q_ref[...], k_ref[...], (((1,), (1,)), ((), ())))
    m_prev = m_ref[...]
    m_new = jnp.maximum(m_prev, jnp.max(s, axis=1, keepdims=True))
    p = jnp.exp(s - m_new)
    alpha = jnp.exp(m_prev - m_new)
    l_ref[...] = alpha * l_ref[...] + jnp.sum(p, axis=1, keepdims=True)
    acc_ref[...] = alpha * acc_ref[...] + jnp.dot(p, v_ref[...])
    m_ref[...] = m_new
    @pl.when(j == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = acc_ref[...] / l_ref[...]

t, d, b = 512, 64, 256
q = jnp.sin(jnp.arange(t * d, dtype=jnp.float32).reshape(t, d) * 0.37)
k = jnp.cos(jnp.arange(t * d, dtype=jnp.float32).reshape(t, d) * 0.23)
v = jnp.sin(jnp.arange(t * d, dtype=jnp.float32).reshape(t, d) * 0.11)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((t, d), jnp.float32), grid=(t // b, t // b),
    in_specs=[pl.BlockSpec((b, d), lambda i, j: (i, 0)), pl.BlockSpec((b, d), lambda i, j: (j, 0)),
              pl.BlockSpec((b, d), lambda i, j: (j, 0))],
    out_specs=pl.BlockSpec((b, d), lambda i, j: (i, 0)),
    scratch_shapes=[pltpu.VMEM((b, 1), jnp.float32), pltpu.VMEM((b, 1), jnp.float32),
                    pltpu.VMEM((b, d), jnp.float32)],
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")))(q, k, v)
)");
  std::optional<PointSplit> split = Split(t);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->parts, 2);  // 256 rows in two parts of 128; d = 64 may not halve
  EXPECT_EQ(split->mapping.inputs[0].ref_shape, (array::Shape{128, 64}));
  EXPECT_EQ(split->mapping.inputs[1].ref_shape, (array::Shape{256, 64}));
  EXPECT_EQ(split->mapping.scratch[0].shape, (array::Shape{128, 1}));
  ExpectSameOutputs(t, *split);
}

TEST(GridPointSplit, RunsPartsWhollyPastTheArrayAsThePaddingOfTheirBlock) {
  // 300 rows in blocks of 256: the second block's parts from row 320 on lie wholly past the
  // array, where a block of their size would be out of range. They run on the poison and write
  // nothing, as that padding does in the whole block; the host device gives the emulator's
  // result.
  constexpr const char* kProgram = R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0 + 1.0

x = jnp.sin(jnp.arange(ROWS * 128, dtype=jnp.float32).reshape(-1, 128))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((256, 128), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((256, 128), lambda i: (i, 0)))(x)
)";
  for (const char* rows : {"300", "512"}) {
    std::string source = kProgram;
    Replace(source, "ROWS", rows);
    Traced t = Trace(source);
    PlannedCall plan = PlanCall(t.program, t.mapping, t.operands, {}, 0, 48 * 1024);
    ASSERT_TRUE(plan.parts) << rows;
    EXPECT_EQ(plan.split.chains, 16) << rows;  // each of the 2 blocks in 8 parts of 64 x 64
    EXPECT_NE(plan.split.note.find("parts on as many CUDA blocks"), std::string::npos)
        << plan.split.note;
    CudaBackend host(CudaOptions{}, OpenHostDevice());
    array::Array got = host.Run(t.program, t.mapping, t.operands, {}).outputs.at(0).Contiguous();
    array::Array want = t.outputs.at(0).Contiguous();
    ASSERT_EQ(got.shape(), want.shape());
    size_t bytes = static_cast<size_t>(got.size()) * array::ItemSize(got.dtype());
    EXPECT_EQ(std::memcmp(got.raw(), want.raw(), bytes), 0) << rows << " rows";
  }
}

TEST(GridPointSplit, LeavesTheCallsOwnErrorsToTheCall) {
  // A block index out of range in the call itself is its error, split or not.
  Traced t = Trace(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

x = jnp.ones((512, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((256, 128), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((256, 128), lambda i: (i, 0)))(x)
)");
  kernel::GridMapping wrong = t.mapping;
  wrong.grid = {3};  // block 2 of x is past its 512 rows
  EXPECT_THROW(PlanCall(t.program, wrong, t.operands, {}, 0, 48 * 1024), kernel::CallError);
}

constexpr const char* kAttention = R"(
def kernel(q_ref, k_ref, o_ref, m_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
    s = lax.dot_general(q_ref[...], k_ref[...], (((1,), (1,)), ((), ())))
    m_ref[...] = jnp.maximum(m_ref[...], jnp.max(s, axis=1, keepdims=True))
    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = m_ref[...]

h, t, d, b = 2, 256, 64, 64
q = jnp.sin(jnp.arange(h * t * d, dtype=jnp.float32).reshape(h, t, d) * 0.37)
k = jnp.cos(jnp.arange(h * t * d, dtype=jnp.float32).reshape(h, t, d) * 0.23)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((h, t, 1), jnp.float32), grid=(h, t // b, t // b),
    in_specs=[pl.BlockSpec((None, b, d), lambda h, i, j: (h, i, 0)),
              pl.BlockSpec((None, b, d), lambda h, i, j: (h, j, 0))],
    out_specs=pl.BlockSpec((None, b, 1), lambda h, i, j: (h, i, 0)),
    scratch_shapes=[pltpu.VMEM((b, 1), jnp.float32)],
    compiler_params=pltpu.CompilerParams(SEMANTICS))(q, k)
)";

Traced TraceAttention(const std::string& semantics) {
  std::string source = kAttention;
  Replace(source, "SEMANTICS", semantics);
  return Trace(source);
}

TEST(FreshStart, RunsTheQueryBlocksOfAnAttentionAsChainsOfTheirOwn) {
  // The running maximum starts again whenever the key axis does: the query axis's iterations
  // share nothing, though "arbitrary"; the key axis's do.
  Traced t = TraceAttention(R"(dimension_semantics=("parallel", "arbitrary", "arbitrary"))");
  const kernel::Function& f = *t.program.kernel;
  EXPECT_TRUE(FreshStart(f, 1, {1, 2}));
  EXPECT_FALSE(FreshStart(f, 2, {1, 2}));
  GridSplit split = SplitGridForCuda(t.program, t.mapping);
  EXPECT_EQ(split.parallel, (std::vector<int>{0, 1}));
  EXPECT_EQ(split.fresh, (std::vector<int>{1}));
  EXPECT_EQ(split.chains, 8);
  EXPECT_EQ(split.steps_per_chain, 4);
  EXPECT_NE(split.note.find("axis 1 too"), std::string::npos) << split.note;
  GridSplit as_given = SplitGridForCuda(t.program, t.mapping, false);
  EXPECT_EQ(as_given.chains, 2);
  // Every axis "arbitrary": the heads and the query blocks both start afresh.
  Traced all = TraceAttention(R"(dimension_semantics=("arbitrary", "arbitrary", "arbitrary"))");
  EXPECT_EQ(SplitGridForCuda(all.program, all.mapping).fresh, (std::vector<int>{0, 1}));
  // The plan runs it so; on the host device, chain after chain, it gives what the grid's order
  // gives on the emulator.
  PlannedCall plan = PlanCall(t.program, t.mapping, t.operands, {}, 0, 48 * 1024);
  EXPECT_EQ(plan.split.chains, 8);
  CudaBackend host(CudaOptions{}, OpenHostDevice());
  array::Array got = host.Run(t.program, t.mapping, t.operands, {}).outputs.at(0).Contiguous();
  array::Array want = t.outputs.at(0).Contiguous();
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got.GetDouble(i), want.GetDouble(i), 1e-4) << "element " << i;
  }
}

TEST(FreshStart, KeepsInOrderWhatReadsStateBeforeWritingIt) {
  // An accumulator read at every step but the first: the reduction axis carries it.
  Traced matmul = Trace(kMatmul);
  EXPECT_FALSE(FreshStart(*matmul.program.kernel, 2, {2}));
  EXPECT_TRUE(SplitGridForCuda(matmul.program, matmul.mapping).fresh.empty());
  // Re-initialised only where another axis is 0: not a fresh start of the query axis.
  std::string source = kAttention;
  Replace(source, "pl.program_id(2) == 0", "pl.program_id(0) == 0");
  Replace(source, "SEMANTICS", R"(dimension_semantics=("parallel", "arbitrary", "arbitrary"))");
  Traced late = Trace(source);
  EXPECT_FALSE(FreshStart(*late.program.kernel, 1, {1, 2}));
  // Part of the scratch written: the rest is still the last iteration's.
  source = kAttention;
  Replace(source, "m_ref[...] = jnp.full(m_ref.shape", "m_ref[0:32, :] = jnp.full((32, 1)");
  Replace(source, "SEMANTICS", R"(dimension_semantics=("parallel", "arbitrary", "arbitrary"))");
  Traced partial = Trace(source);
  EXPECT_FALSE(FreshStart(*partial.program.kernel, 1, {1, 2}));
}

TEST(FreshStart, GivesWayWhenTheFreshIterationsWriteOneOutputWindow) {
  // Each step writes the one output block whole, so its iterations start afresh; but they all
  // write one window, so they run in order on one chain, as the semantics say.
  Traced t = Trace(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

x = jnp.ones((512, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256, 128), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((256, 128), lambda i: (i, 0))],
                     out_specs=pl.BlockSpec((256, 128), lambda i: (0, 0)),
                     compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)))(x)
)");
  GridSplit split = SplitGridForCuda(t.program, t.mapping);
  EXPECT_EQ(split.fresh, (std::vector<int>{0}));
  PlannedCall plan = PlanCall(t.program, t.mapping, t.operands, {}, 0, 48 * 1024);
  EXPECT_TRUE(plan.split.fresh.empty());
  EXPECT_EQ(plan.split.sequential, (std::vector<int>{0}));
}

// The output's ref among the kernel's refs (prefetch, inputs, then outputs).
kernel::RefId OutputRef(const Traced& t, size_t output) {
  return static_cast<kernel::RefId>(t.mapping.prefetch.size() + t.mapping.inputs.size() + output);
}

Traced TraceOutputBody(const std::string& body) {
  return Trace(R"(
def kernel(x_ref, o_ref):
)" + body + R"(

x = jnp.ones((32, 128), jnp.float32)
spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(4,),
                     in_specs=[spec], out_specs=spec)(x)
)");
}

TEST(WrittenWholeBeforeRead, AsksWhetherAStepCanSeeWhatTheLastOneLeft) {
  // Stored whole, then read: nothing of the last block shows.
  Traced whole = TraceOutputBody(
      "    o_ref[...] = x_ref[...] * 2.0\n"
      "    o_ref[0:1, :] = o_ref[1:2, :]");
  EXPECT_TRUE(WrittenWholeBeforeRead(*whole.program.kernel, OutputRef(whole, 0)));
  EXPECT_EQ(SplitGridForCuda(whole.program, whole.mapping).chains, 4);
  // Read first, written in part, or written only on one branch: the buffer carries the last
  // block's values into the step, so the grid runs in order without semantics.
  for (const char* body : {"    o_ref[...] = o_ref[...] + x_ref[...]",
                           "    o_ref[0:4, :] = x_ref[0:4, :]\n"
                           "    o_ref[4:8, :] = o_ref[0:4, :]",
                           "    @pl.when(pl.program_id(0) == 0)\n"
                           "    def _():\n"
                           "        o_ref[...] = x_ref[...]\n"
                           "    o_ref[0:1, :] = o_ref[1:2, :] + 1.0"}) {
    Traced t = TraceOutputBody(body);
    EXPECT_FALSE(WrittenWholeBeforeRead(*t.program.kernel, OutputRef(t, 0))) << body;
    GridSplit split = SplitGridForCuda(t.program, t.mapping);
    EXPECT_EQ(split.chains, 1) << body;
    EXPECT_NE(split.note.find("reads `o_ref` before writing all of it"), std::string::npos)
        << split.note;
  }
  // A read inside a scoped region counts too.
  Traced scoped = TraceOutputBody(
      "    def body(t_ref):\n"
      "        t_ref[...] = o_ref[...]\n"
      "        o_ref[...] = t_ref[...] + x_ref[...]\n"
      "    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32))");
  EXPECT_FALSE(WrittenWholeBeforeRead(*scoped.program.kernel, OutputRef(scoped, 0)));
}

}  // namespace
}  // namespace pz::cuda
