// The devices generated CUDA runs on (engine/cuda/device.h): the host device, which compiles a
// unit with the system C++ compiler and runs each CUDA thread on a fiber (host_fibers.h), and the
// GPU, which is only exercised where one is present (elsewhere its tests check the "unavailable"
// error).
#include "cuda/device.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "cuda/prelude.h"

namespace pz::cuda {
namespace {

constexpr const char* kAddOne = R"(
extern "C" __global__ void add_one(const unsigned long long* args) {
  float* x = (float*)args[0];
  long long n = (long long)args[1];
  PZ_SHARED_DECL
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    x[i] += 1.0f;
  }
}
)";

// Every thread puts (thread + 1) * (block + 1) into shared memory; after the barrier thread 0
// sums them. Later threads dawdle first, so a barrier that does not wait shows as a short sum.
constexpr const char* kBlockSum = R"(
extern "C" __global__ void block_sum(const unsigned long long* args) {
  int* out = (int*)args[0];
  PZ_SHARED_DECL
  int* slots = (int*)pz_smem;
  for (volatile int k = 0; k < 20000 * (int)threadIdx.x; k = k + 1) {
  }
  slots[threadIdx.x] = (int)((threadIdx.x + 1) * (blockIdx.x + 1));
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) sum += slots[t];
    out[blockIdx.x] = sum;
  }
}
)";

// Each round, thread t takes the value of thread t + 1 (mod the block) through shared memory:
// after `rounds` rounds, out[b * n + t] = 1000 b + (t + rounds) % n. A barrier that lets one
// thread through early shows as a value from the wrong round.
constexpr const char* kRotate = R"(
extern "C" __global__ void rotate(const unsigned long long* args) {
  int* out = (int*)args[0];
  int rounds = (int)args[1];
  PZ_SHARED_DECL
  int* slots = (int*)pz_smem;
  int mine = 1000 * (int)blockIdx.x + (int)threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    slots[threadIdx.x] = mine;
    __syncthreads();
    mine = slots[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = mine;
}
)";

// Threads 4 and on return at once; the first four go on through two barriers. On a GPU, an
// exited thread no longer holds a barrier up.
constexpr const char* kEarlyReturn = R"(
extern "C" __global__ void early_return(const unsigned long long* args) {
  int* out = (int*)args[0];
  PZ_SHARED_DECL
  int* slots = (int*)pz_smem;
  if (threadIdx.x >= 4) return;
  slots[threadIdx.x] = (int)threadIdx.x + 1;
  __syncthreads();
  __syncthreads();
  if (threadIdx.x == 0) out[0] = slots[0] + slots[1] + slots[2] + slots[3];
}
)";

// A race: each thread writes its slot and reads the next thread's with no barrier between.
constexpr const char* kRace = R"(
extern "C" __global__ void race(const unsigned long long* args) {
  int* out = (int*)args[0];
  PZ_SHARED_DECL
  int* slots = (int*)pz_smem;
  slots[threadIdx.x] = (int)blockIdx.x + 1;
  out[blockIdx.x * blockDim.x + threadIdx.x] = slots[(threadIdx.x + 1) % blockDim.x];
}
)";

// Thread 0 waits for its warp, the others for the block: neither barrier can complete.
constexpr const char* kMismatchedBarriers = R"(
extern "C" __global__ void mismatched(const unsigned long long* args) {
  if (threadIdx.x == 0) {
    pz_host_warp_sync();
  } else {
    __syncthreads();
  }
}
)";

std::string Unit(const std::string& kernels) { return std::string(Prelude()) + kernels; }

// The kernel's argument array in device memory.
DevicePtr Args(Device& device, const std::vector<uint64_t>& args) {
  DevicePtr ptr = device.Alloc(args.size() * sizeof(uint64_t));
  device.CopyToDevice(ptr, args.data(), args.size() * sizeof(uint64_t));
  return ptr;
}

