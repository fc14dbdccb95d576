// A fault a generated kernel reported in its status row (emit.h: DeviceFault), as the error the
// call raises at the user's line, worded as the emulated TPU words the same mistake.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/emit.h"
#include "kernel/backend.h"

namespace pz::cuda {

// The error of the status row `row` (kStatusWords words), at grid step `point` of the call.
kernel::CallError DeviceFaultError(const EmittedKernel& kernel, const kernel::Function& kernel_fn,
                                   const long long* row, const std::vector<int64_t>& point);

}  // namespace pz::cuda
