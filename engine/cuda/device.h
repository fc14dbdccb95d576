// Where generated CUDA C++ runs: a Device compiles one translation unit, holds memory and launches
// its kernels. Two implementations share this interface:
// - the GPU (OpenGpuDevice): NVRTC compiles the source, the CUDA driver API loads and launches it.
//   libcuda.so.1 and libnvrtc are opened with dlopen on first use, so every build has the backend
//   and a machine without a GPU gets a clear error instead of a link failure;
// - the host (OpenHostDevice): the same source compiled by the system C++ compiler (the prelude
//   the emitter writes maps CUDA's names onto plain C++ when __CUDACC__ is not defined), loaded
//   with dlopen and run with one fiber per CUDA thread of a block (host_fibers.h),
//   `__syncthreads()` a barrier of the block's fibers. That is how the test suite runs generated
//   kernels where no GPU is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace pz::cuda {

// A failure of the device or its compiler: no driver, a compile error (with the log), a launch
// failure. `unavailable` marks "there is no such device here" (exit 70 at the CLI).
class DeviceError : public std::runtime_error {
 public:
  explicit DeviceError(const std::string& message, bool unavailable = false)
      : std::runtime_error(message), unavailable_(unavailable) {}
  bool unavailable() const { return unavailable_; }

 private:
  bool unavailable_;
};

// An address in the device's memory (a CUdeviceptr on the GPU, a host pointer on the host).
using DevicePtr = uint64_t;

struct DeviceInfo {
  std::string name;       // "NVIDIA H100 80GB HBM3", "host CPU"
  int compute_major = 0;  // compute capability (0 on the host)
  int compute_minor = 0;
  int multiprocessors = 1;                   // SMs (host: hardware threads)
  int64_t clock_khz = 0;                     // SM clock (peak), kHz; 0 when unknown
  int64_t memory_clock_khz = 0;              // memory clock, kHz; 0 when unknown
  int memory_bus_bits = 0;                   // memory bus width; 0 when unknown
  int64_t memory_bytes = 0;                  // total device memory
  int64_t max_shared_per_block = 48 * 1024;  // opt-in maximum of dynamic shared memory
  bool host = false;                         // the host device
  // The host device running the forms of sm_80 GPUs (prelude.h's PZ_HOST_SM80) with the thread
  // counts a GPU launches.
  bool host_sm80 = false;
};

// One launch of a kernel: a 1-D grid of 1-D blocks. Every generated kernel has the signature
// `extern "C" __global__ void NAME(const unsigned long long* args)`: `args` points to device
// memory holding its arguments (pointers and integers, 64 bits each).
struct LaunchConfig {
  std::string kernel;       // NAME
  unsigned grid = 1;        // blocks
  unsigned block = 128;     // threads per block
  size_t shared_bytes = 0;  // dynamic shared memory per block
  DevicePtr args = 0;
};

// A compiled translation unit's handle, valid while its Device lives.
using ModuleId = int;

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  // Device memory, uninitialised. Throws DeviceError when it cannot be had.
  virtual DevicePtr Alloc(size_t bytes) = 0;
  virtual void Free(DevicePtr ptr) = 0;
  virtual void CopyToDevice(DevicePtr dst, const void* src, size_t bytes) = 0;
  virtual void CopyToHost(void* dst, DevicePtr src, size_t bytes) = 0;
  virtual void Memset(DevicePtr dst, uint8_t value, size_t bytes) = 0;
  // Compiles `source` (one self-contained translation unit) for this device and loads it.
  // `name` names it in messages. Compiling the same source twice returns the cached module.
  // Throws DeviceError with the compiler's log on failure.
  virtual ModuleId Load(const std::string& source, const std::string& name) = 0;
  // Runs a kernel of a loaded module and waits for it to finish. Throws DeviceError when the
  // launch fails (the driver's message).
  virtual void Launch(ModuleId module, const LaunchConfig& config) = 0;
  // Runs a kernel `warmup` times, then `repeats` times timed each (CUDA events on the GPU, the
  // wall clock on the host); returns the times in milliseconds.
  virtual std::vector<double> Time(ModuleId module, const LaunchConfig& config, int warmup,
                                   int repeats) = 0;
};

// Device memory of at least `bytes` (16 for none), freed when it goes out of scope.
class DeviceBuffer {
 public:
  DeviceBuffer(Device& device, size_t bytes)
      : device_(device), ptr_(device.Alloc(bytes < 16 ? 16 : bytes)) {}
  ~DeviceBuffer() {
    try {
      device_.Free(ptr_);
    } catch (const DeviceError&) {
      // A device that failed already reported why; a destructor must not throw.
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DevicePtr ptr() const { return ptr_; }

 private:
  Device& device_;
  DevicePtr ptr_;
};

// The first CUDA GPU of this machine. Throws DeviceError (unavailable) with "the CUDA backend
// needs an NVIDIA GPU and its driver (libcuda.so.1 was not found)" when there is no driver, and
// a like message when NVRTC is missing or no device is present.
std::unique_ptr<Device> OpenGpuDevice();

// A unit compiled with NVRTC as the GPU device compiles it for a part of compute capability
// `major`.`minor` (the same options; no GPU or driver needed): a CUBIN for sm_XY, or, where this
// NVRTC does not know the part, PTX for the newest virtual architecture it knows below it. Throws
// DeviceError (unavailable) when libnvrtc cannot be opened, and DeviceError with NVRTC's log when
// the unit does not compile (nvrtc.cpp).
struct NvrtcImage {
  std::string bytes;  // the CUBIN, or the PTX text with its NUL, as cuModuleLoadData takes it
  bool ptx = false;
  std::string arch;  // the --gpu-architecture: sm_90, or compute_90 for PTX
  std::string log;   // what NVRTC said (warnings), often nothing
};
NvrtcImage CompileWithNvrtc(const std::string& source, const std::string& name, int major,
                            int minor);

// The host, running kernels with `threads_per_block` fibers per block (blocks one after the
// other, every other one with its threads in reverse order: host_fibers.h). Needs a C++20 compiler:
// $CXX, else `c++`. Throws DeviceError when there is none. With `sm80`, units compile with
// PZ_HOST_SM80: the host carries out the tensor-core, ldmatrix and asynchronous-copy forms a GPU of
// sm_80 or later runs, lane by lane (prelude.h).
std::unique_ptr<Device> OpenHostDevice(unsigned threads_per_block = 4, bool sm80 = false);

}  // namespace pz::cuda
