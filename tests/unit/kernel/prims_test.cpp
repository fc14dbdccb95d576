// Kernels trace to typed primitives: prims.def agrees with Mosaic's list of lowerable primitives
// (docs/mosaic-primitives.md), jax.numpy calls decompose as JAX decomposes them, every
// primitive instruction carries its cost, non-lowerable primitives fail in `tpu` semantics at
// the user's line and run in `interpret` semantics, and the counters come from the IR.
#include "array/prims.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "unit/tpu/run_kernel.h"

namespace pz::kernel {
namespace {

// The primitive names listed under "## The list" in docs/mosaic-primitives.md.
std::set<std::string> MosaicList() {
  std::ifstream in(std::string(PZ_SOURCE_DIR) + "/docs/mosaic-primitives.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  size_t begin = doc.find("## The list");
  size_t end = doc.find("## Not in it");
  std::set<std::string> names;
  if (begin == std::string::npos || end == std::string::npos) return names;
  std::string list = doc.substr(begin, end - begin);
  std::regex name("`([a-z_0-9]+)`");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), name); it != std::sregex_iterator();
       ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

TEST(Prims, LowerabilityFollowsMosaicsList) {
  std::set<std::string> mosaic = MosaicList();
  ASSERT_EQ(mosaic.size(), 130u) << "docs/mosaic-primitives.md: the list of JAX 0.10.2";
  // Lines of prims.def that are jax.numpy compositions run as one step (or, for copy, no
  // primitive at all): the primitives JAX builds each from.
  const std::map<std::string, std::vector<std::string>> kComposed = {
      {"copy", {}},
      {"logical_not", {"not"}},
      {"logical_and", {"and"}},
      {"logical_or", {"or"}},
      {"is_nan", {"ne"}},
      {"is_inf", {"eq", "abs"}},
      {"floor_divide", {"div", "rem", "sign", "select_n", "ne", "and", "sub"}},
      {"remainder", {"rem", "select_n", "ne", "lt", "and", "add"}},
      {"expand_dims", {"broadcast_in_dim"}},
      {"repeat", {"broadcast_in_dim", "reshape"}},
      {"argsort", {"sort", "iota"}},
      // jax.random's samplers after random_bits (from jax.make_jaxpr of each in JAX 0.10.2).
      {"random_uniform",
       {"add", "bitcast_convert_type", "broadcast_in_dim", "convert_element_type", "max", "mul",
        "or", "shift_right_logical", "sub"}},
      {"random_normal",
       {"add", "bitcast_convert_type", "broadcast_in_dim", "erf_inv", "max", "mul", "or",
        "shift_right_logical", "sub"}},
      {"random_randint",
       {"add", "and", "broadcast_in_dim", "convert_element_type", "gt", "le", "max", "min", "mul",
        "rem", "select_n", "sub"}},
      {"random_shuffle", {"iota", "random_bits", "random_split", "slice", "sort", "squeeze"}},
  };
  for (int i = 0; i < array::kNumPrims; ++i) {
    auto prim = static_cast<array::Prim>(i);
    std::string name(array::PrimName(prim));
    bool lowers = array::PrimLowersOnTpu(prim);
    auto composed = kComposed.find(name);
    if (composed == kComposed.end()) {
      EXPECT_EQ(lowers, mosaic.count(name) == 1)
          << name << ": prims.def says tpu=" << lowers << ", Mosaic's list disagrees";
      continue;
    }
    EXPECT_EQ(mosaic.count(name), 0u) << name << " is a primitive of its own now";
    bool all = true;
    for (const std::string& part : composed->second) all = all && mosaic.count(part) == 1;
    EXPECT_EQ(lowers, all) << name << ": its parts decide";
  }
}

// The instructions of the first kernel's dump (from "kernel " to its closing brace).
std::string KernelDump(const std::string& output) {
  size_t begin = output.find("kernel ");
  size_t end = output.find("\n}\n", begin);
  return begin == std::string::npos ? "" : output.substr(begin, end - begin);
}

tpu::testing::KernelRun DumpRun(std::string_view program,
                                tpu::EmulatorOptions options = tpu::testing::Tpu()) {
  options.dump_ir = true;
  return tpu::testing::RunKernelProgram(program, options);
}

constexpr std::string_view kSoftmax = R"(
def kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.softmax(x_ref[...], axis=-1) + jnp.mean(x_ref[...], axis=1, keepdims=True)

x = jnp.arange(16, dtype=jnp.float32).reshape(2, 8) / 10
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 8), jnp.float32))(x)
print(out[0, :2])
)";

