// What `--stats` says of a kernel timed on a GPU (engine/cuda/cuda_backend.h): its rates, and
// their shares of the peak of the units its products use.
#include <gtest/gtest.h>

#include <string>

#include "cuda/cuda_backend.h"

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
  report.milliseconds = 0;  // not timed: no rates
  EXPECT_EQ(report.Summary().find("TFLOP/s"), std::string::npos);
}

}  // namespace
}  // namespace pz::cuda
