// The DMA detector and what else watches DMAs (engine/tpu/dma.cpp): the detector's errors,
// interpret semantics, the counters and the IR dump, the engine on its own, and the memory regions
// the race checks compare. Expected values are worked out by hand from the rules in
// pallas-semantics.md §7, never copied from the emulator.
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

// ---- Detector --------------------------------------------------------------------------------

TEST(Dma, ErrorsNameBothLinesAndGridSteps) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_hbm, o_ref, buf, sem):
    i = pl.program_id(0)

    @pl.when(i == 0)
    def _():
        pltpu.make_async_copy(x_hbm, buf, sem).start()

    @pl.when(i == 1)
    def _():
        buf[0] = 1.0
        pltpu.make_async_copy(x_hbm, buf, sem).wait()

    o_ref[...] = jnp.zeros((8,), jnp.float32)


x = jnp.arange(8, dtype=jnp.float32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16,), jnp.float32), grid=(2,),
               in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
               out_specs=pl.BlockSpec((8,), lambda i: (i,)),
               scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA])(x)
)");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error_line, 11);
  EXPECT_NE(r.error_message.find("write to `buf[0]` in grid step (1,)"), std::string::npos)
      << r.error_message;
  EXPECT_NE(r.error_message.find("started at line 13 in grid step (0,)"), std::string::npos)
      << r.error_message;
  // The copy's start is a located note (prelude lines included in the rendered location).
  EXPECT_NE(r.rendered.find("test.py:13:9: note: the DMA `x_hbm` -> `buf` (32 bytes) started "
                            "here in grid step (0,)"),
            std::string::npos)
      << r.rendered;
}

TEST(Dma, DisjointWindowsOfOneBufferDoNotRace) {
  // Reading the half of the buffer that no copy writes is fine while the other half is in flight.
  EXPECT_EQ(KernelOutput(Program(R"(
    buf[pl.ds(0, 4)] = jnp.ones((4,), jnp.float32)
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(0, 4)], buf.at[pl.ds(4, 4)], sem)
    copy.start()
    first = buf[pl.ds(0, 4)]
    copy.wait()
    o_ref[...] = jnp.concatenate([first, buf[pl.ds(4, 4)]]))")),
            "[1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 2.0, 3.0]\n");
}

TEST(Dma, RaceIsReportedInEagerModeToo) {
  KernelRun r = RunKernelProgram(Program(R"(
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    o_ref[...] = buf[...]
    copy.wait())"),
                                 Eager());
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("DMA race: read of `buf`"), std::string::npos);
}

TEST(Dma, UnboundedCopiesInFlightStopWithAnError) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_hbm, o_ref, buf, sem):
    def body(i, carry):
        pltpu.make_async_copy(x_hbm.at[pl.ds(0, 1)], buf.at[pl.ds(i, 1)], sem).start()
        return carry

    jax.lax.fori_loop(0, 5000, body, 0)


x = jnp.arange(8, dtype=jnp.float32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
               in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
               scratch_shapes=[pltpu.VMEM((5000,), jnp.float32), pltpu.SemaphoreType.DMA])(x)
)");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("too many DMAs in flight: this is the 4097th copy"),
            std::string::npos)
      << r.error_message;
}

TEST(Dma, OutOfBoundsTracedStartIsAnIndexError) {
  KernelRun r = RunKernelProgram(R"(
def kernel(x_hbm, o_ref, buf, sem):
    pltpu.sync_copy(x_hbm.at[pl.ds(pl.program_id(0) * 4, 8)], buf)
    o_ref[...] = buf[...]


x = jnp.arange(8, dtype=jnp.float32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16,), jnp.float32), grid=(2,),
               in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
               out_specs=pl.BlockSpec((8,), lambda i: (i,)),
               scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA])(x)
)");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("Out-of-bounds read of x_hbm: index 4:12"), std::string::npos)
      << r.error_message;
  EXPECT_EQ(r.error_line, 3);
}

