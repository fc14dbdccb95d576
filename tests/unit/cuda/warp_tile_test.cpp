// The warp tiles of staged tensor-core products (emit.h's WarpTile, PZ_CUDA_WARP_TILE): what the
// variable accepts, the threads a kernel gets with each tile, and that a kernel whose staged
// float32 product needs 512 threads keeps them, its 16-bit product taking the unstaged form.
// The kernels run with each tile in the cuda.same_sm80_w* tests (tests/cuda: the programs
// resident_accumulator.py and mixed_products.py are these two).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "cuda/cuda_backend.h"
#include "unit/cuda/trace_call.h"

namespace pz::cuda {
namespace {

TEST(WarpTile, AcceptsTheFourTilesAndNothingElse) {
  for (int rows : {32, 64}) {
    for (int cols : {32, 64}) {
      std::optional<WarpTile> tile = ParseWarpTile(fmt::format("{}x{}", rows, cols));
      ASSERT_TRUE(tile) << rows << "x" << cols;
      EXPECT_EQ(tile->rows, rows);
      EXPECT_EQ(tile->cols, cols);
      EXPECT_EQ(tile->Threads(), 32u * (128 / rows) * (128 / cols));
    }
  }
  for (const char* text : {"", "32", "16x32", "128x128", "64X64", "64x64 ", " 64x64", "64x"}) {
    EXPECT_FALSE(ParseWarpTile(text)) << "`" << text << "`";
  }
}

TEST(WarpTile, ComesFromTheEnvironmentWithAClearErrorForAnythingElse) {
  ::unsetenv("PZ_CUDA_WARP_TILE");
  EXPECT_EQ(WarpTileFromEnvironment(), WarpTile{});
  ::setenv("PZ_CUDA_WARP_TILE", "64x32", 1);
  EXPECT_EQ(WarpTileFromEnvironment(), (WarpTile{.rows = 64, .cols = 32}));
  ::setenv("PZ_CUDA_WARP_TILE", "48x48", 1);
  try {
    WarpTileFromEnvironment();
    ADD_FAILURE() << "48x48 was accepted";
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("`48x48`"), std::string::npos) << message;
    EXPECT_NE(message.find("32x32 (the default), 32x64, 64x32 or 64x64"), std::string::npos)
        << message;
  }
  ::unsetenv("PZ_CUDA_WARP_TILE");
}

// A bf16 matmul of 128 x 128 blocks, operands in HBM (with the accumulator they do not fit in
// 48 KiB), so its product stages; small integers, so every order of summing gives the same bits.
constexpr const char* kBf16Matmul = R"(
def kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)
    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...]

n, b = 256, 128
x = (jnp.arange(n * n, dtype=jnp.int32).reshape(n, n) % 7 - 3).astype(jnp.bfloat16)
y = (jnp.arange(n * n, dtype=jnp.int32).reshape(n, n) % 5 - 2).astype(jnp.bfloat16)
out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((n, n), jnp.float32), grid=(n // b, n // b, n // b),
    in_specs=[pl.BlockSpec((b, b), lambda i, j, k: (i, k)),
              pl.BlockSpec((b, b), lambda i, j, k: (k, j))],
    out_specs=pl.BlockSpec((b, b), lambda i, j, k: (i, j)),
    scratch_shapes=[pltpu.VMEM((b, b), jnp.float32)],
    compiler_params=pltpu.CompilerParams(
        dimension_semantics=("parallel", "parallel", "arbitrary")))(x, y)
)";

// Both products of one kernel, bf16 and float32, operands in HBM.
constexpr const char* kMixedProducts = R"(
def kernel(x_ref, y_ref, a_ref, b_ref, o_ref, p_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    p_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

n = 256
ints = jnp.arange(n * n, dtype=jnp.int32).reshape(n, n)
x, y = (ints % 7 - 3).astype(jnp.bfloat16), (ints % 5 - 2).astype(jnp.bfloat16)
a, b = (ints % 3 - 1).astype(jnp.float32), (ints % 9 - 4).astype(jnp.float32)
out = pl.pallas_call(
    kernel, out_shape=[jax.ShapeDtypeStruct((n, n), jnp.float32)] * 2, grid=(2,),
    in_specs=[pl.BlockSpec((n, n), lambda i: (0, 0)), pl.BlockSpec((n, 128), lambda i: (0, i)),
              pl.BlockSpec((n, n), lambda i: (0, 0)), pl.BlockSpec((n, 128), lambda i: (0, i))],
    out_specs=[pl.BlockSpec((n, 128), lambda i: (0, i))] * 2)(x, y, a, b)
)";