// add_one over 1000 floats on 3 blocks of 4 threads (each thread strides over the grid).
void CheckAddOne(Device& device) {
  constexpr int64_t n = 1000;
  std::vector<float> host(n);
  std::iota(host.begin(), host.end(), 0.0f);
  DevicePtr x = device.Alloc(n * sizeof(float));
  device.CopyToDevice(x, host.data(), n * sizeof(float));
  DevicePtr args = Args(device, {x, static_cast<uint64_t>(n)});
  ModuleId module = device.Load(Unit(kAddOne), "add_one");
  device.Launch(module, {.kernel = "add_one", .grid = 3, .block = 4, .args = args});
  std::vector<float> result(n);
  device.CopyToHost(result.data(), x, n * sizeof(float));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(result[i], static_cast<float>(i) + 1.0f) << i;
  device.Free(args);
  device.Free(x);
}

TEST(HostDevice, RunsAKernelOnThreads) {
  std::unique_ptr<Device> device = OpenHostDevice();
  EXPECT_TRUE(device->info().host);
  EXPECT_GE(device->info().multiprocessors, 1);
  EXPECT_EQ(device->info().max_shared_per_block, 227 * 1024);
  CheckAddOne(*device);
}

TEST(HostDevice, SyncthreadsWaitsForTheWholeBlock) {
  std::unique_ptr<Device> device = OpenHostDevice();
  constexpr unsigned kBlocks = 5;
  constexpr unsigned kThreads = 8;
  DevicePtr out = device->Alloc(kBlocks * sizeof(int));
  device->Memset(out, 0xff, kBlocks * sizeof(int));
  DevicePtr args = Args(*device, {out});
  ModuleId module = device->Load(Unit(kBlockSum), "block_sum");
  device->Launch(module, {.kernel = "block_sum",
                          .grid = kBlocks,
                          .block = kThreads,
                          .shared_bytes = kThreads * sizeof(int),
                          .args = args});
  std::vector<int> sums(kBlocks);
  device->CopyToHost(sums.data(), out, kBlocks * sizeof(int));
  for (unsigned b = 0; b < kBlocks; ++b) {
    EXPECT_EQ(sums[b], static_cast<int>((b + 1) * kThreads * (kThreads + 1) / 2)) << "block " << b;
  }
}

TEST(HostDevice, BarriersHoldForTheLargestBlocksRoundAfterRound) {
  std::unique_ptr<Device> device = OpenHostDevice();
  constexpr unsigned kBlocks = 2;
  constexpr unsigned kThreads = 1024;
  constexpr int kRounds = 3;
  DevicePtr out = device->Alloc(kBlocks * kThreads * sizeof(int));
  DevicePtr args = Args(*device, {out, kRounds});
  ModuleId module = device->Load(Unit(kRotate), "rotate");
  device->Launch(module, {.kernel = "rotate",
                          .grid = kBlocks,
                          .block = kThreads,
                          .shared_bytes = kThreads * sizeof(int),
                          .args = args});
  std::vector<int> values(kBlocks * kThreads);
  device->CopyToHost(values.data(), out, values.size() * sizeof(int));
  for (unsigned b = 0; b < kBlocks; ++b) {
    for (unsigned t = 0; t < kThreads; ++t) {
      ASSERT_EQ(values[b * kThreads + t], static_cast<int>(1000 * b + (t + kRounds) % kThreads))
          << "block " << b << ", thread " << t;
    }
  }
}

TEST(HostDevice, ThreadsThatReturnNoLongerHoldUpTheBarrier) {
  std::unique_ptr<Device> device = OpenHostDevice();
  DevicePtr out = device->Alloc(sizeof(int));
  device->Memset(out, 0, sizeof(int));
  DevicePtr args = Args(*device, {out});
  ModuleId module = device->Load(Unit(kEarlyReturn), "early_return");
  device->Launch(module, {.kernel = "early_return",
                          .grid = 1,
                          .block = 40,
                          .shared_bytes = 4 * sizeof(int),
                          .args = args});
  int sum = 0;
  device->CopyToHost(&sum, out, sizeof(int));
  EXPECT_EQ(sum, 1 + 2 + 3 + 4);
}

