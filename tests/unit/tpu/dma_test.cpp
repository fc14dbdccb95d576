// The DMA engine and semaphores (engine/tpu/dma.cpp) through whole programs: byte-counting
// semaphores, when data lands in each mode, descriptors rebuilt across grid steps, regular
// semaphores and run_scoped (the detector's errors, interpret semantics, the counters and the
// engine on its own are in dma_checks_test.cpp). Expected values are worked out by hand from the
// rules in pallas-semantics.md §7, never copied from the emulator.
#include "tpu/dma.h"

#include <gtest/gtest.h>

#include "array/creation.h"
#include "unit/tpu/dma_program.h"
#include "unit/tpu/run_kernel.h"

namespace pz::tpu {
namespace {

using testing::Eager;
using testing::Interpret;
using testing::KernelOutput;
using testing::KernelRun;
using testing::Program;
using testing::RunKernelProgram;
using testing::Tpu;

// ---- Byte-counting semaphores and when data lands -----------------------------------------------

TEST(Dma, BothModesGiveTheSameResultForACorrectKernel) {
  // on_wait lands the copy at the wait, eager at the start: a kernel that waits before reading
  // cannot tell them apart.
  std::string program = Program(R"(
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...])");
  for (EmulatorOptions options : {Tpu(), Eager()}) {
    EXPECT_EQ(KernelOutput(program, options), "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n");
  }
}

TEST(Dma, PollingADmaSemaphoreSeesTheBytesArrive) {
  // 8 f32 = 32 bytes; a busy-wait on semaphore_read ends in both modes, then the wait takes them.
  std::string program = Program(R"(
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    seen = jax.lax.while_loop(lambda n: n < 32, lambda n: pl.semaphore_read(sem), jnp.int32(0))
    copy.wait()
    o_ref[...] = jnp.zeros((8,), jnp.int32) + seen * 10 + pl.semaphore_read(sem))",
                                "pltpu.SemaphoreType.DMA", "jnp.int32");
  for (EmulatorOptions options : {Tpu(), Eager()}) {
    EXPECT_EQ(KernelOutput(program, options), "[320, 320, 320, 320, 320, 320, 320, 320]\n");
  }
}

TEST(Dma, SemaphoreCountsBytesNotElements) {
  // bf16: 8 elements are 16 bytes.
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    o_ref[0] = pl.semaphore_read(sem)
    copy.wait()


x = jnp.ones((8,), jnp.bfloat16)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1,), jnp.int32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
                     scratch_shapes=[pltpu.VMEM((8,), jnp.bfloat16), pltpu.SemaphoreType.DMA])(x)
print(out.tolist())
)",
                         Eager()),
            "[16]\n");
}

TEST(Dma, EachWaitConsumesOneCopyOfASharedSemaphore) {
  // Three 8-byte copies on one semaphore: 24 bytes after the starts, 16 after one wait.
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_hbm, o_ref, buf, sem):
    copies = [pltpu.make_async_copy(x_hbm.at[pl.ds(2 * r, 2)], buf.at[pl.ds(2 * r, 2)], sem)
              for r in range(3)]
    for c in copies:
        c.start()
    o_ref[0] = pl.semaphore_read(sem)
    copies[0].wait()
    o_ref[1] = pl.semaphore_read(sem)
    copies[1].wait()
    copies[2].wait()
    o_ref[2] = pl.semaphore_read(sem)


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((3,), jnp.int32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
                     scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA])(x)
print(out.tolist())
)",
                         Eager()),
            "[24, 16, 0]\n");
}

TEST(Dma, ADescriptorRebuiltInALaterStepWaitsForTheCopy) {
  // Step i starts the copy of chunk i into the scratch buffer and waits in step i + 1 with a
  // descriptor of another source view (same semaphore and size); the last step copies nothing
  // new. Output block i gets chunk i - 1.
  std::string program = R"(
def kernel(x_hbm, o_ref, buf, sem):
    i = pl.program_id(0)

    @pl.when(i > 0)
    def _():
        pltpu.make_async_copy(x_hbm.at[pl.ds(0, 4)], buf, sem).wait()
        o_ref[...] = buf[...]

    @pl.when(i == 0)
    def _():
        o_ref[...] = jnp.zeros((4,), jnp.float32)

    @pl.when(i < 2)
    def _():
        pltpu.make_async_copy(x_hbm.at[pl.ds(i * 4, 4)], buf, sem).start()


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32), grid=(3,),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec((4,), lambda i: (i,)),
                     scratch_shapes=[pltpu.VMEM((4,), jnp.float32), pltpu.SemaphoreType.DMA])(x)
print(out.tolist())
)";
  for (EmulatorOptions options : {Tpu(), Eager(), Interpret()}) {
    EXPECT_EQ(KernelOutput(program, options),
              "[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n");
  }
}