TEST(WarpTile, SetsTheThreadsAndFragmentsOfAStagedTensorCoreProduct) {
  Traced t = Trace(kBf16Matmul);
  for (WarpTile tile : {WarpTile{}, WarpTile{.rows = 32, .cols = 64},
                        WarpTile{.rows = 64, .cols = 32}, WarpTile{.rows = 64, .cols = 64}}) {
    SCOPED_TRACE(fmt::format("{}x{}", tile.rows, tile.cols));
    PlannedCall plan = PlanCall(t.program, t.mapping, t.operands, {}, 0, 48 * 1024, tile);
    ASSERT_TRUE(plan.kernel.staged_products);
    EXPECT_EQ(plan.kernel.threads, tile.Threads());
    const std::string& source = plan.kernel.source;
    EXPECT_NE(source.find(fmt::format("__launch_bounds__({})", tile.Threads())), std::string::npos);
    EXPECT_NE(source.find(fmt::format("if (blockDim.x == {}) {{  // tensor cores", tile.Threads())),
              std::string::npos);
    // The resident accumulators: m16 n8 tiles of the warp's rows and columns.
    EXPECT_NE(source.find(fmt::format("float pz_racc[{}][{}][4];", tile.rows / 16, tile.cols / 8)),
              std::string::npos);
  }
}

TEST(WarpTile, LeavesAKernelWithAStagedFloatProductAt512Threads) {
  Traced t = Trace(kMixedProducts);
  WarpTile wide{.rows = 64, .cols = 64};
  PlannedCall plan = PlanCall(t.program, t.mapping, t.operands, {}, 0, 48 * 1024, wide);
  ASSERT_TRUE(plan.kernel.staged_products);
  EXPECT_EQ(plan.kernel.threads, 512u);
  // The float32 product's staged form runs; the bf16 one's asks for 128 threads and so takes the
  // unstaged tensor-core form after its `else`.
  EXPECT_NE(plan.kernel.source.find("if (blockDim.x == 512) {  // float products"),
            std::string::npos);
  EXPECT_NE(plan.kernel.source.find("if (blockDim.x == 128) {  // tensor cores"),
            std::string::npos);
}

TEST(WarpTile, IsWhatStatsReportWhereTheStagedFormRan) {
  // A 128 x 1024 by 1024 x 128 bf16 product in one grid point: the host device plans for
  // 227 KiB of shared memory, as for an H100, and the operand blocks (512 KiB) do not fit, so the
  // product stages them.
  Traced t = Trace(R"(
def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

ints = jnp.arange(128 * 1024, dtype=jnp.int32)
x = (ints.reshape(128, 1024) % 7 - 3).astype(jnp.bfloat16)
y = (ints.reshape(1024, 128) % 5 - 2).astype(jnp.bfloat16)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32))(x, y)
)");
  WarpTile wide{.rows = 64, .cols = 64};
  for (bool sm80 : {true, false}) {
    CudaBackend host(CudaOptions{.warp_tile = wide}, OpenHostDevice(4, sm80));
    kernel::CallOutcome outcome = host.Run(t.program, t.mapping, t.operands, {});
    const auto& report = dynamic_cast<const CudaReport&>(*outcome.report);
    if (sm80) {
      // The GPU's forms with the kernel's own 128 threads: the staged form ran.
      EXPECT_EQ(report.threads, 128u);
      EXPECT_EQ(report.tensor_staging,
                "tensor-core products staged in shared memory, each warp a 64 x 64 tile of the "
                "block's 128 x 128 (4 warps; PZ_CUDA_WARP_TILE)");
      EXPECT_NE(report.Summary().find("stats:   products: tensor-core products staged"),
                std::string::npos)
          << report.Summary();
    } else {
      // The plain host device's 4 threads take the other forms.
      EXPECT_EQ(report.tensor_staging, "");
      EXPECT_EQ(report.Summary().find("products:"), std::string::npos) << report.Summary();
    }
    array::Array got = outcome.outputs.at(0).Contiguous(), want = t.outputs.at(0).Contiguous();
    ASSERT_EQ(got.shape(), want.shape());
    EXPECT_EQ(std::memcmp(got.raw(), want.raw(), static_cast<size_t>(got.size()) * 4), 0)
        << (sm80 ? "host-sm80" : "host");
  }
}

}  // namespace
}  // namespace pz::cuda