TEST(HostDevice, BarriersThatCanNeverCompleteAreAnErrorNotAHang) {
  std::unique_ptr<Device> device = OpenHostDevice();
  DevicePtr args = Args(*device, {0});
  ModuleId module = device->Load(Unit(kMismatchedBarriers), "mismatched");
  try {
    device->Launch(module, {.kernel = "mismatched", .grid = 2, .block = 32, .args = args});
    FAIL() << "the launch returned";
  } catch (const DeviceError& error) {
    EXPECT_STREQ(error.what(),
                 "kernel mismatched, block 0: the block's threads wait at barriers that can never "
                 "complete (thread 0 at its warp's barrier, thread 1 at __syncthreads(), thread "
                 "2 at __syncthreads(), thread 3 at __syncthreads(), ...): a GPU would hang here");
  }
  // The device goes on working after it.
  CheckAddOne(*device);
}

TEST(HostDevice, RunsEveryOtherBlockInReverseSoThatARaceShowsEitherWay) {
  std::unique_ptr<Device> device = OpenHostDevice();
  constexpr unsigned kThreads = 8;
  DevicePtr out = device->Alloc(2 * kThreads * sizeof(int));
  DevicePtr args = Args(*device, {out});
  ModuleId module = device->Load(Unit(kRace), "race");
  device->Launch(module, {.kernel = "race",
                          .grid = 2,
                          .block = kThreads,
                          .shared_bytes = kThreads * sizeof(int),
                          .args = args});
  std::vector<int> seen(2 * kThreads);
  device->CopyToHost(seen.data(), out, seen.size() * sizeof(int));
  // Block 0 runs thread 0 first: each thread reads its neighbour's slot before the neighbour
  // writes it (still zero). Block 1 runs thread 7 first: each reads it already written.
  for (unsigned t = 0; t + 1 < kThreads; ++t) {
    EXPECT_EQ(seen[t], 0) << "block 0, thread " << t;
    EXPECT_EQ(seen[kThreads + t], 2) << "block 1, thread " << t;
  }
}

#if defined(__SANITIZE_ADDRESS__)
#define PZ_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PZ_TEST_ASAN 1
#endif
#endif
#ifdef PZ_TEST_ASAN
// In the sanitizer build the host device builds units with the same sanitizers: a kernel that
// steps past its buffer or past the block's shared memory stops with ASan's report (memcheck's
// job on a GPU).
constexpr const char* kPastTheEnd = R"(
extern "C" __global__ void past_the_end(const unsigned long long* args) {
  float* x = (float*)args[0];
  long long n = (long long)args[1];
  int shared_too = (int)args[2];
  PZ_SHARED_DECL
  if (shared_too) {
    ((float*)pz_smem)[n] = 1.0f;
  } else {
    x[n] = 1.0f;
  }
}
)";

void LaunchPastTheEnd(bool shared_too) {
  std::unique_ptr<Device> device = OpenHostDevice();
  DevicePtr x = device->Alloc(4 * sizeof(float));
  DevicePtr args = Args(*device, {x, 4, shared_too ? 1u : 0u});
  ModuleId module = device->Load(Unit(kPastTheEnd), "past_the_end");
  device->Launch(module, {.kernel = "past_the_end",
                          .grid = 1,
                          .block = 1,
                          .shared_bytes = 4 * sizeof(float),
                          .args = args});
}

TEST(HostDeviceDeathTest, UnderAddressSanitizerAKernelWritingPastItsBufferStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(LaunchPastTheEnd(false), "heap-buffer-overflow");
}

TEST(HostDeviceDeathTest, UnderAddressSanitizerAKernelWritingPastSharedMemoryStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(LaunchPastTheEnd(true), "heap-buffer-overflow");
}

// And with UBSan's checks: a signed overflow stops the kernel too.
constexpr const char* kOverflow = R"(
extern "C" __global__ void overflow(const unsigned long long* args) {
  int* out = (int*)args[0];
  int big = (int)args[1];
  PZ_SHARED_DECL
  out[0] = big + big;
}
)";

void LaunchOverflow() {
  std::unique_ptr<Device> device = OpenHostDevice();
  DevicePtr out = device->Alloc(sizeof(int));
  DevicePtr args = Args(*device, {out, 0x7fffffff});
  ModuleId module = device->Load(Unit(kOverflow), "overflow");
  device->Launch(module, {.kernel = "overflow", .grid = 1, .block = 1, .args = args});
}

