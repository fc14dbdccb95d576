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

}  // namespace
}  // namespace pz::tpu
