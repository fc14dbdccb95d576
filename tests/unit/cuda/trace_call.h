// A traced pallas_call for the CUDA backend's unit tests: its kernel, grid mapping and operands,
// and its outputs on the emulated TPU.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tpu/tpu_backend.h"
#include "unit/tpu/run_kernel.h"

namespace pz::cuda {

struct Traced {
  kernel::KernelProgram program;
  kernel::GridMapping mapping;
  kernel::CallOperands operands;
  std::vector<array::Array> outputs;  // of the whole call, on the emulator
};

// Runs `source` and keeps its one pallas_call.
inline Traced Trace(const std::string& source) {
  auto traced = std::make_shared<std::optional<Traced>>();
  tpu::EmulatorOptions options = tpu::testing::Tpu();
  options.on_trace = [traced](const kernel::KernelProgram& program,
                              const kernel::GridMapping& mapping,
                              const kernel::CallOperands& operands, const kernel::RunOptions&) {
    *traced = Traced{program, mapping, operands, {}};
    return std::vector<kernel::CallWarning>{};
  };
  tpu::testing::KernelRun run = tpu::testing::RunKernelProgram(source, options);
  EXPECT_EQ(run.error_message, "") << run.rendered;
  if (!traced->has_value()) throw std::runtime_error("no pallas_call was traced");
  tpu::EmulatorOptions plain = tpu::testing::Tpu();
  tpu::TpuBackend backend(plain);
  (*traced)->outputs =
      backend.Run((*traced)->program, (*traced)->mapping, (*traced)->operands, {}).outputs;
  return std::move(**traced);
}

}  // namespace pz::cuda
