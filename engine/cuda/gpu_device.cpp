// The GPU device (device.h): NVRTC compiles a unit (nvrtc.h), the CUDA driver API loads and
// launches it. Both libraries are opened with dlopen and their entry points declared by us (the
// driver's here), so the build needs neither the CUDA toolkit's headers nor its libraries, and a
// machine without them gets a clear DeviceError at OpenGpuDevice().
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cuda/device.h"
#include "cuda/dl_symbol.h"
#include "cuda/nvrtc.h"

namespace pz::cuda {

namespace {

// ---- The driver API, as cuda.h declares it (only what is used here) ----------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
using CUcontext = CUctx_st*;
struct CUmod_st;
using CUmodule = CUmod_st*;
struct CUfunc_st;
using CUfunction = CUfunc_st*;
struct CUevent_st;
using CUevent = CUevent_st*;
struct CUstream_st;
using CUstream = CUstream_st*;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorNoDevice = 100;  // CUDA_ERROR_NO_DEVICE

// CUdevice_attribute values (an enum in cuda.h; enums are passed as int).
constexpr int kAttrClockRate = 13;                     // CU_DEVICE_ATTRIBUTE_CLOCK_RATE, kHz
constexpr int kAttrMultiprocessorCount = 16;           // ..._MULTIPROCESSOR_COUNT
constexpr int kAttrMemoryClockRate = 36;               // ..._MEMORY_CLOCK_RATE, kHz
constexpr int kAttrGlobalMemoryBusWidth = 37;          // ..._GLOBAL_MEMORY_BUS_WIDTH, bits
constexpr int kAttrComputeCapabilityMajor = 75;        // ..._COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;        // ..._COMPUTE_CAPABILITY_MINOR
constexpr int kAttrMaxSharedMemoryPerBlockOptin = 97;  // ..._MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
// CUfunction_attribute: CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr unsigned kEventDefault = 0;  // CU_EVENT_DEFAULT
// Dynamic shared memory a kernel may use without opting in.
constexpr size_t kDefaultSharedLimit = 48 * 1024;

constexpr const char* kNoDriverMessage =
    "the CUDA backend needs an NVIDIA GPU and its driver (libcuda.so.1 was not found)";

// libcuda.so.1's entry points, the device and its primary context: one per process, never
// released (the context lives until the process ends, like the runtime API's).
struct Driver {
  void* library = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;  // optional

