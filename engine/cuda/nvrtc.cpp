// NVRTC for the GPU device (nvrtc.h): libnvrtc opened with dlopen on first use, its few entry
// points declared here, and a unit compiled to a CUBIN for the part (or PTX where this NVRTC does
// not know it).
#include "cuda/nvrtc.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/dl_symbol.h"

namespace pz::cuda {

namespace {

// NVRTC's types and results, as its nvrtc.h declares them.
using nvrtcResult = int;
struct _nvrtcProgram;
using nvrtcProgram = _nvrtcProgram*;
constexpr nvrtcResult kNvrtcSuccess = 0;
constexpr nvrtcResult kNvrtcErrorInvalidOption = 5;  // NVRTC_ERROR_INVALID_OPTION
constexpr nvrtcResult kNvrtcErrorCompilation = 6;    // NVRTC_ERROR_COMPILATION

constexpr const char* kNoNvrtcMessage =
    "the CUDA backend needs NVRTC (libnvrtc.so was not found); install the CUDA toolkit's "
    "runtime compiler or set LD_LIBRARY_PATH";

// libnvrtc's entry points, opened once per process.
struct Nvrtc {
  void* library = nullptr;
  std::string path;  // what dlopen was given
  const char* (*nvrtcGetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*nvrtcVersion)(int*, int*) = nullptr;
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int,
                                    const char* const*, const char* const*) = nullptr;
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*) = nullptr;
  // NVRTC 11.1+: CUBINs for real architectures (sm_XX).
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*) = nullptr;
  // NVRTC 11.2+: the architectures it compiles for (as 10 * major + minor).
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*nvrtcGetSupportedArchs)(int*) = nullptr;
};

Nvrtc* OpenLibrary() {
  auto nvrtc = std::make_unique<Nvrtc>();
  // The loader's search path first (LD_LIBRARY_PATH, the ld cache), then the usual toolkit homes.
  std::vector<std::string> dirs = {""};
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    dirs.push_back(std::string(home) + "/lib64/");
  }
  dirs.push_back("/usr/local/cuda/lib64/");
  for (const std::string& dir : dirs) {
    for (const char* name :
         {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}) {
      std::string path = dir + name;
      nvrtc->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (nvrtc->library != nullptr) {
        nvrtc->path = path;
        break;
      }
    }
    if (nvrtc->library != nullptr) break;
  }
  if (nvrtc->library == nullptr) throw DeviceError(kNoNvrtcMessage, /*unavailable=*/true);
  void* lib = nvrtc->library;
  bool ok = BindSymbol(lib, nvrtc->nvrtcGetErrorString, {"nvrtcGetErrorString"}) &&
            BindSymbol(lib, nvrtc->nvrtcVersion, {"nvrtcVersion"}) &&
            BindSymbol(lib, nvrtc->nvrtcCreateProgram, {"nvrtcCreateProgram"}) &&
            BindSymbol(lib, nvrtc->nvrtcDestroyProgram, {"nvrtcDestroyProgram"}) &&
            BindSymbol(lib, nvrtc->nvrtcCompileProgram, {"nvrtcCompileProgram"}) &&
            BindSymbol(lib, nvrtc->nvrtcGetPTXSize, {"nvrtcGetPTXSize"}) &&
            BindSymbol(lib, nvrtc->nvrtcGetPTX, {"nvrtcGetPTX"}) &&
            BindSymbol(lib, nvrtc->nvrtcGetProgramLogSize, {"nvrtcGetProgramLogSize"}) &&
            BindSymbol(lib, nvrtc->nvrtcGetProgramLog, {"nvrtcGetProgramLog"});
  if (!ok) {
    throw DeviceError(fmt::format("the CUDA backend cannot use {}: it lacks an NVRTC function "
                                  "(is it NVRTC at all?)",
                                  nvrtc->path),
                      /*unavailable=*/true);
  }
  if (!BindSymbol(lib, nvrtc->nvrtcGetCUBINSize, {"nvrtcGetCUBINSize"}) ||
      !BindSymbol(lib, nvrtc->nvrtcGetCUBIN, {"nvrtcGetCUBIN"})) {
    nvrtc->nvrtcGetCUBINSize = nullptr;
    nvrtc->nvrtcGetCUBIN = nullptr;
  }
  if (!BindSymbol(lib, nvrtc->nvrtcGetNumSupportedArchs, {"nvrtcGetNumSupportedArchs"}) ||
      !BindSymbol(lib, nvrtc->nvrtcGetSupportedArchs, {"nvrtcGetSupportedArchs"})) {
    nvrtc->nvrtcGetNumSupportedArchs = nullptr;
    nvrtc->nvrtcGetSupportedArchs = nullptr;
  }
  return nvrtc.release();
}

Nvrtc& GetNvrtc() {
  static std::mutex mutex;
  static Nvrtc* nvrtc = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (nvrtc == nullptr) nvrtc = OpenLibrary();
  return *nvrtc;
}