TEST(Dma, StaticMistakesAreTraceErrors) {
  struct Case {
    std::string_view body;
    std::string_view semaphores;
    std::string_view message;
  };
  const Case cases[] = {
      {"    pltpu.make_async_copy(x_hbm, buf, sem).start()", "pltpu.SemaphoreType.DMA((2,))",
       "Cannot signal on a non-()-shaped semaphore: (2,)"},
      {"    o_ref[...] = jnp.zeros((8,), jnp.float32) + sem[...]", "pltpu.SemaphoreType.DMA",
       "`sem` is a semaphore, which cannot be loaded"},
      {"    pltpu.make_async_copy(x_hbm, buf, sem).wait_send()", "pltpu.SemaphoreType.DMA",
       "Cannot `wait_send` on a local copy."},
      {"    pltpu.make_async_copy(x_hbm, buf, buf)", "pltpu.SemaphoreType.DMA",
       "Cannot signal on a non-semaphore Ref"},
      {"    pltpu.make_async_copy(x_hbm, sem, sem)", "pltpu.SemaphoreType.DMA", "is a semaphore"},
      {"    pltpu.make_async_copy(x_hbm, buf, sem).start()", "pltpu.SemaphoreType.REGULAR",
       "a DMA must signal a DMA semaphore"},
      {"    pl.semaphore_signal(sem, 1.5)", "pltpu.SemaphoreType.REGULAR",
       "Must signal an int32 value"},
      {"    pl.semaphore_wait(sem)", "pltpu.SemaphoreType.DMA",
       "Must wait semaphores of the following types"},
  };
  for (const Case& c : cases) {
    KernelRun r = RunKernelProgram(Program(c.body, c.semaphores));
    ASSERT_TRUE(r.error) << c.body;
    EXPECT_NE(r.error_message.find(c.message), std::string::npos) << r.error_message;
    EXPECT_EQ(r.error_line, 3) << c.body;
  }
}

TEST(Dma, BoolCopiesAreRejectedOnTpuOnly) {
  std::string program = R"(
def kernel(m_hbm, o_ref, buf, sem):
    pltpu.sync_copy(m_hbm, buf)
    o_ref[...] = buf[...].astype(jnp.int32)


m = jnp.arange(4) > 1
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.int32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     scratch_shapes=[pltpu.VMEM((4,), jnp.bool_), pltpu.SemaphoreType.DMA])(m)
print(out.tolist())
)";
  KernelRun r = RunKernelProgram(program);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("DMAs with bool dtypes are not supported."), std::string::npos);
  EXPECT_EQ(KernelOutput(program, Interpret()), "[0, 0, 1, 1]\n");
}

TEST(Dma, RemoteCopiesReachOnlyThisDevice) {
  // The emulator runs one device: device 0 is this one, any other id is an error at the start.
  KernelRun r = RunKernelProgram(
      Program("    pltpu.make_async_remote_copy(x_hbm, buf, sem, sem, device_id=1).start()"));
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("this remote DMA targets device (1,), but the emulator runs one "
                                 "device"),
            std::string::npos)
      << r.error_message;
  EXPECT_EQ(r.error_line, 3);
  // To itself, with one semaphore for both sides: the wait takes the send's bytes, then the
  // receive's.
  EXPECT_EQ(KernelOutput(Program(R"(
    copy = pltpu.make_async_remote_copy(x_hbm, buf, sem, sem, device_id=0)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...])")),
            "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n");
  r = RunKernelProgram(Program(R"(
    pl.semaphore_signal(sem, 1, device_id=(0,))
    pl.semaphore_signal(sem, 1, device_id=2)
    pl.semaphore_wait(sem, 2))",
                               "pltpu.SemaphoreType.REGULAR"));
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("this semaphore signal targets device (2,)"), std::string::npos)
      << r.error_message;
}

TEST(Dma, DmasOutsideAKernelAreAnError) {
  KernelRun r = RunKernelProgram("pltpu.make_async_copy(1, 2, 3)\n");
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error_message.find("can only be used inside a kernel"), std::string::npos);
}

// ---- Interpret semantics (JAX interpret=True) --------------------------------------------------

TEST(Dma, InterpretSemanticsCopiesAtStartAndChecksNothing) {
  // HLO interpret mode: the copy is immediate, a missing or doubled wait is not reported and a
  // regular wait never blocks.
  EXPECT_EQ(KernelOutput(Program(R"(
    copy = pltpu.make_async_copy(x_hbm, buf, sem)
    copy.start()
    o_ref[...] = buf[...]
    copy.wait()
    copy.wait()
    copy.start())"),
                         Interpret()),
            "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n");
  EXPECT_EQ(KernelOutput(Program(R"(
    pl.semaphore_wait(sem, 4)
    o_ref[...] = jnp.ones((8,), jnp.float32))",
                                 "pltpu.SemaphoreType.REGULAR"),
                         Interpret()),
            "[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]\n");
}

// ---- Counters and IR ---------------------------------------------------------------------------

