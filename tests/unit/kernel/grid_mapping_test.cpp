// The canonical GridMapping of a pallas_call (engine/kernel/grid_mapping.cpp), seen through whole
// programs: block shapes canonicalised (None and pl.Squeezed() dropped from the kernel's ref),
// the grid and index operands of a PrefetchScalarGridSpec, traced index maps, and the spec
// errors JAX raises.
#include "kernel/grid_mapping.h"

#include <gtest/gtest.h>

#include "unit/tpu/run_kernel.h"

namespace pz::kernel {
namespace {

// The records (grid mapping and block indices) of the pallas_calls `program` ran, and the
// message it stopped with ("" when it succeeded).
struct Mapped {
  std::vector<tpu::CallRecord> calls;
  std::string error;
};

Mapped Map(std::string_view program) {
  tpu::testing::KernelRun run =
      tpu::testing::RunKernelProgram(program, tpu::EmulatorOptions{.record_blocks = true});
  return {.calls = std::move(run.calls), .error = run.error_message};
}

TEST(GridMapping, NoneAndSqueezedBlockDimsAreDroppedFromTheRef) {
  Mapped m = Map(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.zeros((2, 3, 4), jnp.float32)
spec = pl.BlockSpec((None, pl.Squeezed(), 4), lambda i, j: (i, j, 0))
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 3, 4), jnp.float32), grid=(2, 3),
               in_specs=[spec], out_specs=spec)(x)
)");
  ASSERT_EQ(m.error, "");
  ASSERT_EQ(m.calls.size(), 1u);
  const BlockMapping& x = m.calls[0].operands[0];
  EXPECT_EQ(x.name, "x_ref");
  EXPECT_FALSE(x.is_output);
  EXPECT_EQ(x.shape, (array::Shape{2, 3, 4}));
  ASSERT_EQ(x.block.size(), 3u);
  EXPECT_EQ(x.block[0].kind, BlockDim::Kind::kSqueezed);
  EXPECT_EQ(x.block[1].kind, BlockDim::Kind::kSqueezed);
  EXPECT_EQ(x.block[2].kind, BlockDim::Kind::kBlocked);
  EXPECT_EQ(x.block[2].size, 4);
  EXPECT_EQ(x.ref_shape, (array::Shape{4}));
  EXPECT_EQ(x.map_params, (std::vector<std::string>{"i", "j"}));
  ASSERT_NE(x.index_map, nullptr);
  DirectMap direct = AnalyzeIndexMap(*x.index_map);
  EXPECT_TRUE(direct.ok);
  EXPECT_EQ(direct.entries, (std::vector<std::pair<int, int64_t>>{{0, 0}, {1, 0}, {-1, 0}}));
  EXPECT_TRUE(m.calls[0].operands[1].is_output);
}

TEST(GridMapping, NoBlockShapeIsTheWholeArrayAtBlockZero) {
  Mapped m = Map(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros((8,), jnp.int32) + x_ref[0]


x = jnp.zeros((8,), jnp.int32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.int32), grid=(3,),
               in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM)])(x)
)");
  ASSERT_EQ(m.error, "");
  const BlockMapping& x = m.calls[0].operands[0];
  EXPECT_EQ(x.space, MemorySpace::kSmem);
  EXPECT_EQ(x.ref_shape, (array::Shape{8}));
  EXPECT_EQ(x.index_map, nullptr);
  EXPECT_EQ(m.calls[0].trace.steps.size(), 3u);
  EXPECT_EQ(m.calls[0].trace.steps[2][0], (std::vector<int64_t>{0}));
}

TEST(GridMapping, PrefetchScalarGridSpecPassesIndexOperandsToTheIndexMaps) {
  Mapped m = Map(R"(
def kernel(s_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


s = jnp.array([1, 0], jnp.int32)
x = jnp.arange(4, dtype=jnp.float32)
grid_spec = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1, grid=(2,),
    in_specs=[pl.BlockSpec((2,), lambda i, s: (s[i],))],
    out_specs=pl.BlockSpec((2,), lambda i, s: (i,)))
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
               grid_spec=grid_spec)(s, x)
)");
  ASSERT_EQ(m.error, "");
  const tpu::CallRecord& call = m.calls[0];
  EXPECT_EQ(call.grid, (std::vector<int64_t>{2}));
  ASSERT_EQ(call.prefetch.size(), 1u);
  EXPECT_EQ(call.prefetch[0].name, "s_ref");
  EXPECT_EQ(call.prefetch[0].space, MemorySpace::kSmem);
  ASSERT_EQ(call.operands.size(), 2u);
  EXPECT_EQ(call.operands[0].name, "x_ref");
  EXPECT_EQ(call.operands[1].name, "o_ref");
  EXPECT_FALSE(AnalyzeIndexMap(*call.operands[0].index_map).ok);  // reads the prefetch ref
  ASSERT_EQ(call.trace.steps.size(), 2u);
  EXPECT_EQ(call.trace.steps[0], (std::vector<std::vector<int64_t>>{{1}, {0}}));
  EXPECT_EQ(call.trace.steps[1], (std::vector<std::vector<int64_t>>{{0}, {1}}));
}

TEST(GridMapping, WrongNumberOfIndexMapResultsIsAnError) {
  Mapped m = Map(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.zeros((4, 4), jnp.float32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2,),
               in_specs=[pl.BlockSpec((2, 4), lambda i: (i,))])(x)
)");
  EXPECT_NE(m.error.find("for input x_ref must return 2 values to match "
                         "block_shape=(2, 4), got 1"),
            std::string::npos)
      << m.error;
}

TEST(GridMapping, BlockRankMustMatchTheArrayRank) {
  Mapped m = Map(R"(
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.zeros((4, 4), jnp.float32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), grid=(2,),
               in_specs=[pl.BlockSpec((2,), lambda i: (i,))])(x)
)");
  EXPECT_EQ(m.error,
            "ValueError: Block shape for input x_ref (= (2,)) must have the same number of "
            "dimensions as the "
            "array shape (4, 4).");
}

TEST(GridMapping, DimensionSemanticsNeedOneEntryPerGridAxis) {
  Mapped m = Map(R"(
def kernel(o_ref):
    o_ref[...] = jnp.zeros((2,), jnp.float32)


pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32), grid=(2,),
               out_specs=pl.BlockSpec((2,), lambda i: (i,)),
               compiler_params=pltpu.CompilerParams(
                   dimension_semantics=("parallel", "arbitrary")))()
)");
  EXPECT_NE(m.error.find("Length of grid does not match length of dimension semantics"),
            std::string::npos)
      << m.error;
}

TEST(GridMapping, GridSpecExcludesTheGridArgument) {
  Mapped m = Map(R"(
def kernel(o_ref):
    o_ref[...] = jnp.zeros((2,), jnp.float32)


pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2,), jnp.float32), grid=(2,),
               grid_spec=pl.GridSpec(grid=(2,)))()
)");
  EXPECT_EQ(m.error, "ValueError: If `grid_spec` is specified, then `grid` must be `()`.");
}

}  // namespace
}  // namespace pz::kernel
