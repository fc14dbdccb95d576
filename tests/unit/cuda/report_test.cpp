// What `--stats` says of a kernel timed on a GPU (engine/cuda/report.h): its rates, and their
// shares of the peak of the units its products use, from a data sheet or the driver's clocks.
#include <gtest/gtest.h>

#include <string>

#include "cuda/report.h"

namespace pz::cuda {
namespace {

TEST(CudaPeaks, AreFoundByTheDriversDeviceName) {
  Peaks sxm = PeaksOf("NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(sxm.tensor_tflops, 989.4);
  EXPECT_DOUBLE_EQ(sxm.fp32_tflops, 66.9);
  EXPECT_DOUBLE_EQ(sxm.gbps, 3350);
  // The PCIe card is not taken for the SXM one, whose key is a prefix of its name.
  EXPECT_DOUBLE_EQ(PeaksOf("NVIDIA H100 PCIe").fp32_tflops, 51.2);
  EXPECT_DOUBLE_EQ(PeaksOf("NVIDIA A100-SXM4-80GB").gbps, 2039);
  Peaks unknown = PeaksOf("host CPU");
  EXPECT_EQ(unknown.tensor_tflops, 0);
  EXPECT_EQ(unknown.fp32_tflops, 0);
}

TEST(CudaPeaks, KernelsOf16BitProductsAreComparedWithTheTensorCores) {
  Peaks h100 = PeaksOf("NVIDIA H100 80GB HBM3");
  ComparedPeak bf16 = PeakFor(h100, true, 9);
  EXPECT_DOUBLE_EQ(bf16.tflops, 989.4);
  EXPECT_EQ(bf16.kind, "bf16 tensor-core");
  ComparedPeak f32 = PeakFor(h100, false, 9);  // float32 products, or none
  EXPECT_DOUBLE_EQ(f32.tflops, 66.9);
  EXPECT_EQ(f32.kind, "f32");
  // Before sm_80 the backend's 16-bit products run on the CUDA cores.
  EXPECT_EQ(PeakFor(PeaksOf("Tesla V100-SXM2-16GB"), true, 7).kind, "f32");
}

// What the driver says of an H100 SXM: its SMs, SM clock (the boost maximum), memory clock and
// bus width.
DeviceInfo H100AsTheDriverSees(const std::string& name) {
  return DeviceInfo{.name = name,
                    .compute_major = 9,
                    .compute_minor = 0,
                    .multiprocessors = 132,
                    .clock_khz = 1'980'000,
                    .memory_clock_khz = 2'619'000,
                    .memory_bus_bits = 5120};
}

TEST(CudaPeaks, OfAnUnknownPartAreEstimatedFromTheDriversClocks) {
  Peaks peaks = PeaksOf(H100AsTheDriverSees("NVIDIA Future Part"));
  EXPECT_TRUE(peaks.estimated);
  // 132 SMs x 128 lanes x 2 flops x 1.98 GHz; x 4096 dense tensor flops a clock; 2.619 GHz x
  // 2 (double data rate) x 640 bytes.
  EXPECT_NEAR(peaks.fp32_tflops, 66.90, 0.01);
  EXPECT_NEAR(peaks.tensor_tflops, 1070.5, 0.1);
  EXPECT_NEAR(peaks.gbps, 3352.3, 0.1);
  // A part of the table keeps its data sheet's figures.
  Peaks known = PeaksOf(H100AsTheDriverSees("NVIDIA H100 80GB HBM3"));
  EXPECT_FALSE(known.estimated);
  EXPECT_DOUBLE_EQ(known.tensor_tflops, 989.4);
}

TEST(CudaPeaks, EstimatesOnlyWhatTheDriverAndTheArchitectureTell) {
  DeviceInfo a100 = H100AsTheDriverSees("NVIDIA Future Part");
  a100.compute_major = 8;
  a100.multiprocessors = 108;
  a100.clock_khz = 1'410'000;
  Peaks ampere = EstimatedPeaks(a100);
  EXPECT_NEAR(ampere.tensor_tflops, 311.9, 0.1);  // the A100's 312
  EXPECT_NEAR(ampere.fp32_tflops, 19.49, 0.01);   // and 19.5
  // An architecture whose tensor rate the table does not know: no tensor peak.
  DeviceInfo later = H100AsTheDriverSees("NVIDIA Future Part");
  later.compute_major = 12;
  EXPECT_EQ(EstimatedPeaks(later).tensor_tflops, 0);
  EXPECT_GT(EstimatedPeaks(later).fp32_tflops, 0);
  // No memory clock from the driver: no bandwidth peak.
  later.memory_clock_khz = 0;
  EXPECT_EQ(EstimatedPeaks(later).gbps, 0);
  // The host device has no peaks at all.
  DeviceInfo host{.name = "host CPU", .multiprocessors = 2, .host = true};
  Peaks none = PeaksOf(host);
  EXPECT_EQ(none.fp32_tflops, 0);
  EXPECT_EQ(none.gbps, 0);
}

TEST(CudaReport, GivesSharesOfThePeakItWasComparedWith) {
  CudaReport report;
  report.kernel = "matmul_0";
  report.device = "NVIDIA H100 80GB HBM3";
  report.flops = 2'000'000'000'000;  // 2 TFLOP in 100 ms: 20 TFLOP/s
  report.hbm_bytes_read = 300'000'000'000;
  report.hbm_bytes_written = 35'000'000'000;  // 335 GB in 100 ms: 3350 GB/s
  report.milliseconds = 100;
  report.peak_tflops = 66.9;
  report.peak_kind = "f32";
  report.peak_gbps = 3350;
  std::string summary = report.Summary();
  EXPECT_NE(summary.find("20.000 TFLOP/s, 3350.0 GB/s (29.9% of 67 TFLOP/s f32 peak, 100.0% of "
                         "3350 GB/s)"),
            std::string::npos)
      << summary;
  // Estimated peaks say so; a peak that is not known is left out.
  report.peaks_estimated = true;
  report.peak_tflops = 0;
  summary = report.Summary();
  EXPECT_NE(summary.find("3350.0 GB/s (100.0% of 3350 GB/s; peaks estimated from the driver's "
                         "clocks)"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("TFLOP/s f32 peak"), std::string::npos) << summary;
  report.milliseconds = 0;  // not timed: no rates
  EXPECT_EQ(report.Summary().find("TFLOP/s"), std::string::npos);
}

}  // namespace
}  // namespace pz::cuda
