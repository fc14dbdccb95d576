// The host device (device.h): a unit compiled by the system C++ compiler into a shared library,
// loaded with dlopen, its kernels run with one fiber per CUDA thread (host_fibers.h; the prelude's
// host shim gives each thread its threadIdx, blockIdx, the block's shared memory and its warp).
#include <dlfcn.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cuda/device.h"
#include "cuda/host_fibers.h"

namespace pz::cuda {

namespace {

// What a kernel function and the prelude's pz_host_run are in a loaded unit.
using KernelFn = void (*)(const unsigned long long*);
using RunFn = void (*)(KernelFn kernel, const unsigned long long* args, unsigned thread,
                       unsigned block, unsigned block_dim, unsigned grid_dim, char* shared,
                       void (*sync)(void*), void* sync_context, void* warp_context,
                       unsigned* warp_slots);

constexpr std::align_val_t kAllocAlignment{64};
// The most threads a CUDA block may have, enforced here too so that the host catches launches a
// GPU would refuse.
constexpr unsigned kMaxBlockThreads = 1024;
// Like an H100's opt-in maximum, so that kernels are planned as they would be for a GPU.
constexpr int64_t kHostSharedPerBlock = 227 * 1024;
// In a sanitizer build (PZ_SANITIZE) the units are compiled with the same sanitizers, so that a
// generated kernel's access outside its buffers (or outside the block's shared memory) stops the
// run with AddressSanitizer's report, as compute-sanitizer's memcheck would on a GPU, and
// undefined behaviour with UBSan's.
#ifdef PZ_HOST_UNIT_SANITIZERS
constexpr const char* kUnitSanitizers = " " PZ_HOST_UNIT_SANITIZERS;
#else
constexpr const char* kUnitSanitizers = "";
#endif
// Compiler output kept in a DeviceError.
constexpr int kMaxLogLines = 60;
// Each CUDA thread's stack (a GPU gives a thread far less; the generated code keeps little on
// it).
constexpr size_t kThreadStackBytes = 256 * 1024;

std::string CompilerCommand() {
  const char* cxx = std::getenv("CXX");
  return cxx != nullptr && *cxx != '\0' ? cxx : "c++";
}

// `text` as one word for /bin/sh.
std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

struct CommandResult {
  int status = 0;      // the exit status; 128 + the signal when one ended it
  std::string output;  // stdout and stderr together
};

CommandResult RunCommand(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    throw DeviceError(fmt::format("could not run `{}`: {}", command, std::strerror(errno)));
  }
  CommandResult result;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  if (status == -1) {
    result.status = -1;
  } else if (WIFEXITED(status)) {
    result.status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.status = 128 + WTERMSIG(status);
  }
  return result;
}

// The first `max_lines` lines of `text`, with a note of how many were left out.
std::string FirstLines(const std::string& text, int max_lines) {
  size_t end = 0;
  int lines = 0;
  while (end < text.size() && lines < max_lines) {
    size_t newline = text.find('\n', end);
    end = newline == std::string::npos ? text.size() : newline + 1;
    ++lines;
  }
  std::string head = text.substr(0, end);
  while (!head.empty() && head.back() == '\n') head.pop_back();
  if (end < text.size()) {
    head +=
        fmt::format("\n[... {} more lines]",
                    std::count(text.begin() + static_cast<std::ptrdiff_t>(end), text.end(), '\n') +
                        (text.back() == '\n' ? 0 : 1));
  }
  return head;
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// The unit's name as a file name, so that the compiler's messages point at `NAME.cpp:LINE`.
std::string FileStem(const std::string& name) {
  std::string stem;
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-' || c == '.';
    stem += plain ? c : '_';
  }
  if (stem.empty() || stem[0] == '.' || stem[0] == '-') stem = "unit" + stem;
  return stem;
}

// A private temporary directory, removed with everything in it when this goes.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = (tmp != nullptr && *tmp != '\0' ? std::string(tmp) : "/tmp");
    pattern += "/pz-cuda-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw DeviceError(fmt::format("could not create a temporary directory {}: {}", pattern,
                                    std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Compilers already found to run, so that each is checked once per process.
bool CompilerRuns(const std::string& cxx, std::string& failure) {
  static std::mutex mutex;
  static std::set<std::string> working;
  std::lock_guard<std::mutex> lock(mutex);
  if (working.count(cxx) != 0) return true;
  CommandResult result = RunCommand(cxx + " --version");
  if (result.status != 0) {
    failure = fmt::format("`{} --version` failed (exit status {}): {}", cxx, result.status,
                          FirstLines(result.output, 3));
    return false;
  }
  working.insert(cxx);
  return true;
}

class HostDevice final : public Device {
 public:
  HostDevice(std::string cxx, bool sm80) : cxx_(std::move(cxx)) {
    info_.name = sm80 ? "host CPU (generated CUDA run on threads, sm_80 forms)"
                      : "host CPU (generated CUDA run on threads)";
    info_.host_sm80 = sm80;
    info_.multiprocessors = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    info_.max_shared_per_block = kHostSharedPerBlock;
    info_.memory_bytes = 0;
    info_.host = true;
  }