TEST(Prims, SoftmaxAndMeanDecomposeAsJaxDoes) {
  tpu::testing::KernelRun r = DumpRun(kSoftmax);
  ASSERT_FALSE(r.error) << r.rendered;
  std::string ir = KernelDump(r.output);
  // jax.nn.softmax: max, subtract, exp, sum, divide; jnp.mean: a sum and a scaling.
  for (const char* op :
       {"reduce_max axes=(1,) keepdims", "sub (", "exp (", "reduce_sum", "div (", "mul ("}) {
    EXPECT_NE(ir.find(op), std::string::npos) << op << " missing in\n" << ir;
  }
  EXPECT_EQ(ir.find("Apply"), std::string::npos) << ir;
  // What JAX prints for the same expression.
  EXPECT_NE(r.output.find("[0.4358159  0.44484124]"), std::string::npos) << r.output;
}

constexpr std::string_view kDotCost = R"(
def kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.exp(jnp.dot(a_ref[...], b_ref[...]))

a = jnp.ones((8, 16), jnp.float32) / 16
b = jnp.ones((16, 32), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 32), jnp.float32), grid=(3,),
                     in_specs=[pl.BlockSpec((8, 16), lambda i: (0, 0)),
                               pl.BlockSpec((16, 32), lambda i: (0, 0))],
                     out_specs=pl.BlockSpec((8, 32), lambda i: (0, 0)))(a, b)
print(out[0, 0])
)";

TEST(Prims, CountersComeFromTheInstructionsCosts) {
  tpu::testing::KernelRun r = tpu::testing::RunKernelProgram(kDotCost);
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "2.7182817\n");
  // Per step: dot 2 x 8 x 32 x 16 flops, exp 8 x 32 flops and transcendentals; three steps.
  EXPECT_EQ(r.counters().flops, 3 * (2 * 8 * 32 * 16 + 8 * 32));
  EXPECT_EQ(r.counters().transcendentals, 3 * 8 * 32);
}

constexpr std::string_view kSort = R"(
def kernel(x_ref, o_ref):
    o_ref[...] = jnp.sort(x_ref[...], axis=-1)

x = jnp.array([[3.0, 1.0, 2.0, 0.5]], jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1, 4), jnp.float32))(x)
print(out)
)";

TEST(Prims, SortFailsInTpuSemanticsAtItsLineAndRunsInInterpret) {
  tpu::testing::KernelRun tpu_run = tpu::testing::RunKernelProgram(kSort);
  ASSERT_TRUE(tpu_run.error);
  EXPECT_EQ(tpu_run.error_line, 3);
  EXPECT_NE(
      tpu_run.error_message.find(
          "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for tc: sort."),
      std::string::npos)
      << tpu_run.rendered;
  EXPECT_NE(tpu_run.rendered.find("--semantics interpret"), std::string::npos) << tpu_run.rendered;

  tpu::testing::KernelRun interpret_run =
      tpu::testing::RunKernelProgram(kSort, tpu::testing::Interpret());
  ASSERT_FALSE(interpret_run.error) << interpret_run.rendered;
  EXPECT_EQ(interpret_run.output, "[[0.5 1.  2.  3. ]]\n");
}

