// pltpu's interpret-mode switches mapped onto the emulator: InterpretParams shuffle the order of
// "parallel" grid axes (and only those) by their random_seed, or 0 without one, as JAX does,
// uninitialized_memory="zero" starts buffers at zero, and the scoped mode ends with its `with`
// block. The orders expected here are what JAX 0.10.2 prints for the same programs.
#include <gtest/gtest.h>

#include "unit/tpu/run_kernel.h"

namespace pz::tpu {
namespace {

using testing::KernelRun;
using testing::RunKernelProgram;

// Each step appends its program ids to an SMEM log (the order the steps ran in); the count
// starts at zero because memory does.
constexpr std::string_view kOrderLog = R"(
def kernel(o_ref, n_ref):
    n = n_ref[0]
    o_ref[n] = pl.program_id(0) * 10 + pl.program_id(1)
    n_ref[0] = n + 1

def run(semantics, grid):
    return pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct((grid[0] * grid[1],), jnp.int32), grid=grid,
        out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
        scratch_shapes=[pltpu.SMEM((1,), jnp.int32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=semantics))()
)";

std::string Log(std::string_view setup, std::string_view semantics,
                std::string_view grid = "(4, 3)") {
  std::string program = std::string(kOrderLog) + std::string(setup) + "\nprint(run(" +
                        std::string(semantics) + ", " + std::string(grid) + ").tolist())\n";
  KernelRun run = RunKernelProgram(program);
  EXPECT_FALSE(run.error) << run.rendered;
  return run.output;
}

TEST(InterpretMode, WithoutASeedTheParallelAxesRunInTheOrderOfSeedZero) {
  const std::string plain =
      "pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(uninitialized_memory=\"zero\"))";
  EXPECT_EQ(Log(plain, "(\"parallel\", \"arbitrary\")"),
            "[0, 1, 2, 30, 31, 32, 10, 11, 12, 20, 21, 22]\n");
  EXPECT_EQ(Log(plain, "(\"parallel\", \"parallel\")"),
            "[1, 0, 2, 31, 30, 32, 11, 10, 12, 21, 20, 22]\n");
  EXPECT_EQ(Log(plain, "(\"parallel\", \"arbitrary\")", "(9, 1)"),
            "[0, 30, 50, 10, 80, 40, 60, 20, 70]\n");
  EXPECT_EQ(Log("pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(random_seed=0, "
                "uninitialized_memory=\"zero\"))",
                "(\"parallel\", \"parallel\")"),
            "[1, 0, 2, 31, 30, 32, 11, 10, 12, 21, 20, 22]\n");
}

TEST(InterpretMode, ARandomSeedGivesJaxsPermutations) {
  const std::string seeded =
      "pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(random_seed=12345, "
      "uninitialized_memory=\"zero\"))";
  EXPECT_EQ(Log(seeded, "(\"parallel\", \"parallel\")"),
            "[22, 21, 20, 32, 31, 30, 2, 1, 0, 12, 11, 10]\n");
  EXPECT_EQ(Log(seeded, "(\"parallel\", \"arbitrary\")", "(9, 1)"),
            "[70, 50, 40, 20, 30, 80, 0, 60, 10]\n");
}

TEST(InterpretMode, TwoCoresSplitTheShuffledPointsInHalves) {
  // Each step writes how many steps its core has run, with that core's counter: which points
  // each core ran, and in what order (what JAX prints for this program).
  KernelRun run = RunKernelProgram(R"(
def kernel(o_ref, c_ref):
    c_ref[0] = c_ref[0] + 1
    o_ref[...] = jnp.full(o_ref.shape, c_ref[0], jnp.int32)

for n in (4, 5, 8):
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((n, 8, 128), jnp.int32),
        grid=(n,),
        out_specs=pl.BlockSpec((None, 8, 128), lambda i: (i, 0, 0)),
        scratch_shapes=[pltpu.SMEM((1,), jnp.int32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        interpret=pltpu.InterpretParams(num_cores_or_threads=2, uninitialized_memory="zero"),
    )()
    print(n, out[:, 0, 0])
)");
  ASSERT_FALSE(run.error) << run.rendered;
  EXPECT_EQ(run.output, "4 [1 1 2 2]\n5 [1 3 2 2 1]\n8 [1 4 3 2 1 3 2 4]\n");
}

TEST(InterpretMode, ARandomSeedShufflesOnlyTheParallelAxis) {
  std::string seeded =
      "pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(random_seed=3, "
      "uninitialized_memory=\"zero\"))";
  std::string log = Log(seeded, "(\"parallel\", \"arbitrary\")");
  EXPECT_NE(log, "[0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]\n");
  // The arbitrary axis still runs 0, 1, 2 inside each visit of the parallel one, and every
  // point runs once.
  std::vector<int> ids;
  for (size_t i = 1; i < log.size();) {
    size_t end = log.find_first_of(",]", i);
    ids.push_back(std::stoi(log.substr(i, end - i)));
    i = end + 2;
  }
  ASSERT_EQ(ids.size(), 12u) << log;
  std::vector<bool> seen(4, false);
  for (size_t s = 0; s < 12; s += 3) {
    int i = ids[s] / 10;
    EXPECT_FALSE(seen[i]) << log;
    seen[i] = true;
    for (int j = 0; j < 3; ++j) EXPECT_EQ(ids[s + j], i * 10 + j) << log;
  }
  // The same seed gives the same order; an arbitrary-only grid is never shuffled.
  EXPECT_EQ(Log(seeded, "(\"parallel\", \"arbitrary\")"), log);
  EXPECT_EQ(Log(seeded, "(\"arbitrary\", \"arbitrary\")"),
            "[0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]\n");
}

constexpr std::string_view kScratchSum = R"(
def kernel(x_ref, o_ref, acc_ref):
    o_ref[...] = x_ref[...] + acc_ref[...]

def call(x, interpret=False):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[pltpu.VMEM(x.shape, x.dtype)],
                          interpret=interpret)(x)

x = jnp.ones((8, 128), jnp.float32)
with pltpu.force_tpu_interpret_mode(pltpu.InterpretParams(uninitialized_memory="zero")):
    print(float(call(x).sum()))
print(bool(jnp.isnan(call(x)).all()))
print(float(call(x, interpret=pltpu.InterpretParams(uninitialized_memory="zero")).sum()))
)";

TEST(InterpretMode, ZeroMemoryHoldsOnlyInsideTheScopedModeOrForItsCall) {
  KernelRun run = RunKernelProgram(kScratchSum);
  ASSERT_FALSE(run.error) << run.rendered;
  EXPECT_EQ(run.output, "1024.0\nTrue\n1024.0\n");
  // Only the call that ran on poison reports the uninitialised read.
  ASSERT_EQ(run.warnings.size(), 1u) << run.rendered;
  EXPECT_NE(run.warnings[0].message.find("uninitialised"), std::string::npos);
}

TEST(InterpretMode, MoreThanTwoCoresIsAClearError) {
  KernelRun run = RunKernelProgram(std::string(kScratchSum.substr(0, kScratchSum.find("x = "))) +
                                   "call(jnp.ones((8, 128)), interpret=pltpu.InterpretParams("
                                   "num_cores_or_threads=4))\n");
  ASSERT_TRUE(run.error);
  EXPECT_NE(run.error_message.find("more TensorCores than the emulator models"), std::string::npos)
      << run.error_message;
}

}  // namespace
}  // namespace pz::tpu