TEST(Dma, WaitsMatchByBytesSoTwoHalfWaitsConsumeOneCopy) {
  EXPECT_EQ(KernelOutput(Program(R"(
    pltpu.make_async_copy(x_hbm, buf, sem).start()
    pltpu.make_async_copy(x_hbm.at[pl.ds(0, 4)], buf.at[pl.ds(0, 4)], sem).wait()
    pltpu.make_async_copy(x_hbm.at[pl.ds(4, 4)], buf.at[pl.ds(4, 4)], sem).wait()
    o_ref[...] = buf[...])")),
            "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n");
}

TEST(Dma, AWaitForFewerBytesLeavesTheCopyInFlight) {
  KernelRun r = RunKernelProgram(Program(R"(
    pltpu.make_async_copy(x_hbm, buf, sem).start()
    pltpu.make_async_copy(x_hbm.at[pl.ds(0, 4)], buf.at[pl.ds(0, 4)], sem).wait()
    o_ref[...] = jnp.zeros((8,), jnp.float32))"));
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("was never waited"), std::string::npos) << r.error_message;
  EXPECT_EQ(r.error_line, 4);  // the start (the body begins on line 4)
}

TEST(Dma, AWaitForMoreBytesThanInFlightIsADeadlockNamingTheCopy) {
  KernelRun r = RunKernelProgram(Program(R"(
    pltpu.make_async_copy(x_hbm.at[pl.ds(0, 4)], buf.at[pl.ds(0, 4)], sem).start()
    pltpu.make_async_copy(x_hbm, buf, sem).wait()
    o_ref[...] = buf[...])"));
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_line, 5);
  EXPECT_NE(r.error_message.find("needs 32 bytes but the semaphore holds 16"), std::string::npos)
      << r.error_message;
  EXPECT_NE(r.rendered.find("its 16 bytes are fewer than this wait's 32"), std::string::npos)
      << r.rendered;
  EXPECT_NE(r.rendered.find(
                "test.py:10:5: note: the DMA `x_hbm[0:4]` -> `buf[0:4]` (16 bytes) started here in "
                "grid step"),
            std::string::npos)
      << r.rendered;
}

TEST(Dma, AnEmptyCopyNeedsNoWait) {
  EXPECT_EQ(KernelOutput(Program(R"(
    pltpu.make_async_copy(x_hbm.at[pl.ds(0, 0)], buf.at[pl.ds(0, 0)], sem).start()
    o_ref[...] = jnp.zeros((8,), jnp.float32))")),
            "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]\n");
}

TEST(Dma, AddAccumulatesIntoTheDestination) {
  EXPECT_EQ(KernelOutput(Program(R"(
    buf[...] = jnp.full((8,), 10.0, jnp.float32)
    pltpu.async_copy(x_hbm, buf, sem, add=True).wait()
    o_ref[...] = buf[...])")),
            "[10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0]\n");
}

TEST(Dma, AsyncCopyStartsAndReturnsTheDescriptor) {
  EXPECT_EQ(KernelOutput(Program(R"(
    copy = pltpu.async_copy(x_hbm.at[pl.ds(4, 4)], buf.at[pl.ds(0, 4)], sem)
    copy.wait()
    buf[pl.ds(4, 4)] = jnp.zeros((4,), jnp.float32)
    o_ref[...] = buf[...])")),
            "[4.0, 5.0, 6.0, 7.0, 0.0, 0.0, 0.0, 0.0]\n");
}

TEST(Dma, CopiedDataCountsAsInitialised) {
  // Only the written half of `a` is copied and read back: no uninitialised-read warning.
  EXPECT_EQ(KernelOutput(R"(
def kernel(o_ref, a, b, sem):
    a[pl.ds(0, 4)] = jnp.ones((4,), jnp.float32)
    pltpu.sync_copy(a.at[pl.ds(0, 4)], b.at[pl.ds(4, 4)])
    o_ref[pl.ds(0, 4)] = b[pl.ds(4, 4)]
    o_ref[pl.ds(4, 4)] = jnp.zeros((4,), jnp.float32)


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.VMEM((8,), jnp.float32),
                                     pltpu.SemaphoreType.DMA])()
print(out.tolist())
)"),
            "[1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]\n");
}

TEST(Dma, CopyingUninitialisedScratchToHbmIsAnUninitialisedRead) {
  KernelRun r = RunKernelProgram(R"(
def kernel(o_hbm, buf, sem):
    pltpu.sync_copy(buf, o_hbm)


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     out_specs=pl.BlockSpec(memory_space=pl.ANY),
                     scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA])()
)");
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_NE(r.WarningText().find("read of uninitialised memory from buf"), std::string::npos)
      << r.rendered;
}

TEST(Dma, ACopyIntoAnOutputBlockCountsAsWritingIt) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_hbm, o_ref, sem):
    pltpu.sync_copy(x_hbm.at[pl.ds(pl.program_id(0) * 4, 4)], o_ref)


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.int32), grid=(2,),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec((4,), lambda i: (1 - i,)),
                     scratch_shapes=[pltpu.SemaphoreType.DMA])(x)
print(out.tolist())
)"),
            "[4, 5, 6, 7, 0, 1, 2, 3]\n");
}

TEST(Dma, CopiesReachSmemAndTheirViews) {
  // HBM -> SMEM scratch, then one scalar row of it into an SMEM output through a traced view.
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_hbm, o_ref, table, sem):
    pltpu.sync_copy(x_hbm, table)
    i = table[0, 1]
    pltpu.sync_copy(table.at[i], o_ref)


