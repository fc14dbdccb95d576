// TpuBackend (see tpu_backend.h): single-core vs megacore dispatch, and the outcome and errors
// of the emulator in the backend interface's terms.
#include "tpu/tpu_backend.h"

#include <algorithm>
#include <memory>

#include "support/check.h"
#include "tpu/core.h"
#include "tpu/megacore.h"

namespace pz::tpu {

namespace {

// Runs the call on one core, or on several when the options ask for it and the grid splits.
CallResult RunCall(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                   const kernel::CallOperands& operands, const EmulatorOptions& options,
                   const kernel::RunOptions& run) {
  int64_t total = mapping.num_steps();
  int cores = std::clamp(options.cores, 1, 2);
  CoreSpec whole{.first = 0, .end = total, .trace = run.blocks};
  if (StepRecorder* recorder = options.recorder.get()) {
    // A step record follows one core through the whole grid.
    CallRecording& recording = recorder->calls.emplace_back();
    recording.mapping = mapping;
    recording.kernel = program.kernel;
    recording.prefetch = operands.prefetch;
    recording.inputs = operands.inputs;
    whole.recorder = recorder;
    whole.recording = &recording;
    return RunCore(program, mapping, operands, options, run, whole).result;
  }
  if (cores == 1) return RunCore(program, mapping, operands, options, run, whole).result;
  std::vector<std::pair<int64_t, int64_t>> chunks =
      SplitGrid(mapping.grid, LeadingParallelAxes(mapping.dimension_semantics), cores);
  std::string reason = NoSplitReason(mapping, options, chunks);
  if (!reason.empty()) {
    CallResult result = RunCore(program, mapping, operands, options, run, whole).result;
    result.megacore_note = std::move(reason);
    return result;
  }
  CallResult result = RunMegacore(program, mapping, operands, options, run, chunks);
  result.megacore_note =
      SplitNote(mapping, LeadingParallelAxes(mapping.dimension_semantics), cores);
  return result;
}

}  // namespace

kernel::CallOutcome TpuBackend::Run(const kernel::KernelProgram& program,
                                    const kernel::GridMapping& mapping,
                                    const kernel::CallOperands& operands,
                                    const kernel::RunOptions& options) {
  // Detected mistakes leave as kernel::CallError (EmulationError is that type).
  CallResult result = RunCall(program, mapping, operands, options_, options);
  auto report = std::make_unique<TpuReport>();
  report->counters = std::move(result.counters);
  report->uninitialized = std::move(result.uninitialized);
  report->carried = std::move(result.carried);
  report->carry_axes = options_.carry_axes;
  report->dma_blocks = std::move(result.dma_blocks);
  report->core_counters = std::move(result.core_counters);
  report->core_steps = std::move(result.core_steps);
  report->megacore_note = std::move(result.megacore_note);
  return kernel::CallOutcome{.outputs = std::move(result.outputs),
                             .writer = std::move(result.writer),
                             .report = std::move(report)};
}

const TpuReport& TpuReportOf(const kernel::CallOutcome& outcome) {
  const auto* report = dynamic_cast<const TpuReport*>(outcome.report.get());
  PZ_CHECK(report != nullptr);
  return *report;
}

}  // namespace pz::tpu
