// The emulated TPU as a kernel::Backend: one TensorCore (core.h) or, with `--cores 2` and
// leading "parallel" grid axes, a megacore (megacore.h), behind the one Run of backend.h. Its
// report carries the counters and detector findings of the run.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel/backend.h"
#include "tpu/executor.h"
#include "tpu/options.h"

namespace pz::tpu {

// What the TPU backend reports about a call (kernel::CallOutcome::report).
struct TpuReport final : kernel::CallReport {
  Counters counters;  // all cores together
  UninitializedRead uninitialized;
  // The first read of scratch holding what an earlier point of the carry axes stored there
  // (EmulatorOptions::carry_axes), and those axes.
  CarriedRead carried;
  std::vector<int> carry_axes;
  // Per output in pl.ANY: the block shape of the DMAs that wrote it, when they all wrote boxes of
  // one shape at multiples of it (so `check` can draw a block map); empty otherwise.
  std::vector<std::vector<int64_t>> dma_blocks;
  // With more than one core: each core's counters and its range of linearised grid steps
  // [first, end).
  std::vector<Counters> core_counters;
  std::vector<std::pair<int64_t, int64_t>> core_steps;
  // With `--cores 2`: which axes the cores split, or why the run used one core.
  std::string megacore_note;
};

class TpuBackend final : public kernel::Backend {
 public:
  explicit TpuBackend(const EmulatorOptions& options) : options_(options) {}
  // Runs the call on one core, or split over `options.cores` cores. Emulator-detected mistakes
  // are kernel::CallErrors; the report is a TpuReport.
  kernel::CallOutcome Run(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                          const kernel::CallOperands& operands,
                          const kernel::RunOptions& options) override;

 private:
  const EmulatorOptions& options_;
};

// The TpuReport of an outcome TpuBackend returned.
const TpuReport& TpuReportOf(const kernel::CallOutcome& outcome);

}  // namespace pz::tpu