  ~HostDevice() override {
    for (const Module& module : modules_) dlclose(module.library);
    for (const auto& [address, bytes] : allocations_) {
      ::operator delete(reinterpret_cast<void*>(address), kAllocAlignment);
    }
  }

  const DeviceInfo& info() const override { return info_; }

  DevicePtr Alloc(size_t bytes) override {
    void* memory = ::operator new(std::max<size_t>(bytes, 1), kAllocAlignment, std::nothrow);
    if (memory == nullptr) {
      throw DeviceError(fmt::format("could not allocate {} bytes of host memory", bytes));
    }
    allocations_.emplace(reinterpret_cast<uintptr_t>(memory), bytes);
    return reinterpret_cast<uintptr_t>(memory);
  }

  void Free(DevicePtr ptr) override {
    auto it = allocations_.find(static_cast<uintptr_t>(ptr));
    if (it == allocations_.end()) {
      throw DeviceError(fmt::format("Free of {:#x}, which this host device did not allocate", ptr));
    }
    ::operator delete(reinterpret_cast<void*>(it->first), kAllocAlignment);
    allocations_.erase(it);
  }

  void CopyToDevice(DevicePtr dst, const void* src, size_t bytes) override {
    if (bytes == 0) return;
    std::memcpy(Resolve(dst, bytes, "CopyToDevice"), src, bytes);
  }

  void CopyToHost(void* dst, DevicePtr src, size_t bytes) override {
    if (bytes == 0) return;
    std::memcpy(dst, Resolve(src, bytes, "CopyToHost"), bytes);
  }

  void Memset(DevicePtr dst, uint8_t value, size_t bytes) override {
    if (bytes == 0) return;
    std::memset(Resolve(dst, bytes, "Memset"), value, bytes);
  }

  ModuleId Load(const std::string& source, const std::string& name) override {
    if (auto it = by_source_.find(source); it != by_source_.end()) return it->second;
    TempDir dir;
    const std::string stem = FileStem(name);
    const std::string cpp = dir.path() + "/" + stem + ".cpp";
    const std::string so = dir.path() + "/" + stem + ".so";
    {
      std::ofstream out(cpp, std::ios::binary);
      out << source;
      if (!out.flush()) {
        throw DeviceError(fmt::format("could not write unit {} to {}", name, cpp));
      }
    }
    // $CXX goes in unquoted, as make would use it: it may be `ccache g++` or carry flags.
    const std::string command = fmt::format(
        "{} -std=c++20 -O1 -fPIC -shared -w -pthread{}{} -o {} {}", cxx_,
        info_.host_sm80 ? " -DPZ_HOST_SM80" : "", kUnitSanitizers, ShellQuote(so), ShellQuote(cpp));
    CommandResult result = RunCommand(command);
    if (result.status != 0) {
      // The temporary directory means nothing to the reader: `add_one.cpp:12:5: error: ...`.
      ReplaceAll(result.output, dir.path() + "/", "");
      throw DeviceError(
          fmt::format("the host C++ compiler could not compile unit {} (`{}` exited "
                      "with status {}):\n{}",
                      name, cxx_, result.status, FirstLines(result.output, kMaxLogLines)));
    }
    // The library's file can go once it is mapped (dlopen matches files by inode, and a mapped
    // file's inode stays in use, so a later unit cannot be mistaken for this one).
    void* library = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* error = dlerror();
      throw DeviceError(fmt::format("could not load unit {}: {}", name,
                                    error != nullptr ? error : "dlopen failed"));
    }
    modules_.push_back(Module{.library = library, .name = name});
    ModuleId id = static_cast<ModuleId>(modules_.size() - 1);
    by_source_.emplace(source, id);
    return id;
  }

  void Launch(ModuleId module, const LaunchConfig& config) override {
    RunGrid(Prepare(module, config), config);
  }