x = jnp.array([[0, 2, 0], [0, 0, 0], [7, 8, 9]], jnp.int32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((3,), jnp.int32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
                     scratch_shapes=[pltpu.SMEM((3, 3), jnp.int32), pltpu.SemaphoreType.DMA])(x)
print(out.tolist())
)"),
            "[7, 8, 9]\n");
}

// ---- Regular semaphores --------------------------------------------------------------------

TEST(Dma, RegularSemaphoreWaitWithoutDecrementOnlyChecks) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(o_ref, sem):
    pl.semaphore_signal(sem, 2)
    pl.semaphore_wait(sem, 2, decrement=False)
    o_ref[0] = pl.semaphore_read(sem)
    pl.semaphore_wait(sem, 2)
    o_ref[1] = pl.semaphore_read(sem)


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2,), jnp.int32),
                     out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
                     scratch_shapes=[pltpu.SemaphoreType.REGULAR])()
print(out.tolist())
)"),
            "[2, 0]\n");
}

TEST(Dma, OlderPltpuSpellingsAndTracedAmountsWork) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(n_ref, o_ref, sems):
    pltpu.semaphore_signal(sems.at[1], n_ref[0])
    pltpu.semaphore_wait(sems.at[1], n_ref[0] - 1)
    o_ref[0] = pltpu.semaphore_read(sems.at[1])
    pltpu.semaphore_wait(sems.at[1])


out = pl.pallas_call(
    kernel, out_shape=jax.ShapeDtypeStruct((1,), jnp.int32),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(1,),
        out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))]))(jnp.array([3], jnp.int32))
print(out.tolist())
)"),
            "[1]\n");
}

TEST(Dma, SemaphoresPersistAcrossGridSteps) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(o_ref, sem):
    pl.semaphore_signal(sem)
    o_ref[0] = pl.semaphore_read(sem)

    @pl.when(pl.program_id(0) == 2)
    def _():
        pl.semaphore_wait(sem, 3)


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((3,), jnp.int32), grid=(3,),
                     out_specs=pl.BlockSpec((1,), lambda i: (i,), memory_space=pltpu.SMEM),
                     scratch_shapes=[pltpu.SemaphoreType.REGULAR])()
print(out.tolist())
)"),
            "[1, 2, 3]\n");
}

// ---- run_scoped ------------------------------------------------------------------------------

TEST(Dma, RunScopedInsideALoopGetsFreshBuffersEachIteration) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_hbm, o_ref):
    def step(i, acc):
        def body(buf, sem):
            pltpu.sync_copy(x_hbm.at[pl.ds(i * 2, 2)], buf)
            return jnp.sum(buf[...])

        return acc + pl.run_scoped(body, pltpu.VMEM((2,), jnp.int32),
                                   sem=pltpu.SemaphoreType.DMA) * (i + 1)

    o_ref[0] = jax.lax.fori_loop(0, 4, step, jnp.int32(0))


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1,), jnp.int32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec(memory_space=pltpu.SMEM))(x)
print(out.tolist())
)"),
            // 1*(0+1) + 2*(2+3) + 3*(4+5) + 4*(6+7)
            "[90]\n");
}

TEST(Dma, WithScopedPassesTheCallsArgumentsFirst) {
  EXPECT_EQ(KernelOutput(R"(
def kernel(x_hbm, o_ref):
    @pl.with_scoped(pltpu.VMEM((4,), jnp.int32), sem=pltpu.SemaphoreType.DMA)
    def total(offset, buf, sem):
        pltpu.make_async_copy(x_hbm.at[pl.ds(offset, 4)], buf, sem).start()
        pltpu.make_async_copy(x_hbm.at[pl.ds(offset, 4)], buf, sem).wait()
        return jnp.sum(buf[...])

    o_ref[0] = total(0) * 100 + total(4)


x = jnp.arange(8, dtype=jnp.int32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((1,), jnp.int32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec(memory_space=pltpu.SMEM))(x)
print(out.tolist())
)"),
            "[622]\n");  // 6 * 100 + 22
}

TEST(Dma, ACopyStillInFlightWhenItsScopeEndsIsAnError) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_hbm, o_ref):
    def body(buf, sem):
        pltpu.make_async_copy(x_hbm, buf, sem).start()

    pl.run_scoped(body, pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA)
    o_ref[...] = jnp.zeros((8,), jnp.float32)


x = jnp.arange(8, dtype=jnp.float32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
               in_specs=[pl.BlockSpec(memory_space=pl.ANY)])(x)
)");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_line, 4);
  EXPECT_NE(r.error_message.find("pl.run_scoped at line 12"), std::string::npos) << r.error_message;
}

TEST(Dma, RunScopedCannotAllocateHbm) {
  KernelRun r = RunKernelProgram(R"(
def kernel(o_ref):
    pl.run_scoped(lambda b: None, pltpu.ANY((8,), jnp.float32))


pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32))()
)");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("Cannot allocate HBM in `run_scoped`."), std::string::npos);
}

}  // namespace
}  // namespace pz::tpu
