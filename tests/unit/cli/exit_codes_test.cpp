// Runs the `pallas-puzzles` binary and pins its exit codes and usage messages (DESIGN.md §6).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "../scratch_dir.h"
#include "run_cli.h"

namespace {
using pz::testing::Result;

Result RunCli(const std::string& args) {
  return pz::testing::RunShell(std::string(PZ_CLI_PATH) + " " + args + " 2>&1 </dev/null");
}

// The programs go into a directory of this process's own, removed when it exits.
std::string WriteProgram(const std::string& name, const std::string& text) {
  static pz::testing::ScratchDir scratch;
  std::string path = (scratch / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(ExitCodes, SuccessIsZero) {
  Result r = RunCli("run " + WriteProgram("pz_cli_ok.py", "print('hi')\n"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "hi\n");
}

TEST(ExitCodes, UsageErrorsAre64) {
  EXPECT_EQ(RunCli("frobnicate").exit_code, 64);
  EXPECT_EQ(RunCli("run").exit_code, 64);
  EXPECT_EQ(RunCli("run --max-steps banana x.py").exit_code, 64);
  Result r = RunCli("run --bogus x.py");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.output.find("unknown option `--bogus`"), std::string::npos);
}

TEST(ExitCodes, SyntaxErrorsAre65) {
  Result r = RunCli("run " + WriteProgram("pz_cli_syntax.py", "if x\n    pass\n"));
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.output.find("pz_cli_syntax.py:1:"), std::string::npos);
}

TEST(ExitCodes, RuntimeErrorsAndLimitsAre70) {
  EXPECT_EQ(RunCli("run " + WriteProgram("pz_cli_boom.py", "1 / 0\n")).exit_code, 70);
  Result r =
      RunCli("run --max-steps 1000 " + WriteProgram("pz_cli_loop.py", "while True:\n    pass\n"));
  EXPECT_EQ(r.exit_code, 70);
  EXPECT_NE(r.output.find("step limit of 1000 exceeded"), std::string::npos);
  r = RunCli("run --timeout 0.2 --max-steps 0 " +
             WriteProgram("pz_cli_spin.py", "while True:\n    pass\n"));
  EXPECT_EQ(r.exit_code, 70);
  EXPECT_NE(r.output.find("time limit"), std::string::npos);
}

TEST(ExitCodes, ArraysAboveTheAllocationLimitAreAnError) {
  std::string program =
      WriteProgram("pz_cli_big.py", "import jax.numpy as jnp\nx = jnp.zeros((1024, 1024, 8))\n");
  Result r = RunCli("run --max-array-gib 0.01 " + program);
  EXPECT_EQ(r.exit_code, 70);
  EXPECT_NE(
      r.output.find("pz_cli_big.py:2:5: error: ValueError: an array of shape (1024, 1024, 8)"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(RunCli("run " + program).exit_code, 0);
  EXPECT_EQ(RunCli("run --max-array-gib 0 " + program).exit_code, 64);
}

TEST(ExitCodes, UnreadableFileIs74) {
  Result r = RunCli("run /nonexistent/definitely/missing.py");
  EXPECT_EQ(r.exit_code, 74);
  EXPECT_NE(r.output.find("cannot read"), std::string::npos);
}

TEST(Cli, HelpIsGeneratedFromTheCommandTable) {
  Result r = RunCli("help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("run [--backend tpu|cuda] [--emit-cuda] [--semantics tpu|interpret]"),
            std::string::npos);
  EXPECT_NE(r.output.find("[--max-steps N]"), std::string::npos);
}

TEST(Cli, DumpAstPrintsTheTree) {
  Result r = RunCli("run --dump-ast " + WriteProgram("pz_cli_ast.py", "x = 1 + 2\n"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("BinOp +"), std::string::npos) << r.output;
}

TEST(Cli, NoColourWithoutATerminal) {
  Result r = RunCli("run " + WriteProgram("pz_cli_err.py", "undefined_name\n"));
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos);
}

}  // namespace

TEST(RunFlags, DmaModeAndTimeline) {
  EXPECT_EQ(RunCli("run --dma sometimes x.py").exit_code, 64);
  std::string program = WriteProgram("pz_cli_dma.py", R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_hbm, o_ref, buf, sem):
    pltpu.sync_copy(x_hbm, buf)
    o_ref[...] = buf[...]


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                     scratch_shapes=[pltpu.VMEM((8,), jnp.float32), pltpu.SemaphoreType.DMA])(
                         jnp.ones((8,), jnp.float32))
print(out.sum())
)");
  Result r = RunCli("run --dma eager --stats --timeline " + program);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(
      r.output.find(
          "stats:   DMA: 1 copy, HBM->VMEM 32 B; 0 B in flight while the kernel computed (0%)\n"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(
                "  (): start x_hbm -> buf on sync_copy_sem 32B @8; wait sync_copy_sem 32B @8\n"),
            std::string::npos)
      << r.output;
}

// Prints on the CUDA backend go through a log the host replays after the launch; a kernel that
// prints more than the log holds (512 KiB here: 16384 prints of one scalar) shows the prints
// that fit, in order, then a warning at the print with the count of those that did not.
TEST(RunFlags, CudaPrintsBeyondTheLogAreCountedAtThePrint) {
  const std::string program = WriteProgram("pz_cli_prints.py", R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(o_ref):
    def body(k, c):
        jax.debug.print("{}", k)
        return c + 1
    o_ref[...] = jnp.full(o_ref.shape, jax.lax.fori_loop(0, 20000, body, 0), jnp.int32)


print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32))()[0, 0])
)");
  Result r = pz::testing::RunShell("PZ_CUDA_DEVICE=host " + std::string(PZ_CLI_PATH) +
                                   " run --backend cuda " + program + " 2>&1 </dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
  std::string expected;
  for (int k = 0; k < 16384; ++k) expected += std::to_string(k) + "\n";
  ASSERT_GE(r.output.size(), expected.size());
  EXPECT_EQ(r.output.substr(0, expected.size()), expected);
  std::string rest = r.output.substr(expected.size());
  EXPECT_NE(rest.find("pz_cli_prints.py:8:9: warning: 3616 prints of this kernel did not fit in "
                      "the CUDA backend's log of prints (512 KiB) and were not shown"),
            std::string::npos)
      << rest;
  EXPECT_NE(rest.find("20000"), std::string::npos) << rest;  // the call's result
}