  int version = 0;  // cuDriverGetVersion: 1000 * major + 10 * minor
  CUdevice device = 0;
  CUcontext context = nullptr;
};

// "out of memory (CUDA_ERROR_OUT_OF_MEMORY)"
std::string DriverMessage(const Driver& driver, CUresult result) {
  const char* text = nullptr;
  const char* name = nullptr;
  if (driver.cuGetErrorString == nullptr ||
      driver.cuGetErrorString(result, &text) != kCudaSuccess) {
    text = nullptr;
  }
  if (driver.cuGetErrorName == nullptr || driver.cuGetErrorName(result, &name) != kCudaSuccess) {
    name = nullptr;
  }
  return fmt::format("{} ({})", text != nullptr ? text : "unknown CUDA error",
                     name != nullptr ? std::string(name) : fmt::format("CUresult {}", result));
}

void Check(const Driver& driver, CUresult result, const std::string& what) {
  if (result != kCudaSuccess) {
    throw DeviceError(fmt::format("{} failed: {}", what, DriverMessage(driver, result)));
  }
}

std::string VersionText(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

Driver* OpenDriver() {
  auto driver = std::make_unique<Driver>();
  driver->library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver->library == nullptr) throw DeviceError(kNoDriverMessage, /*unavailable=*/true);
  void* lib = driver->library;
  bool ok = BindSymbol(lib, driver->cuInit, {"cuInit"}) &&
            BindSymbol(lib, driver->cuDriverGetVersion, {"cuDriverGetVersion"}) &&
            BindSymbol(lib, driver->cuDeviceGetCount, {"cuDeviceGetCount"}) &&
            BindSymbol(lib, driver->cuDeviceGet, {"cuDeviceGet"}) &&
            BindSymbol(lib, driver->cuDeviceGetName, {"cuDeviceGetName"}) &&
            BindSymbol(lib, driver->cuDeviceGetAttribute, {"cuDeviceGetAttribute"}) &&
            BindSymbol(lib, driver->cuDeviceTotalMem, {"cuDeviceTotalMem_v2"}) &&
            BindSymbol(lib, driver->cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}) &&
            BindSymbol(lib, driver->cuCtxSetCurrent, {"cuCtxSetCurrent"}) &&
            BindSymbol(lib, driver->cuCtxSynchronize, {"cuCtxSynchronize"}) &&
            BindSymbol(lib, driver->cuMemAlloc, {"cuMemAlloc_v2"}) &&
            BindSymbol(lib, driver->cuMemFree, {"cuMemFree_v2"}) &&
            BindSymbol(lib, driver->cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}) &&
            BindSymbol(lib, driver->cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}) &&
            BindSymbol(lib, driver->cuMemsetD8, {"cuMemsetD8_v2"}) &&
            BindSymbol(lib, driver->cuModuleLoadData, {"cuModuleLoadData"}) &&
            BindSymbol(lib, driver->cuModuleUnload, {"cuModuleUnload"}) &&
            BindSymbol(lib, driver->cuModuleGetFunction, {"cuModuleGetFunction"}) &&
            BindSymbol(lib, driver->cuFuncSetAttribute, {"cuFuncSetAttribute"}) &&
            BindSymbol(lib, driver->cuLaunchKernel, {"cuLaunchKernel"}) &&
            BindSymbol(lib, driver->cuEventCreate, {"cuEventCreate"}) &&
            BindSymbol(lib, driver->cuEventRecord, {"cuEventRecord"}) &&
            BindSymbol(lib, driver->cuEventSynchronize, {"cuEventSynchronize"}) &&
            // cuda.h 12.8+ maps cuEventElapsedTime to _v2 (same signature); older drivers have
            // only the plain name.
            BindSymbol(lib, driver->cuEventElapsedTime,
                       {"cuEventElapsedTime_v2", "cuEventElapsedTime"}) &&
            BindSymbol(lib, driver->cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}) &&
            BindSymbol(lib, driver->cuGetErrorString, {"cuGetErrorString"});
  BindSymbol(lib, driver->cuGetErrorName, {"cuGetErrorName"});
  if (!ok) {
    throw DeviceError(
        "the CUDA backend needs a newer NVIDIA driver (libcuda.so.1 lacks a driver API function "
        "it uses)",
        /*unavailable=*/true);
  }

  CUresult init = driver->cuInit(0);
  if (init == kCudaErrorNoDevice) {
    throw DeviceError("the CUDA backend needs an NVIDIA GPU, and the driver found none",
                      /*unavailable=*/true);
  }
  if (init != kCudaSuccess) {
    // A driver that cannot start (a stub library, a driver older than the kernel module, ...)
    // leaves this machine without a usable GPU just as well.
    throw DeviceError(
        fmt::format("the CUDA driver could not start: {}", DriverMessage(*driver, init)),
        /*unavailable=*/true);
  }
  if (driver->cuDriverGetVersion(&driver->version) != kCudaSuccess) driver->version = 0;
  int count = 0;
  Check(*driver, driver->cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) {
    throw DeviceError("the CUDA backend needs an NVIDIA GPU, and the driver found none",
                      /*unavailable=*/true);
  }
  Check(*driver, driver->cuDeviceGet(&driver->device, 0), "cuDeviceGet");
  Check(*driver, driver->cuDevicePrimaryCtxRetain(&driver->context, driver->device),
        "retaining the GPU's primary context (cuDevicePrimaryCtxRetain)");
  return driver.release();
}

// The process's driver, opened on first use; a failed open is tried again on the next call.
Driver& GetDriver() {
  static std::mutex mutex;
  static Driver* driver = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (driver == nullptr) driver = OpenDriver();
  return *driver;
}

// An event destroyed on every path.
class Event {
 public:
  explicit Event(const Driver& driver) : driver_(driver) {
    Check(driver, driver.cuEventCreate(&event_, kEventDefault), "cuEventCreate");
  }
  ~Event() {
    if (event_ != nullptr) driver_.cuEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return event_; }

 private:
  const Driver& driver_;
  CUevent event_ = nullptr;
};