constexpr std::string_view kLaxOps = R"(
def kernel(x_ref, o_ref):
    x = x_ref[...]
    bits = lax.bitcast_convert_type(x, jnp.uint32)
    half = lax.shift_right_logical(bits, jnp.uint32(1))
    cols = lax.broadcasted_iota(jnp.int32, (1, 4), 1)
    o_ref[...] = lax.clamp(-0.5, x, 0.5) + (half > 0).astype(jnp.float32) + x ** 2 + cols * 0

x = jnp.array([[-1.0, 0.25, 2.0, 0.0]], jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1, 4), jnp.float32))(x)
print(out)
)";

TEST(Prims, LaxOpsAreOnePrimitiveEach) {
  tpu::testing::KernelRun r = DumpRun(kLaxOps);
  ASSERT_FALSE(r.error) << r.rendered;
  std::string ir = KernelDump(r.output);
  for (const char* op : {"bitcast_convert_type uint32", "shift_right_logical (", "clamp (",
                         "integer_pow y=2", "iota int32 shape=(1, 4) dimension=1"}) {
    EXPECT_NE(ir.find(op), std::string::npos) << op << " missing in\n" << ir;
  }
  EXPECT_NE(r.output.find("[[1.5    1.3125 5.5    0.    ]]"), std::string::npos) << r.output;
}

constexpr std::string_view kRandom = R"(
def kernel(seed_ref, u_ref, n_ref):
    key = jax.random.fold_in(jax.random.key(seed_ref[0]), pl.program_id(0))
    u_ref[...] = jax.random.uniform(key, u_ref.shape, minval=-1.0)
    n_ref[...] = jax.random.normal(key, n_ref.shape)

f32 = jax.ShapeDtypeStruct((8, 128), jnp.float32)
u, n = pl.pallas_call(
    kernel, out_shape=(f32, f32),
    grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,), in_specs=[],
        out_specs=(pl.BlockSpec((8, 128), lambda i, s: (0, 0)),) * 2))(jnp.array([42], jnp.int32))
print(u[0, :2], n[0, :2])
)";

TEST(Prims, RandomSamplersTraceToTheirBitsAndTheirStep) {
  tpu::testing::KernelRun r = DumpRun(kRandom);
  ASSERT_FALSE(r.error) << r.rendered;
  std::string ir = KernelDump(r.output);
  for (const char* op :
       {"random_seed (", "ProgramId", "random_fold_in (", "random_bits uint32(8, 128)",
        "random_uniform float32", "random_normal float32"}) {
    EXPECT_NE(ir.find(op), std::string::npos) << op << " missing in\n" << ir;
  }
  // jax.random.uniform(fold_in(key(42), 0), (8, 128), minval=-1.0) and normal, in real JAX.
  EXPECT_NE(r.output.find("[ 0.0605216  -0.37327576] [ 0.07592554 -0.48634264]"), std::string::npos)
      << r.output;
}

// Each TensorCore has its own generator: a seed set only at the first grid step reaches the
// core that runs that step.
constexpr std::string_view kSeedOnce = R"(
def kernel(o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        pltpu.prng_seed(1)
    o_ref[...] = pltpu.prng_random_bits(o_ref.shape)

out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.int32), grid=(4,),
                     out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
                     compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))()
print(out.shape)
)";

TEST(Prims, EachCoreHasItsOwnGenerator) {
  tpu::testing::KernelRun one = tpu::testing::RunKernelProgram(kSeedOnce);
  ASSERT_FALSE(one.error) << one.rendered;
  EXPECT_EQ(one.output, "(32, 128)\n");
  tpu::EmulatorOptions two_cores = tpu::testing::Tpu();
  two_cores.cores = 2;
  tpu::testing::KernelRun two = tpu::testing::RunKernelProgram(kSeedOnce, two_cores);
  ASSERT_TRUE(two.error);
  EXPECT_EQ(two.error_line, 6);
  EXPECT_NE(two.error_message.find("at grid step (2,) drew from the core's random number "
                                   "generator before any pltpu.prng_seed"),
            std::string::npos)
      << two.rendered;
}

}  // namespace
}  // namespace pz::kernel