TEST(Dma, CountersCountCopiesAndBytesPerMemorySpace) {
  EmulatorOptions options = Tpu();
  options.timeline = true;
  KernelRun r = RunKernelProgram(R"(
def kernel(x_hbm, o_hbm, buf, sem):
    pltpu.sync_copy(x_hbm.at[pl.ds(pl.program_id(0) * 4, 4)], buf)
    pltpu.sync_copy(buf, o_hbm.at[pl.ds(pl.program_id(0) * 4, 4)])


x = jnp.arange(8, dtype=jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     out_specs=pl.BlockSpec(memory_space=pl.ANY),
                     scratch_shapes=[pltpu.VMEM((4,), jnp.float32), pltpu.SemaphoreType.DMA])(x)
print(out.tolist())
)",
                                 options);
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]\n");
  const Counters& c = r.counters();
  EXPECT_EQ(c.dma_count, 4);
  using kernel::MemorySpace;
  EXPECT_EQ((c.dma_bytes.at({MemorySpace::kAny, MemorySpace::kVmem})), 32);
  EXPECT_EQ((c.dma_bytes.at({MemorySpace::kVmem, MemorySpace::kAny})), 32);
  // Both operands live in HBM (pl.ANY): the copies are all of the call's HBM traffic.
  EXPECT_EQ(c.hbm_bytes_read, 32);
  EXPECT_EQ(c.hbm_bytes_written, 32);
  EXPECT_EQ(DmaHbmBytes(c), (std::pair<int64_t, int64_t>{32, 32}));
  ASSERT_EQ(c.timeline.size(), 8u);  // per step: start, wait, start, wait
  EXPECT_EQ(c.timeline[0].kind, DmaEvent::Kind::kStart);
  EXPECT_EQ(c.timeline[1].kind, DmaEvent::Kind::kWait);
  EXPECT_EQ(c.timeline[4].step, 1);
  EXPECT_EQ(c.timeline[4].what, "x_hbm[4:8] -> buf on sync_copy_sem");
  std::string text = FormatDmaStats(c, true, [](SourceSpan) { return std::string("L"); });
  EXPECT_NE(text.find("stats:   DMA: 4 copies, VMEM->HBM 32 B, HBM->VMEM 32 B"), std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "  (1,): start x_hbm[4:8] -> buf on sync_copy_sem 16B @L; wait sync_copy_sem 16B @L; "
          "start "),
      std::string::npos)
      << text;
}

TEST(Dma, HbmTrafficAddsTheKernelsCopiesToThePipelines) {
  // A pipelined (8,) output block written back once (32 bytes) and an 8-element HBM input copied
  // into VMEM by the kernel (32 bytes): nothing else touches HBM.
  EmulatorOptions options = Tpu();
  options.stats = true;
  KernelRun r = RunKernelProgram(Program(R"(
    pltpu.sync_copy(x_hbm, buf)
    o_ref[...] = buf[...] * 2)"),
                                 options);
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_EQ(r.output, "[0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]\n");
  EXPECT_EQ(r.counters().hbm_bytes_read, 32);
  EXPECT_EQ(r.counters().hbm_bytes_written, 32);
  EXPECT_EQ(DmaHbmBytes(r.counters()), (std::pair<int64_t, int64_t>{32, 0}));
}

