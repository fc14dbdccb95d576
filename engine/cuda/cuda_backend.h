// The CUDA backend: kernel::Backend over a cuda::Device. Each call's kernel IR becomes a CUDA
// kernel (emit.h), its grid a set of chains with a step table (plan.h); the device compiles and
// runs it, and the outputs come back. `--emit-cuda` collects the translation unit of every call.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/device.h"
#include "cuda/emit.h"
#include "cuda/plan.h"
#include "cuda/report.h"
#include "cuda/split.h"
#include "kernel/backend.h"

namespace pz::cuda {

struct CudaOptions {
  // Time each call (median of several launches after a warm-up) for `--stats`.
  bool timing = false;
  // Threads per CUDA block; 0 picks 256 on a GPU and 4 on the host.
  unsigned threads = 0;
  // How warps share a staged tensor-core product's tile (emit.h).
  WarpTile warp_tile;
};

// How a call runs on CUDA: its kernel, the split of its grid into chains and the step table,
// after splitting its grid points into parts where the body allows (split.h; kept whole when
// the split grid would fail where the original does not).
struct PlannedCall {
  EmittedKernel kernel;
  GridSplit split;
  StepTable table;
  std::optional<PointSplit> parts;
  // What the call's own chains may see otherwise than the emulated TPU does (ChainWarnings of
  // hazards.h, for the call's own split).
  std::vector<kernel::CallWarning> warnings;
  // The kernel and mapping the plan runs: the split ones, or the call's own.
  const kernel::KernelProgram& Program(const kernel::KernelProgram& call) const {
    return parts ? parts->program : call;
  }
  const kernel::GridMapping& Mapping(const kernel::GridMapping& call) const {
    return parts ? parts->mapping : call;
  }
  // The call's own linear grid step of step `linear` of the plan's grid.
  int64_t CallStep(const kernel::GridMapping& call, int64_t linear) const {
    return parts ? OriginalStep(*parts, call.grid, linear) : linear;
  }
};

// Plans a call for `shared_budget` bytes of shared memory per block and warps of `warp_tile`
// (no device needed); `serial` numbers the calls of a program. Throws kernel::CallError as the
// call would fail.
PlannedCall PlanCall(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                     const kernel::CallOperands& operands, const kernel::RunOptions& run,
                     int serial, int64_t shared_budget, const WarpTile& warp_tile = {});

// The shared memory the backend plans for: PZ_CUDA_SHARED_BUDGET (bytes) when set (0 puts every
// arena in global memory and makes every operand that allows it a direct window), else the
// device's opt-in maximum (a GPU's, or the host device's running the sm_80 forms), or 48 KiB
// (what every CUDA GPU gives a block without opting in) without a device (--emit-cuda) or on the
// host device.
int64_t SharedBudget(const DeviceInfo* device);

class CudaBackend final : public kernel::Backend {
 public:
  // Runs on `device` (OpenGpuDevice, or OpenHostDevice for the generated code on CPU threads).
  CudaBackend(CudaOptions options, std::unique_ptr<Device> device)
      : options_(options), device_(std::move(device)) {}
  kernel::CallOutcome Run(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                          const kernel::CallOperands& operands,
                          const kernel::RunOptions& options) override;
  const DeviceInfo& device_info() const { return device_->info(); }
  const CudaOptions& options() const { return options_; }

 private:
  kernel::CallOutcome RunOnDevice(const kernel::KernelProgram& program,
                                  const kernel::GridMapping& mapping,
                                  const kernel::CallOperands& operands,
                                  const kernel::RunOptions& options);

  CudaOptions options_;
  std::unique_ptr<Device> device_;
  int serial_ = 0;
};

}  // namespace pz::cuda