  std::vector<double> Time(ModuleId module, const LaunchConfig& config, int warmup,
                           int repeats) override {
    Entry entry = Prepare(module, config);
    for (int i = 0; i < warmup; ++i) RunGrid(entry, config);
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
      auto start = std::chrono::steady_clock::now();
      RunGrid(entry, config);
      auto stop = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    }
    return times;
  }

 private:
  struct Module {
    void* library = nullptr;
    std::string name;
  };
  struct Entry {
    KernelFn kernel = nullptr;
    RunFn run = nullptr;
    unsigned slot_words = 0;  // each lane's words in its warp's slots
  };

  // The host address of [ptr, ptr + bytes), which must lie inside one allocation: a bad copy
  // becomes an error here rather than a corrupted heap.
  void* Resolve(DevicePtr ptr, size_t bytes, const char* what) const {
    auto it = allocations_.upper_bound(static_cast<uintptr_t>(ptr));
    if (it != allocations_.begin()) {
      --it;
      uintptr_t offset = static_cast<uintptr_t>(ptr) - it->first;
      if (offset <= it->second && bytes <= it->second - offset) {
        return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
      }
    }
    throw DeviceError(
        fmt::format("{} of {} bytes at {:#x}: not inside memory this host device "
                    "allocated",
                    what, bytes, ptr));
  }

  Entry Prepare(ModuleId id, const LaunchConfig& config) const {
    if (id < 0 || static_cast<size_t>(id) >= modules_.size()) {
      throw DeviceError(
          fmt::format("kernel {}: no module {} on this host device", config.kernel, id));
    }
    const Module& module = modules_[static_cast<size_t>(id)];
    if (config.grid == 0 || config.block == 0) {
      throw DeviceError(fmt::format("kernel {}: a launch of {} blocks of {} threads runs nothing",
                                    config.kernel, config.grid, config.block));
    }
    if (config.block > kMaxBlockThreads) {
      throw DeviceError(fmt::format("kernel {}: a block of {} threads; CUDA allows at most {}",
                                    config.kernel, config.block, kMaxBlockThreads));
    }
    if (config.shared_bytes > static_cast<size_t>(info_.max_shared_per_block)) {
      throw DeviceError(fmt::format(
          "kernel {} asks for {} bytes of shared memory per block; at most {} are allowed",
          config.kernel, config.shared_bytes, info_.max_shared_per_block));
    }
    Entry entry;
    entry.kernel = reinterpret_cast<KernelFn>(dlsym(module.library, config.kernel.c_str()));
    if (entry.kernel == nullptr) {
      throw DeviceError(fmt::format("unit {} has no kernel {} (is it declared extern \"C\"?)",
                                    module.name, config.kernel));
    }
    entry.run = reinterpret_cast<RunFn>(dlsym(module.library, "pz_host_run"));
    if (entry.run == nullptr) {
      throw DeviceError(fmt::format(
          "unit {} has no pz_host_run (does it start with the CUDA prelude?)", module.name));
    }
    const auto* slot_words =
        static_cast<const unsigned*>(dlsym(module.library, "pz_host_slot_words"));
    if (slot_words == nullptr) {
      throw DeviceError(fmt::format(
          "unit {} has no pz_host_slot_words (does it start with the CUDA prelude?)", module.name));
    }
    entry.slot_words = *slot_words;
    return entry;
  }

  // Runs the grid's blocks one after the other, each on `config.block` fibers. Every other block
  // (and every other launch) runs its threads in reverse order, so that a race between two
  // threads of a block shows whichever way round it goes (host_fibers.h).
  void RunGrid(const Entry& entry, const LaunchConfig& config) {
    const unsigned launch = launches_++;
    // The block's dynamic shared memory, 16-byte aligned like the GPU's `pz_smem`, zeroed once
    // per launch and reused by every block.
    struct alignas(16) Chunk {
      char bytes[16];
    };
    std::vector<Chunk> shared_memory((std::max<size_t>(config.shared_bytes, 1) + 15) / 16);
    const unsigned threads = config.block;
    BlockFibers fibers(threads, kThreadStackBytes);
    std::vector<unsigned> warp_slots(static_cast<size_t>((threads + 31) / 32) * 32 *
                                     entry.slot_words);
    struct Block {
      const Entry* entry;
      const unsigned long long* args;
      unsigned index, threads, grid;
      char* shared;
      BlockFibers* fibers;
      unsigned* warp_slots;
    } block{.entry = &entry,
            .args = reinterpret_cast<const unsigned long long*>(config.args),
            .index = 0,
            .threads = threads,
            .grid = config.grid,
            .shared = reinterpret_cast<char*>(shared_memory.data()),
            .fibers = &fibers,
            .warp_slots = warp_slots.data()};
    auto body = [](void* context, unsigned thread) {
      const Block& b = *static_cast<const Block*>(context);
      b.entry->run(b.entry->kernel, b.args, thread, b.index, b.threads, b.grid, b.shared,
                   &BlockFibers::Sync, b.fibers->BlockSync(), b.fibers->WarpSync(thread),
                   b.warp_slots + static_cast<size_t>(thread / 32) * 32 * b.entry->slot_words);
    };
    for (; block.index < config.grid; ++block.index) {
      try {
        fibers.Run(threads, body, &block, (launch + block.index) % 2 == 1);
      } catch (const DeviceError& error) {
        throw DeviceError(
            fmt::format("kernel {}, block {}: {}", config.kernel, block.index, error.what()));
      }
    }
  }

  std::string cxx_;
  DeviceInfo info_;
  unsigned launches_ = 0;
  std::map<uintptr_t, size_t> allocations_;  // address -> bytes asked for
  std::vector<Module> modules_;
  std::unordered_map<std::string, ModuleId> by_source_;
};

}  // namespace

std::unique_ptr<Device> OpenHostDevice(unsigned threads_per_block, bool sm80) {
  // `threads_per_block` is what callers put in LaunchConfig::block; each launch uses its own.
  std::string cxx = CompilerCommand();
  std::string failure;
  if (!CompilerRuns(cxx, failure)) {
    throw DeviceError(
        fmt::format("the host CUDA device needs a C++20 compiler ($CXX, else c++): {}", failure),
        /*unavailable=*/true);
  }
  return std::make_unique<HostDevice>(std::move(cxx), sm80);
}

}  // namespace pz::cuda