TEST(HostDeviceDeathTest, UnderUndefinedBehaviorSanitizerASignedOverflowStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(LaunchOverflow(), "signed integer overflow");
}
#endif

TEST(HostDevice, CompileErrorCarriesTheDiagnostic) {
  std::unique_ptr<Device> device = OpenHostDevice();
  std::string source = Unit(R"(
extern "C" __global__ void broken(const unsigned long long* args) {
  int x = no_such_variable_here;
}
)");
  try {
    device->Load(source, "broken_unit");
    FAIL() << "a unit that does not compile loaded";
  } catch (const DeviceError& error) {
    std::string message = error.what();
    EXPECT_FALSE(error.unavailable());
    EXPECT_NE(message.find("broken_unit"), std::string::npos) << message;
    EXPECT_NE(message.find("no_such_variable_here"), std::string::npos) << message;
    // The compiler's locations name the unit, not a temporary directory.
    EXPECT_EQ(message.find("pz-cuda-"), std::string::npos) << message;
  }
}

TEST(HostDevice, LoadingTheSameSourceTwiceReturnsTheSameModule) {
  std::unique_ptr<Device> device = OpenHostDevice();
  ModuleId first = device->Load(Unit(kAddOne), "add_one");
  EXPECT_EQ(device->Load(Unit(kAddOne), "add_one_again"), first);
  EXPECT_NE(device->Load(Unit(kBlockSum), "block_sum"), first);
}

TEST(HostDevice, TimeReturnsOneTimePerRepeat) {
  std::unique_ptr<Device> device = OpenHostDevice();
  DevicePtr x = device->Alloc(64 * sizeof(float));
  device->Memset(x, 0, 64 * sizeof(float));
  DevicePtr args = Args(*device, {x, 64});
  ModuleId module = device->Load(Unit(kAddOne), "add_one");
  std::vector<double> times =
      device->Time(module, {.kernel = "add_one", .grid = 2, .block = 4, .args = args}, 1, 3);
  ASSERT_EQ(times.size(), 3u);
  for (double t : times) EXPECT_GT(t, 0.0);
  // One warmup and three timed launches each added one.
  std::vector<float> result(64);
  device->CopyToHost(result.data(), x, 64 * sizeof(float));
  for (float v : result) EXPECT_EQ(v, 4.0f);
}

TEST(HostDevice, RejectsBadPointersAndMissingKernels) {
  std::unique_ptr<Device> device = OpenHostDevice();
  DevicePtr x = device->Alloc(16);
  float value = 0;
  EXPECT_THROW(device->CopyToHost(&value, x + 16, sizeof(value)), DeviceError);
  EXPECT_THROW(device->Free(x + 4), DeviceError);
  ModuleId module = device->Load(Unit(kAddOne), "add_one");
  EXPECT_THROW(device->Launch(module, {.kernel = "no_such_kernel", .args = x}), DeviceError);
  EXPECT_THROW(device->Launch(module, {.kernel = "add_one", .block = 2048, .args = x}),
               DeviceError);
  device->Free(x);
  EXPECT_THROW(device->Free(x), DeviceError);
}

TEST(GpuDevice, RunsAKernelWhenAGpuIsPresent) {
  std::unique_ptr<Device> device;
  try {
    device = OpenGpuDevice();
  } catch (const DeviceError& error) {
    if (error.unavailable()) GTEST_SKIP() << error.what();
    throw;
  }
  EXPECT_FALSE(device->info().host);
  EXPECT_GT(device->info().compute_major, 0);
  EXPECT_GT(device->info().memory_bytes, 0);
  CheckAddOne(*device);
}

TEST(GpuDevice, ReportsAMissingDriver) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
    GTEST_SKIP() << "libcuda.so.1 is present here";
  }
  try {
    OpenGpuDevice();
    FAIL() << "OpenGpuDevice succeeded without libcuda.so.1";
  } catch (const DeviceError& error) {
    EXPECT_TRUE(error.unavailable());
    EXPECT_STREQ(error.what(),
                 "the CUDA backend needs an NVIDIA GPU and its driver (libcuda.so.1 was not "
                 "found)");
  }
}

}  // namespace
}  // namespace pz::cuda