// `--emit-cuda` runs its calls on the emulator with every "parallel" axis under the carry check:
// a scratch value that loaded values hand from one point to the next is warned of (an error with
// `--strict`), while a plain run says nothing. The program is the golden file of the `--lint`
// check; its first call carries `best_ref` into point 2.
TEST(RunFlags, EmitCudaReportsACarryLoadedValuesDecide) {
  const std::string program = std::string(PZ_SOURCE_DIR) +
                              "/tests/golden/kernel/warn_kernel_lint_scratch_carried_by_data.py";
  Result plain = RunCli("run " + program);
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(plain.output, "[1. 2. 2. 3.]\n[ 1.  2. -1.  3.]\n");
  // (the CUDA source on stdout is dropped; the warnings come on stderr)
  auto emit = [&](const std::string& flags) {
    return pz::testing::RunShell(std::string(PZ_CLI_PATH) + " run --emit-cuda " + flags + program +
                                 " 2>&1 >/dev/null </dev/null");
  };
  const std::string at = "warn_kernel_lint_scratch_carried_by_data.py:19:18: ";
  Result emitted = emit("");
  EXPECT_EQ(emitted.exit_code, 0) << emitted.output;
  EXPECT_NE(emitted.output.find(at + "warning: scratch `best_ref` is read at grid step (2,) where "
                                     "it still holds what an earlier point of the \"parallel\" "
                                     "axis 0 stored"),
            std::string::npos)
      << emitted.output;
  Result strict = emit("--strict ");
  EXPECT_EQ(strict.exit_code, 70) << strict.output;
  EXPECT_NE(strict.output.find(at + "error: scratch `best_ref` is read"), std::string::npos)
      << strict.output;
}
