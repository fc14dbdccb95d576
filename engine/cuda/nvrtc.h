// NVRTC as the GPU device uses it (gpu_device.cpp): libnvrtc, opened with dlopen on first use
// (no CUDA headers or libraries at build time), compiling a unit for the GPU's part.
// CompileWithNvrtc, which compiles a unit, is declared in device.h for tests and tools.
#pragma once

#include <string>

#include "cuda/device.h"

namespace pz::cuda {

// Opens libnvrtc now; throws DeviceError (unavailable) when it cannot, with the backend's message.
void OpenNvrtc();

// NVRTC's version, "13.0"; empty when it cannot tell.
std::string NvrtcVersion();

}  // namespace pz::cuda
