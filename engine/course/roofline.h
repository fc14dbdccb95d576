// The roofline of a program's pallas_calls on a TPU generation (`pallas-puzzles roofline`, and
// the ranking of `tune`): from what the emulator counted for each call (FLOPs of the matrix unit
// and of the vector unit, transcendentals, HBM bytes of the pipeline and of the kernel's DMAs,
// grid steps, VMEM), its arithmetic intensity against the generation's ridge point, what bounds
// it, and a lower bound on its time:
//
//   time >= max(FLOPs / peak, HBM bytes / bandwidth) + grid steps x step cost
//
// peak and bandwidth are the chip's bf16 op/s and HBM bytes/s from JAX's TPU info table
// (tpu/tpu_info.cpp), per TensorCore, times the TensorCores the call ran on. Every FLOP counts
// against the MXU's bf16 peak: float32 products and vector-unit work run slower, so the bound
// stays a lower bound. The step cost (kStepSeconds by default) stands for the fixed work of a
// grid step: the pipeline's DMA issue and waits and the loop's bookkeeping.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/source.h"
#include "tpu/pallas_call.h"
#include "tpu/tpu_info.h"

namespace pz::course {

// The fixed cost of one grid step assumed by default: 0.35 us, the order of magnitude of a
// Pallas TPU grid step's overhead (measured on real chips it varies by generation and by the
// number of operands; `--step-us` changes it).
inline constexpr double kStepSeconds = 0.35e-6;

struct RooflineTarget {
  const tpu::ChipInfo* chip = nullptr;
  double step_seconds = kStepSeconds;
  // Per TensorCore (the chip's figures divided among its TensorCores, as pltpu.get_tpu_info).
  double core_flops() const;
  double core_bandwidth() const;
  double ridge() const { return core_flops() / core_bandwidth(); }  // flop per HBM byte
};

enum class Bound { kCompute, kMemory, kStepOverhead };
std::string_view BoundName(Bound bound);  // "compute", "memory", "per-step overhead"

struct CallRoofline {
  std::string name;
  std::string location;  // "file.py:40"
  int count = 1;         // identical calls (same place, grid and counts) merged into one
  std::vector<int64_t> grid;
  int cores = 1;  // TensorCores the call ran on
  int64_t grid_steps = 0;
  int64_t busiest_steps = 0;  // the grid steps of the core that ran the most (all with one core)
  int64_t flops = 0, mxu_flops = 0, vpu_flops = 0, transcendentals = 0;
  int64_t hbm_read = 0, hbm_written = 0;  // the pipeline's and the DMAs' to and from HBM
  int64_t vmem_bytes = 0;                 // blocks (double-buffered), scratch, scoped buffers
  double peak_flops = 0, bandwidth = 0;   // for this call: per core x cores
  double intensity = 0;                   // flops / HBM bytes; 0 without HBM traffic
  double compute_s = 0, memory_s = 0, overhead_s = 0;
  double bound_s = 0;  // the lower bound on one call's time
  Bound bound = Bound::kMemory;
  bool vmem_over = false;  // more VMEM than a TensorCore of the generation has
  int64_t hbm_bytes() const { return hbm_read + hbm_written; }
  // FLOP/s at the lower bound: where the call sits on the plot.
  double attainable() const { return bound_s > 0 ? static_cast<double>(flops) / bound_s : 0; }
};

// The roofline of each call the emulator counted (stats in call order); identical calls are
// merged. Calls another backend ran (no counts) are left out.
std::vector<CallRoofline> Roofline(const std::vector<tpu::CallStats>& stats,
                                   const SourceManager& sources, const RooflineTarget& target);

// The sum of the calls' lower bounds (each times its count), in seconds.
double TotalBound(const std::vector<CallRoofline>& calls);

// The report: the generation's figures, each call's numbers and what bounds it.
std::string RooflineText(const std::vector<CallRoofline>& calls, const RooflineTarget& target);
// A log-log plot in text (about `width` x `height` cells): the roof and every call as its number.
std::string RooflinePlotText(const std::vector<CallRoofline>& calls, const RooflineTarget& target,
                             int width = 64, int height = 16);
// The same plot as a self-contained SVG document.
std::string RooflineSvg(const std::vector<CallRoofline>& calls, const RooflineTarget& target,
                        const std::string& title);
// Everything as one JSON object.
std::string RooflineJson(const std::vector<CallRoofline>& calls, const RooflineTarget& target);

// The figures of every TPU generation the roofline knows (per chip and per TensorCore).
std::string ChipTableText();
// Each call's bound on every generation from v4 on, one row per generation: the same counts
// under each chip's peaks (the program ran once).
std::string GenerationsText(const std::vector<tpu::CallStats>& stats, const SourceManager& sources,
                            double step_seconds);

// "1.07 G", "820 G", "25.6 µ" style: three significant digits and an SI prefix.
std::string SiNumber(double value);
// A count: exact below 1000 ("512"), else SiNumber without the trailing space ("1.07 G").
std::string SiCount(double value);

}  // namespace pz::course