class GpuDevice final : public Device {
 public:
  explicit GpuDevice(Driver& driver) : driver_(driver) {
    MakeCurrent();
    const CUdevice device = driver.device;
    char name[256] = {};
    Check(driver, driver.cuDeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName");
    info_.name = name;
    info_.compute_major = Attribute(kAttrComputeCapabilityMajor, "compute capability");
    info_.compute_minor = Attribute(kAttrComputeCapabilityMinor, "compute capability");
    info_.multiprocessors = Attribute(kAttrMultiprocessorCount, "multiprocessor count");
    info_.max_shared_per_block =
        Attribute(kAttrMaxSharedMemoryPerBlockOptin, "opt-in shared memory per block");
    // Clocks and bus width only inform cost models: 0 (unknown) where a driver no longer
    // reports them.
    info_.clock_khz = OptionalAttribute(kAttrClockRate);
    info_.memory_clock_khz = OptionalAttribute(kAttrMemoryClockRate);
    info_.memory_bus_bits = OptionalAttribute(kAttrGlobalMemoryBusWidth);
    size_t memory = 0;
    Check(driver, driver.cuDeviceTotalMem(&memory, device), "cuDeviceTotalMem");
    info_.memory_bytes = static_cast<int64_t>(memory);
    info_.host = false;
  }

  ~GpuDevice() override {
    // Errors are ignored: after a kernel fault the context refuses everything, and there is
    // nothing better to do with what is left.
    if (driver_.cuCtxSetCurrent(driver_.context) != kCudaSuccess) return;
    for (DevicePtr ptr : allocations_) driver_.cuMemFree(ptr);
    for (Module& module : modules_) driver_.cuModuleUnload(module.handle);
  }

  const DeviceInfo& info() const override { return info_; }

  DevicePtr Alloc(size_t bytes) override {
    MakeCurrent();
    CUdeviceptr ptr = 0;
    // The driver refuses empty allocations; a 1-byte one keeps every pointer distinct.
    Check(driver_, driver_.cuMemAlloc(&ptr, bytes == 0 ? 1 : bytes),
          fmt::format("allocating {} bytes of GPU memory", bytes));
    allocations_.insert(ptr);
    return ptr;
  }

  void Free(DevicePtr ptr) override {
    if (allocations_.erase(ptr) == 0) {
      throw DeviceError(fmt::format("Free of {:#x}, which this GPU device did not allocate", ptr));
    }
    MakeCurrent();
    Check(driver_, driver_.cuMemFree(ptr), "cuMemFree");
  }

  void CopyToDevice(DevicePtr dst, const void* src, size_t bytes) override {
    if (bytes == 0) return;
    MakeCurrent();
    Check(driver_, driver_.cuMemcpyHtoD(dst, src, bytes),
          fmt::format("copying {} bytes to the GPU", bytes));
  }

  void CopyToHost(void* dst, DevicePtr src, size_t bytes) override {
    if (bytes == 0) return;
    MakeCurrent();
    Check(driver_, driver_.cuMemcpyDtoH(dst, src, bytes),
          fmt::format("copying {} bytes from the GPU", bytes));
  }

  void Memset(DevicePtr dst, uint8_t value, size_t bytes) override {
    if (bytes == 0) return;
    MakeCurrent();
    Check(driver_, driver_.cuMemsetD8(dst, value, bytes),
          fmt::format("setting {} bytes of GPU memory", bytes));
  }

  ModuleId Load(const std::string& source, const std::string& name) override {
    if (auto it = by_source_.find(source); it != by_source_.end()) return it->second;
    NvrtcImage image = CompileWithNvrtc(source, name, info_.compute_major, info_.compute_minor);
    MakeCurrent();
    CUmodule handle = nullptr;
    CUresult result = driver_.cuModuleLoadData(&handle, image.bytes.data());
    if (result != kCudaSuccess) {
      std::string versions;
      if (std::string nvrtc = NvrtcVersion(); !nvrtc.empty()) {
        versions = fmt::format(" (NVRTC {}, driver CUDA {})", nvrtc, VersionText(driver_.version));
      }
      throw DeviceError(fmt::format("the CUDA driver could not load unit {} ({} for {}): {}{}",
                                    name, image.ptx ? "PTX" : "CUBIN", image.arch,
                                    DriverMessage(driver_, result), versions));
    }
    modules_.push_back(Module{.handle = handle, .name = name});
    ModuleId id = static_cast<ModuleId>(modules_.size() - 1);
    by_source_.emplace(source, id);
    return id;
  }

  void Launch(ModuleId module, const LaunchConfig& config) override {
    MakeCurrent();
    Kernel& kernel = Prepare(module, config);
    Enqueue(kernel, config);
    Check(driver_, driver_.cuCtxSynchronize(), fmt::format("kernel {}", config.kernel));
  }

  std::vector<double> Time(ModuleId module, const LaunchConfig& config, int warmup,
                           int repeats) override {
    MakeCurrent();
    Kernel& kernel = Prepare(module, config);
    const std::string what = fmt::format("kernel {}", config.kernel);
    for (int i = 0; i < warmup; ++i) Enqueue(kernel, config);
    Check(driver_, driver_.cuCtxSynchronize(), what);
    Event start(driver_);
    Event stop(driver_);
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
      Check(driver_, driver_.cuEventRecord(start.get(), nullptr), "cuEventRecord");
      Enqueue(kernel, config);
      Check(driver_, driver_.cuEventRecord(stop.get(), nullptr), "cuEventRecord");
      Check(driver_, driver_.cuEventSynchronize(stop.get()), what);
      float ms = 0;
      Check(driver_, driver_.cuEventElapsedTime(&ms, start.get(), stop.get()),
            "cuEventElapsedTime");
      times.push_back(ms);
    }
    Check(driver_, driver_.cuCtxSynchronize(), what);
    return times;
  }