TEST(Dma, DumpIrListsDmaAndSemaphoreOps) {
  EmulatorOptions options = Tpu();
  options.dump_ir = true;
  KernelRun r = RunKernelProgram(Program(R"(
    pltpu.sync_copy(x_hbm, buf)
    copy = pltpu.make_async_copy(buf, o_ref, sem)
    copy.start()
    copy.wait())"),
                                 options);
  ASSERT_FALSE(r.error) << r.rendered;
  EXPECT_NE(r.output.find("#3 sem: DMA i32[]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("RunScoped #4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("DmaStart #0 -> #2 sem #4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("DmaWait #2 -> #1 sem #3 bytes=32"), std::string::npos) << r.output;
}

// ---- The engine on its own ----------------------------------------------------------------------

// A kernel with refs #0 x (HBM f32[8]), #1 buf (VMEM f32[8]), #2 sem (DMA semaphore) and the
// buffers behind them.
struct EngineFixture {
  kernel::Function kernel;
  RefBuffer x{.data = array::Ones({8}, array::DType::kFloat32)};
  RefBuffer buf{.data = array::Zeros({8}, array::DType::kFloat32)};
  Counters counters;
  kernel::Instr instr;  // every operation's instruction (no span)
  EngineFixture() {
    kernel.refs = {{.name = "x", .shape = {8}, .space = kernel::MemorySpace::kAny},
                   {.name = "buf", .shape = {8}, .space = kernel::MemorySpace::kVmem},
                   {.name = "sem",
                    .shape = {},
                    .dtype = array::DType::kInt32,
                    .space = kernel::MemorySpace::kSemaphore,
                    .role = kernel::RefRole::kScratch,
                    .semaphore = kernel::SemaphoreKind::kDma}};
  }
  // The elements [lo, lo + n) of `b` (ref `ref`) as a copy endpoint.
  DmaEndpoint End(kernel::RefId ref, RefBuffer& b, int64_t lo, int64_t n) {
    array::Array view = b.data.View({n}, {1}, lo);
    return {.ref = ref, .data = view, .region = RegionOf(b, view)};
  }
};

TEST(DmaEngine, WaitsLandAndRetireCopiesOldestFirst) {
  EngineFixture f;
  EmulatorOptions options = Tpu();
  DmaEngine dma(f.kernel, options, nullptr, f.counters);
  SemaphoreSlot sem{.ref = 2};
  dma.Start(f.instr, f.End(0, f.x, 0, 4), f.End(1, f.buf, 0, 4), sem, false);
  dma.Start(f.instr, f.End(0, f.x, 4, 4), f.End(1, f.buf, 4, 4), sem, false);
  EXPECT_EQ(f.buf.data.GetDouble(0), 0);  // on_wait: nothing landed yet
  dma.Wait(f.instr, sem, 16);
  EXPECT_EQ(f.buf.data.GetDouble(0), 1);  // the first copy landed and was taken
  EXPECT_EQ(f.buf.data.GetDouble(4), 0);
  EXPECT_TRUE(dma.busy());
  // The second copy still writes buf[4:8]: reading it races, reading buf[0:4] does not.
  dma.CheckAccess(f.instr, 1, RegionOf(f.buf, f.buf.data.View({4}, {1}, 0)), false);
  EXPECT_THROW(dma.CheckAccess(f.instr, 1, RegionOf(f.buf, f.buf.data.View({1}, {1}, 5)), false),
               EmulationError);
  EXPECT_THROW(dma.Finish(), EmulationError);
  dma.Wait(f.instr, sem, 16);
  EXPECT_FALSE(dma.busy());
  EXPECT_EQ(dma.Read(sem), 0);
  dma.Finish();
  EXPECT_THROW(dma.Wait(f.instr, sem, 16), EmulationError);  // nothing left to wait for
  EXPECT_EQ(f.counters.dma_count, 2);
}

TEST(DmaEngine, InterpretSemanticsNeverBlocksOrComplains) {
  EngineFixture f;
  EmulatorOptions options = Interpret();
  DmaEngine dma(f.kernel, options, nullptr, f.counters);
  SemaphoreSlot sem{.ref = 2};
  dma.Start(f.instr, f.End(0, f.x, 0, 8), f.End(1, f.buf, 0, 8), sem, false);
  EXPECT_EQ(f.buf.data.GetDouble(7), 1);  // copied at once
  EXPECT_FALSE(dma.busy());
  dma.Wait(f.instr, sem, 32);
  dma.Wait(f.instr, sem, 32);
  EXPECT_EQ(dma.Read(sem), -32);
  dma.Finish();
}

// ---- Memory regions ----------------------------------------------------------------------------

TEST(DmaRegion, ViewsAreBoxesInTheBuffersCoordinates) {
  RefBuffer buffer{.data = array::Zeros({4, 8}, array::DType::kFloat32)};
  // Rows 1..2, columns 3..6.
  array::Array view = buffer.data.View({2, 4}, {8, 1}, 1 * 8 + 3);
  MemRegion region = RegionOf(buffer, view);
  ASSERT_FALSE(region.empty);
  ASSERT_EQ(region.rank, 2u);
  EXPECT_EQ(region.lo[0], 1);
  EXPECT_EQ(region.lo[1], 3);
  EXPECT_EQ(region.hi[0], 2);
  EXPECT_EQ(region.hi[1], 6);
  // Column 7 of every row does not overlap; column 6 of row 0..1 does.
  EXPECT_FALSE(Overlaps(region, RegionOf(buffer, buffer.data.View({4}, {8}, 7))));
  EXPECT_TRUE(Overlaps(region, RegionOf(buffer, buffer.data.View({2}, {8}, 6))));
  // Another buffer never overlaps; an empty view neither.
  RefBuffer other{.data = array::Zeros({4, 8}, array::DType::kFloat32)};
  EXPECT_FALSE(Overlaps(region, RegionOf(other, other.data.View({2, 4}, {8, 1}, 11))));
  EXPECT_FALSE(Overlaps(region, RegionOf(buffer, buffer.data.View({0}, {1}, 11))));
}

}  // namespace
}  // namespace pz::tpu
