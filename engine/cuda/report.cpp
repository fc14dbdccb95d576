// `--stats` of the CUDA backend (see report.h): the static flop count of a kernel, the peaks of
// known parts and those the driver's clocks give, and the report's text.
#include "cuda/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

namespace pz::cuda {

namespace {

using Constants = std::map<kernel::ValueId, int64_t>;

void CollectConstants(const kernel::Region& region, Constants& out) {
  for (const kernel::Instr& instr : region.body) {
    if (instr.op == kernel::Op::kConstant && instr.constant && instr.constant->size() == 1) {
      out[instr.results[0]] = instr.constant->GetInt(0);
    }
    for (const kernel::Region& r : instr.regions) CollectConstants(r, out);
  }
}

std::optional<int64_t> ConstantValue(kernel::ValueId id, const Constants& constants) {
  auto it = constants.find(id);
  if (it == constants.end()) return std::nullopt;
  return it->second;
}

FlopCount CountRegion(const kernel::Region& region, const Constants& constants) {
  FlopCount total;
  for (const kernel::Instr& instr : region.body) {
    total.flops += instr.cost.flops;
    if (instr.op == kernel::Op::kFor) {
      FlopCount body = CountRegion(instr.regions[0], constants);
      std::optional<int64_t> lo = ConstantValue(instr.operands[0], constants);
      std::optional<int64_t> hi = ConstantValue(instr.operands[1], constants);
      int64_t trips = lo && hi ? std::max<int64_t>(*hi - *lo, 0) : 1;
      total.flops += body.flops * trips;
      total.exact = total.exact && body.exact && lo && hi;
    } else if (!instr.regions.empty()) {
      // Branches (and while loops) are counted once, as taken: an estimate.
      int64_t most = 0;
      for (const kernel::Region& r : instr.regions) {
        most = std::max(most, CountRegion(r, constants).flops);
      }
      total.flops += most;
      total.exact = false;
    }
  }
  return total;
}

// Per SM and clock, for a compute capability: float32 lanes (a fused multiply-add each), and
// dense 16-bit tensor-core flops with float32 accumulation (0 where unknown). From the vendor's
// architecture documents; data-center and workstation parts (GeForce parts of sm_86 and sm_89
// halve the tensor rate with float32 accumulation, which the driver does not tell apart).
struct SmUnits {
  int fp32_lanes = 0;
  int tensor_flops = 0;
};

SmUnits UnitsOf(int major, int minor) {
  switch (major) {
    case 6:  // Pascal: no tensor cores
      return {minor == 0 ? 64 : 128, 0};
    case 7:  // Volta, Turing (fp16)
      return {64, 1024};
    case 8:  // A100; A10, A40, L4, L40S
      return minor == 0 ? SmUnits{64, 2048} : SmUnits{128, 1024};
    case 9:  // H100, H200
      return {128, 4096};
    default:  // later parts: the tensor rate is not known
      return major > 9 ? SmUnits{128, 0} : SmUnits{};
  }
}

}  // namespace

FlopCount CountFlops(const kernel::Function& kernel) {
  Constants constants;
  CollectConstants(kernel.body, constants);
  return CountRegion(kernel.body, constants);
}

Peaks PeaksOf(const std::string& name) {
  struct Part {
    const char* key;
    Peaks peaks;
  };
  static const Part kParts[] = {
      {"H200", {989.4, 66.9, 4800}},
      {"H100 PCIe", {756.5, 51.2, 2000}},
      {"H100 NVL", {835.5, 60.0, 3900}},
      {"H100", {989.4, 66.9, 3350}},
      {"A100-SXM4-80GB", {312, 19.5, 2039}},
      {"A100 80GB PCIe", {312, 19.5, 1935}},
      {"A100", {312, 19.5, 1555}},
      {"L40S", {362.1, 91.6, 864}},
      {"L4", {121, 30.3, 300}},
      {"RTX 4090", {165.2, 82.6, 1008}},
      {"A10G", {70, 31.2, 600}},
      {"A10", {125, 31.2, 600}},
      {"V100", {125, 15.7, 900}},
      {"T4", {65, 8.1, 320}},
  };
  for (const Part& p : kParts) {
    if (name.find(p.key) != std::string::npos) return p.peaks;
  }
  return {};
}

Peaks EstimatedPeaks(const DeviceInfo& device) {
  Peaks peaks{.estimated = true};
  SmUnits units = UnitsOf(device.compute_major, device.compute_minor);
  double sm_clocks = static_cast<double>(device.multiprocessors) *
                     static_cast<double>(device.clock_khz) * 1e3;  // SM clocks per second
  peaks.fp32_tflops = sm_clocks * units.fp32_lanes * 2 / 1e12;
  peaks.tensor_tflops = sm_clocks * units.tensor_flops / 1e12;
  peaks.gbps = static_cast<double>(device.memory_clock_khz) * 1e3 * 2 *
               (static_cast<double>(device.memory_bus_bits) / 8) / 1e9;
  return peaks;
}

Peaks PeaksOf(const DeviceInfo& device) {
  Peaks known = PeaksOf(device.name);
  return known.gbps > 0 || device.host ? known : EstimatedPeaks(device);
}

ComparedPeak PeakFor(const Peaks& peaks, bool tensor_products, int compute_major) {
  if (tensor_products && compute_major >= 8) return {peaks.tensor_tflops, "bf16 tensor-core"};
  return {peaks.fp32_tflops, "f32"};
}

std::string CudaReport::Summary() const {
  std::string out = fmt::format(
      "CUDA kernel {} on {}: {} chains of {} steps on {} blocks of {} threads, arena {} B shared + "
      "{} B global per block\n",
      kernel, device, chains, steps_per_chain, blocks, threads, shared_bytes, global_bytes);
  if (direct_operands > 0) {
    out += fmt::format(
        "stats:   {} operand{} read and written in place in HBM: the blocks do not fit in shared "
        "memory\n",
        direct_operands, direct_operands == 1 ? "" : "s");
  }
  out += fmt::format("stats:   grid: {}\n", split);
  if (!tensor_staging.empty()) out += fmt::format("stats:   products: {}\n", tensor_staging);
  out += fmt::format("stats:   HBM read {} B, HBM written {} B, {}{} flops\n", hbm_bytes_read,
                     hbm_bytes_written, flops_exact ? "" : "about ", flops);
  if (milliseconds > 0) {
    double seconds = milliseconds / 1000;
    double tflops = static_cast<double>(flops) / seconds / 1e12;
    double gbps = static_cast<double>(hbm_bytes_read + hbm_bytes_written) / seconds / 1e9;
    out += fmt::format(
        "stats:   time {:.4f} ms (median of 7 after 2 warm-ups): {:.3f} TFLOP/s, {:.1f} GB/s",
        milliseconds, tflops, gbps);
    std::vector<std::string> shares;
    if (peak_tflops > 0) {
      shares.push_back(fmt::format("{:.1f}% of {:.0f} TFLOP/s {} peak", 100 * tflops / peak_tflops,
                                   peak_tflops, peak_kind));
    }
    if (peak_gbps > 0) {
      shares.push_back(fmt::format("{:.1f}% of {:.0f} GB/s", 100 * gbps / peak_gbps, peak_gbps));
    }
    if (!shares.empty()) {
      out += fmt::format(" ({}{})", fmt::join(shares, ", "),
                         peaks_estimated ? "; peaks estimated from the driver's clocks" : "");
    }
    out += "\n";
  }
  return out;
}

}  // namespace pz::cuda