 private:
  struct Kernel {
    CUfunction function = nullptr;
    size_t shared_limit = kDefaultSharedLimit;  // dynamic shared memory it may use now
  };
  struct Module {
    CUmodule handle = nullptr;
    std::string name;
    std::unordered_map<std::string, Kernel> kernels;
  };

  // Every public call binds the context first: callers may come from any thread.
  void MakeCurrent() {
    Check(driver_, driver_.cuCtxSetCurrent(driver_.context), "cuCtxSetCurrent");
  }

  int Attribute(int attribute, const char* what) {
    int value = 0;
    Check(driver_, driver_.cuDeviceGetAttribute(&value, attribute, driver_.device),
          fmt::format("reading the GPU's {} (cuDeviceGetAttribute {})", what, attribute));
    return value;
  }
  int OptionalAttribute(int attribute) {
    int value = 0;
    if (driver_.cuDeviceGetAttribute(&value, attribute, driver_.device) != kCudaSuccess) return 0;
    return value;
  }

  // The kernel's function, checked against the launch and allowed its shared memory.
  Kernel& Prepare(ModuleId id, const LaunchConfig& config) {
    if (id < 0 || static_cast<size_t>(id) >= modules_.size()) {
      throw DeviceError(
          fmt::format("kernel {}: no module {} on this GPU device", config.kernel, id));
    }
    Module& module = modules_[static_cast<size_t>(id)];
    if (config.grid == 0 || config.block == 0) {
      throw DeviceError(fmt::format("kernel {}: a launch of {} blocks of {} threads runs nothing",
                                    config.kernel, config.grid, config.block));
    }
    if (config.shared_bytes > static_cast<size_t>(info_.max_shared_per_block)) {
      throw DeviceError(fmt::format(
          "kernel {} asks for {} bytes of shared memory per block; {} allows at most {}",
          config.kernel, config.shared_bytes, info_.name, info_.max_shared_per_block));
    }
    auto [it, inserted] = module.kernels.try_emplace(config.kernel);
    Kernel& kernel = it->second;
    if (inserted) {
      CUresult result =
          driver_.cuModuleGetFunction(&kernel.function, module.handle, config.kernel.c_str());
      if (result != kCudaSuccess) {
        module.kernels.erase(it);
        throw DeviceError(fmt::format("unit {} has no kernel {}: {}", module.name, config.kernel,
                                      DriverMessage(driver_, result)));
      }
    }
    // Above 48 KiB a kernel must opt in to its dynamic shared memory.
    if (config.shared_bytes > kernel.shared_limit) {
      Check(driver_,
            driver_.cuFuncSetAttribute(kernel.function, kFuncAttrMaxDynamicSharedSizeBytes,
                                       static_cast<int>(config.shared_bytes)),
            fmt::format("allowing kernel {} {} bytes of shared memory", config.kernel,
                        config.shared_bytes));
      kernel.shared_limit = config.shared_bytes;
    }
    return kernel;
  }

  void Enqueue(const Kernel& kernel, const LaunchConfig& config) {
    // The kernel's one parameter is `const unsigned long long* args`, a device address.
    CUdeviceptr args = config.args;
    void* params[] = {&args};
    Check(driver_,
          driver_.cuLaunchKernel(kernel.function, config.grid, 1, 1, config.block, 1, 1,
                                 static_cast<unsigned>(config.shared_bytes), nullptr, params,
                                 nullptr),
          fmt::format("launching kernel {} ({} blocks of {} threads, {} bytes of shared memory)",
                      config.kernel, config.grid, config.block, config.shared_bytes));
  }

  Driver& driver_;
  DeviceInfo info_;
  std::unordered_set<DevicePtr> allocations_;
  std::vector<Module> modules_;
  std::unordered_map<std::string, ModuleId> by_source_;
};

}  // namespace

std::unique_ptr<Device> OpenGpuDevice() {
  Driver& driver = GetDriver();
  OpenNvrtc();
  return std::make_unique<GpuDevice>(driver);
}

}  // namespace pz::cuda
