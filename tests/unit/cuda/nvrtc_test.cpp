// NVRTC as the GPU device uses it (engine/cuda/device.h: CompileWithNvrtc): the same options,
// the CUBIN and the PTX fallback, and the log. It needs libnvrtc, not a GPU, so these run
// wherever the CUDA toolkit is installed and say why they skip elsewhere: the one part of the
// GPU path that a machine without a GPU can check.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/device.h"

namespace pz::cuda {
namespace {

// Compiles a unit, or skips the test where libnvrtc cannot be opened.
#define PZ_COMPILE_OR_SKIP(image, source, name, major, minor) \
  NvrtcImage image;                                           \
  try {                                                       \
    image = CompileWithNvrtc(source, name, major, minor);     \
  } catch (const DeviceError& error) {                        \
    if (error.unavailable()) GTEST_SKIP() << error.what();    \
    FAIL() << error.what();                                   \
  }

std::vector<std::filesystem::path> GoldenUnits() {
  std::vector<std::filesystem::path> units;
  for (const auto& entry : std::filesystem::directory_iterator(PZ_CUDA_GOLDEN_DIR)) {
    if (entry.path().extension() == ".cu") units.push_back(entry.path());
  }
  std::sort(units.begin(), units.end());
  return units;
}

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Nvrtc, CompilesEveryGoldenUnitForSm90WithoutAWarning) {
  std::vector<std::filesystem::path> units = GoldenUnits();
  ASSERT_GE(units.size(), 8u);
  for (const std::filesystem::path& unit : units) {
    SCOPED_TRACE(unit.filename().string());
    PZ_COMPILE_OR_SKIP(image, Read(unit), unit.stem().string(), 9, 0);
    EXPECT_EQ(image.arch, "sm_90");
    EXPECT_FALSE(image.ptx);
    EXPECT_FALSE(image.bytes.empty());
    EXPECT_EQ(image.log.find("warning"), std::string::npos) << image.log;
  }
}

TEST(Nvrtc, CompilesACubinForSm80) {
  std::string unit = Read(std::filesystem::path(PZ_CUDA_GOLDEN_DIR) / "bf16_matmul.cu");
  PZ_COMPILE_OR_SKIP(image, unit, "bf16_matmul", 8, 0);
  EXPECT_EQ(image.arch, "sm_80");
  EXPECT_FALSE(image.ptx);
  EXPECT_FALSE(image.bytes.empty());
}

TEST(Nvrtc, FallsBackToPtxForAPartItDoesNotKnow) {
  // Compute capability 99.0: no NVRTC knows sm_990, so the device compiles PTX for the newest
  // virtual architecture it knows, which the driver would compile for the part.
  std::string unit = Read(std::filesystem::path(PZ_CUDA_GOLDEN_DIR) / "vector_add.cu");
  PZ_COMPILE_OR_SKIP(image, unit, "vector_add", 99, 0);
  EXPECT_TRUE(image.ptx);
  EXPECT_EQ(image.arch.rfind("compute_", 0), 0u) << image.arch;
  EXPECT_FALSE(image.bytes.empty());
}

TEST(Nvrtc, AUnitThatDoesNotCompileGivesNvrtcsLog) {
  try {
    CompileWithNvrtc("extern \"C\" __global__ void k() { pz_not_declared = 1; }", "broken", 9, 0);
    FAIL() << "a unit with an undeclared name compiled";
  } catch (const DeviceError& error) {
    if (error.unavailable()) GTEST_SKIP() << error.what();
    std::string message = error.what();
    EXPECT_NE(message.find("NVRTC could not compile unit broken for sm_90"), std::string::npos)
        << message;
    EXPECT_NE(message.find("pz_not_declared"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace pz::cuda
