// The host's side of a kernel's prints on the CUDA backend: the log in device memory that the
// kernel's threads write their records into (emit.h, emit_print.cpp), and, after the launch, the
// prints replayed from it in the emulator's order.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cuda/device.h"
#include "cuda/emit.h"
#include "kernel/backend.h"

namespace pz::cuda {

class PrintLog {
 public:
  // A zeroed log with room for each print of `kernel` about four times per grid step, within
  // 512 KiB and 256 MiB.
  PrintLog(Device& device, const EmittedKernel& kernel, const kernel::Function& kernel_fn,
           int64_t steps);
  DevicePtr ptr() const { return buffer_->ptr(); }

  // Runs the prints the log holds, in the emulator's order: by grid step (`call_step` of each
  // record's row of the step table), then as its chain ran them; only those of steps up to
  // `last_step` (a fault's: the emulator stops there). A warning at the first print when some
  // did not fit.
  std::optional<kernel::CallWarning> Replay(const std::vector<int64_t>& call_step,
                                            int64_t last_step) const;

 private:
  Device& device_;
  const EmittedKernel& kernel_;
  const kernel::Function& kernel_fn_;
  int64_t words_ = 0;  // the records' capacity
  std::unique_ptr<DeviceBuffer> buffer_;
};

}  // namespace pz::cuda