// One NVRTC program, destroyed on every path.
class Program {
 public:
  Program(const Nvrtc& nvrtc, const std::string& source, const std::string& file) : nvrtc_(nvrtc) {
    nvrtcResult result =
        nvrtc.nvrtcCreateProgram(&program_, source.c_str(), file.c_str(), 0, nullptr, nullptr);
    if (result != kNvrtcSuccess) {
      throw DeviceError(
          fmt::format("NVRTC could not take unit {}: {}", file, nvrtc.nvrtcGetErrorString(result)));
    }
  }
  ~Program() {
    if (program_ != nullptr) nvrtc_.nvrtcDestroyProgram(&program_);
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcResult Compile(const std::vector<std::string>& options) {
    std::vector<const char*> argv;
    for (const std::string& option : options) argv.push_back(option.c_str());
    return nvrtc_.nvrtcCompileProgram(program_, static_cast<int>(argv.size()), argv.data());
  }
  std::string Log() const {
    size_t size = 0;
    if (nvrtc_.nvrtcGetProgramLogSize(program_, &size) != kNvrtcSuccess || size == 0) return "";
    std::string log(size, '\0');
    if (nvrtc_.nvrtcGetProgramLog(program_, log.data()) != kNvrtcSuccess) return "";
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
  }
  std::string Cubin() const {
    size_t size = 0;
    if (nvrtc_.nvrtcGetCUBINSize(program_, &size) != kNvrtcSuccess || size == 0) return "";
    std::string cubin(size, '\0');
    if (nvrtc_.nvrtcGetCUBIN(program_, cubin.data()) != kNvrtcSuccess) return "";
    return cubin;
  }
  // With its terminating NUL, as cuModuleLoadData wants PTX.
  std::string Ptx() const {
    size_t size = 0;
    if (nvrtc_.nvrtcGetPTXSize(program_, &size) != kNvrtcSuccess || size == 0) return "";
    std::string ptx(size, '\0');
    if (nvrtc_.nvrtcGetPTX(program_, ptx.data()) != kNvrtcSuccess) return "";
    if (ptx.back() != '\0') ptx.push_back('\0');
    return ptx;
  }

 private:
  const Nvrtc& nvrtc_;
  nvrtcProgram program_ = nullptr;
};

// The newest virtual architecture this NVRTC knows that is not newer than `arch` (its PTX runs
// on the GPU through the driver's JIT); `arch` itself when NVRTC cannot list them.
int PtxArch(const Nvrtc& nvrtc, int arch) {
  if (nvrtc.nvrtcGetNumSupportedArchs == nullptr) return arch;
  int count = 0;
  if (nvrtc.nvrtcGetNumSupportedArchs(&count) != kNvrtcSuccess || count <= 0) return arch;
  std::vector<int> archs(static_cast<size_t>(count));
  if (nvrtc.nvrtcGetSupportedArchs(archs.data()) != kNvrtcSuccess) return arch;
  int best = 0;
  for (int a : archs) {
    if (a <= arch && a > best) best = a;
  }
  return best > 0 ? best : arch;
}

NvrtcImage Compile(const Nvrtc& nvrtc, const std::string& source, const std::string& name,
                   int major, int minor) {
  const std::string file = name + ".cu";
  const int arch = 10 * major + minor;
  auto options = [](std::string architecture) {
    return std::vector<std::string>{"--gpu-architecture=" + architecture, "--std=c++17",
                                    "-lineinfo"};
  };
  auto fail = [&](const Program& program, nvrtcResult result, const std::string& architecture) {
    std::string log = program.Log();
    if (result == kNvrtcErrorCompilation) {
      return DeviceError(
          fmt::format("NVRTC could not compile unit {} for {}:\n{}", name, architecture, log));
    }
    return DeviceError(fmt::format("NVRTC failed on unit {} for {}: {}{}{}", name, architecture,
                                   nvrtc.nvrtcGetErrorString(result), log.empty() ? "" : "\n",
                                   log));
  };

  // A CUBIN for the GPU's own architecture: nothing left for the driver to compile, and no PTX
  // version the driver might be too old for.
  if (nvrtc.nvrtcGetCUBIN != nullptr) {
    const std::string architecture = fmt::format("sm_{}", arch);
    Program program(nvrtc, source, file);
    nvrtcResult result = program.Compile(options(architecture));
    if (result == kNvrtcSuccess) {
      std::string cubin = program.Cubin();
      if (!cubin.empty()) {
        return NvrtcImage{.bytes = std::move(cubin), .arch = architecture, .log = program.Log()};
      }
    } else if (result != kNvrtcErrorInvalidOption) {
      throw fail(program, result, architecture);
    }
    // An NVRTC older than the GPU rejects sm_XX (an invalid option): fall back to PTX.
  }
  const std::string architecture = fmt::format("compute_{}", PtxArch(nvrtc, arch));
  Program program(nvrtc, source, file);
  nvrtcResult result = program.Compile(options(architecture));
  if (result != kNvrtcSuccess) throw fail(program, result, architecture);
  std::string ptx = program.Ptx();
  if (ptx.empty()) {
    throw DeviceError(
        fmt::format("NVRTC compiled unit {} for {} but returned no PTX", name, architecture));
  }
  return NvrtcImage{
      .bytes = std::move(ptx), .ptx = true, .arch = architecture, .log = program.Log()};
}

}  // namespace

void OpenNvrtc() { GetNvrtc(); }

std::string NvrtcVersion() {
  int major = 0;
  int minor = 0;
  if (GetNvrtc().nvrtcVersion(&major, &minor) != kNvrtcSuccess) return "";
  return fmt::format("{}.{}", major, minor);
}

NvrtcImage CompileWithNvrtc(const std::string& source, const std::string& name, int major,
                            int minor) {
  return Compile(GetNvrtc(), source, name, major, minor);
}

}  // namespace pz::cuda
