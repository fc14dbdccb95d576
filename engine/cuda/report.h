// What `--stats` says of a call the CUDA backend ran: the launch, the traffic and flops of its
// grid, its time, and those as shares of the device's peaks (a table of known parts, else the
// peaks the driver's clocks give).
#pragma once

#include <cstdint>
#include <string>

#include "cuda/device.h"
#include "kernel/backend.h"
#include "kernel/ir.h"

namespace pz::cuda {

// What a call did on the device (kernel::CallOutcome::report).
struct CudaReport final : kernel::CallReport {
  std::string kernel;  // the CUDA function
  std::string device;  // the device's name
  std::string split;   // how the grid became chains (plan.h)
  int64_t chains = 1;
  int64_t steps_per_chain = 1;
  unsigned blocks = 1, threads = 1;
  int64_t shared_bytes = 0, global_bytes = 0;  // per CUDA block
  int64_t direct_operands = 0;  // operands read and written in HBM at their windows (emit.h)
  // How the staged tensor-core products ran ("each warp a 32 x 32 tile ..."), where they did.
  std::string tensor_staging;
  int64_t hbm_bytes_read = 0, hbm_bytes_written = 0;  // by the pipeline's fetches and write-backs
  int64_t flops = 0;        // the body's static count over the grid (loops by static trip count)
  bool flops_exact = true;  // false when a loop bound or branch was not static
  double milliseconds = 0;  // median kernel time, when timed
  // The device's peaks, when known: TFLOP/s of the units the kernel's products use (tensor cores
  // for 16-bit floats on sm_80 and later, else the float32 CUDA cores), named by `peak_kind`.
  double peak_tflops = 0, peak_gbps = 0;
  std::string peak_kind;
  // The peaks come from the driver's clocks and counts, not from the part's data sheet.
  bool peaks_estimated = false;
  std::string Summary() const override;
};

// The flops of one run of a kernel's body, loops multiplied by their trip count where it is a
// constant; not `exact` where a loop bound is not constant or a branch (or while loop) decides
// (each branch counts as its costliest region, once).
struct FlopCount {
  int64_t flops = 0;
  bool exact = true;
};
FlopCount CountFlops(const kernel::Function& kernel);

// A GPU's peaks: dense tensor-core TFLOP/s of bf16 with float accumulation (fp16 on parts without
// bf16), float32 TFLOP/s on the CUDA cores, memory GB/s.
struct Peaks {
  double tensor_tflops = 0, fp32_tflops = 0, gbps = 0;
  bool estimated = false;  // from the driver's clocks (EstimatedPeaks), not a data sheet
};
// A known part's peaks from its vendor's data sheet, found by the driver's name; zeros when
// unknown.
Peaks PeaksOf(const std::string& device_name);
// Peaks from what the driver reports: SMs x the units an SM of that compute capability has x
// the SM clock; memory clock x bus width x 2 (double data rate). Zeros for what it does not
// report, and a tensor peak of zero for a compute capability it does not know.
Peaks EstimatedPeaks(const DeviceInfo& device);
// The device's peaks: its data sheet's where the part is known, else EstimatedPeaks.
Peaks PeaksOf(const DeviceInfo& device);

// The TFLOP/s a kernel's rate is a share of, and what they are: the tensor cores' when its
// products multiply 16-bit floats on sm_80 or later (where the backend runs them there), else the
// float32 CUDA cores'.
struct ComparedPeak {
  double tflops = 0;
  std::string kind;
};
ComparedPeak PeakFor(const Peaks& peaks, bool tensor_products, int compute_major);

}  // namespace pz::cuda
