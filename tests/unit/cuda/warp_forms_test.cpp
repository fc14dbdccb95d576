// The forms of sm_80 GPUs the generated CUDA uses (prelude.h's PZ_SM80): tensor-core products,
// ldmatrix and asynchronous copies into shared memory. Each kernel here runs on the host device
// with PZ_HOST_SM80 (which carries them out lane by lane) and, where one is present, on a GPU, and
// its result is checked against what PTX defines for the instruction. The fragment layouts the
// kernels write by hand are the ones the emitter writes (emit_dot.cpp), so a host that agrees
// with these tests runs the emitter's tensor-core forms as a GPU does. The reductions across a
// warp's lanes (pz_group_reduce, which every generation has) are checked the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "array/dtype.h"
#include "cuda/device.h"
#include "cuda/prelude.h"

namespace pz::cuda {
namespace {

// One m16 n8 k16 tile: a (16 x 16, row-major) and b (16 x 8, k by n, row-major) of 16-bit floats
// (args[3]: 1 for bfloat16, else float16), d (16 x 8 float32) += a b. Lane (g, t) loads the
// fragments the instruction defines: a's rows g and g + 8 at columns 2 t, 2 t + 1 and those
// + 8; b's column g at rows 2 t, 2 t + 1 and those + 8; d's rows g and g + 8, columns 2 t and
// 2 t + 1.
constexpr const char* kMmaTile = R"(
extern "C" __global__ void mma_tile(const unsigned long long* args) {
#if PZ_SM80
  const unsigned short* a = (const unsigned short*)args[0];
  const unsigned short* b = (const unsigned short*)args[1];
  float* d = (float*)args[2];
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  unsigned af[4], bf[2];
  for (int q = 0; q < 4; ++q) {
    const int row = g + (q & 1) * 8, col = 2 * t + (q >> 1) * 8;
    af[q] = pz_pack16(a[row * 16 + col], a[row * 16 + col + 1]);
  }
  bf[0] = pz_pack16(b[(2 * t) * 8 + g], b[(2 * t + 1) * 8 + g]);
  bf[1] = pz_pack16(b[(2 * t + 8) * 8 + g], b[(2 * t + 9) * 8 + g]);
  float d0 = d[g * 8 + 2 * t], d1 = d[g * 8 + 2 * t + 1];
  float d2 = d[(g + 8) * 8 + 2 * t], d3 = d[(g + 8) * 8 + 2 * t + 1];
  if (args[3] == 1) {
    pz_mma_bf16(d0, d1, d2, d3, af[0], af[1], af[2], af[3], bf[0], bf[1]);
  } else {
    pz_mma_f16(d0, d1, d2, d3, af[0], af[1], af[2], af[3], bf[0], bf[1]);
  }
  d[g * 8 + 2 * t] = d0;
  d[g * 8 + 2 * t + 1] = d1;
  d[(g + 8) * 8 + 2 * t] = d2;
  d[(g + 8) * 8 + 2 * t + 1] = d3;
#else
  PZ_TRAP();
#endif
}
)";

// A 16 x 16 matrix of 16-bit elements copied into shared memory, then read by ldmatrix as four
// 8 x 8 matrices (j = 0..3: rows 8 (j & 1), columns 8 (j >> 1)), lanes 8 j to 8 j + 7 giving
// matrix j's rows. Lane l writes its four registers to out[4 l + j], and those of the transposing
// form to out[128 + 4 l + j].
constexpr const char* kLdmatrix = R"(
extern "C" __global__ void load_matrices(const unsigned long long* args) {
  PZ_SHARED_DECL
#if PZ_SM80
  const unsigned short* m = (const unsigned short*)args[0];
  unsigned* out = (unsigned*)args[1];
  unsigned short* tile = (unsigned short*)pz_smem;
  const int lane = threadIdx.x & 31;
  for (int i = lane; i < 256; i += 32) tile[i] = m[i];
  __syncthreads();
  const int j = lane >> 3;
  const unsigned short* row = tile + ((lane & 7) + (j & 1) * 8) * 16 + (j >> 1) * 8;
  unsigned r[4];
  pz_ldmatrix4(r[0], r[1], r[2], r[3], row);
  for (int q = 0; q < 4; ++q) out[4 * lane + q] = r[q];
  pz_ldmatrix4_trans(r[0], r[1], r[2], r[3], row);
  for (int q = 0; q < 4; ++q) out[128 + 4 * lane + q] = r[q];
#else
  PZ_TRAP();
#endif
}
)";

// Thread t fills its 16 bytes of shared memory with 0xff, copies 16 bytes of `src` over them
// asynchronously (one committed group), reads them (out[2 t]), commits a second, empty group,
// waits for all but the newest group and reads them again (out[2 t + 1]).
constexpr const char* kAsyncCopy = R"(
extern "C" __global__ void async_copy(const unsigned long long* args) {
  PZ_SHARED_DECL
#if PZ_SM80
  const unsigned* src = (const unsigned*)args[0];
  unsigned* out = (unsigned*)args[1];
  unsigned* mine = (unsigned*)pz_smem + 4 * threadIdx.x;
  for (int i = 0; i < 4; ++i) mine[i] = 0xffffffffu;
  pz_copy16_async(mine, src + 4 * threadIdx.x);
  pz_copies_commit();
  out[2 * threadIdx.x] = ((volatile unsigned*)mine)[1];
  pz_copies_commit();
  pz_copies_wait_all_but_one();
  out[2 * threadIdx.x + 1] = mine[1];
#else
  PZ_TRAP();
#endif
}
)";

// pz_group_reduce with a merge that is neither commutative nor associative (2 a + b, exact on
// small integers), so that the result shows which partials were merged in which order: thread t
// writes the result its group of args[2] lanes returns to it.
constexpr const char* kGroupReduce = R"(
extern "C" __global__ void group_reduce(const unsigned long long* args) {
  const float* in = (const float*)args[0];
  float* out = (float*)args[1];
  const unsigned width = (unsigned)args[2];
  out[threadIdx.x] =
      pz_group_reduce(in[threadIdx.x], width, [](float a, float b) { return 2.0f * a + b; });
}
)";

// The argmax partials of a warp's lanes (one element each, at the lane's index; -1 for a lane
// with none) merged by pz_arg_merge; thread t writes the index its warp finds.
constexpr const char* kGroupArgmax = R"(
extern "C" __global__ void group_argmax(const unsigned long long* args) {
  const float* in = (const float*)args[0];
  long long* out = (long long*)args[1];
  const float x = in[threadIdx.x];
  pz_arg<float> a{x, (int)isnan(x), x == -1.0f ? -1 : (long long)(threadIdx.x & 31)};
  a = pz_group_reduce(a, 32, [](pz_arg<float> p, pz_arg<float> q) {
    return pz_arg_merge(p, q, true);
  });
  out[threadIdx.x] = a.at;
}
)";

std::string Unit(const std::string& kernels) { return std::string(Prelude()) + kernels; }

class Devices : public ::testing::TestWithParam<bool> {
 protected:
  // The host device running the sm_80 forms, or a GPU; null (skip_ says why) where there is no
  // GPU of sm_80 or later.
  std::unique_ptr<Device> Open() {
    if (!GetParam()) {
      std::unique_ptr<Device> device = OpenHostDevice(32, /*sm80=*/true);
      EXPECT_TRUE(device->info().host_sm80);
      return device;
    }
    try {
      std::unique_ptr<Device> device = OpenGpuDevice();
      if (device->info().compute_major >= 8) return device;
      skip_ = device->info().name + " predates sm_80";
    } catch (const DeviceError& error) {
      if (!error.unavailable()) throw;
      skip_ = error.what();
    }
    return nullptr;
  }
  bool host() const { return !GetParam(); }
  std::string skip_;
};

template <typename T>
DevicePtr Upload(Device& device, const std::vector<T>& values) {
  DevicePtr ptr = device.Alloc(values.size() * sizeof(T));
  device.CopyToDevice(ptr, values.data(), values.size() * sizeof(T));
  return ptr;
}

template <typename T>
std::vector<T> Download(Device& device, DevicePtr ptr, size_t count) {
  std::vector<T> values(count);
  device.CopyToHost(values.data(), ptr, count * sizeof(T));
  return values;
}

TEST_P(Devices, MmaAddsTheTileProductToTheAccumulators) {
  std::unique_ptr<Device> device = Open();
  if (!device) GTEST_SKIP() << skip_;
  ModuleId module = device->Load(Unit(kMmaTile), "mma_tile");
  for (bool bf16 : {true, false}) {
    // Small integers, so that every product and sum is exact and the order of the sums is moot.
    std::vector<int> a(16 * 16), b(16 * 8);
    std::vector<float> d(16 * 8);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>((i * 7 + 3) % 11) - 5;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>((i * 5 + 1) % 9) - 4;
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<float>(i % 13) * 0.5f;
    std::vector<uint16_t> a_bits, b_bits;
    auto bits = [&](int v) {
      float f = static_cast<float>(v);
      return bf16 ? array::FloatToBFloat16Bits(f) : array::FloatToHalfBits(f);
    };
    for (int v : a) a_bits.push_back(bits(v));
    for (int v : b) b_bits.push_back(bits(v));
    DevicePtr pa = Upload(*device, a_bits), pb = Upload(*device, b_bits), pd = Upload(*device, d);
    DevicePtr args = Upload<uint64_t>(*device, {pa, pb, pd, bf16 ? 1u : 0u});
    device->Launch(module, {.kernel = "mma_tile", .grid = 1, .block = 32, .args = args});
    std::vector<float> result = Download<float>(*device, pd, d.size());
    for (int row = 0; row < 16; ++row) {
      for (int col = 0; col < 8; ++col) {
        float expected = d[static_cast<size_t>(row * 8 + col)];
        for (int k = 0; k < 16; ++k) {
          expected += static_cast<float>(a[static_cast<size_t>(row * 16 + k)] *
                                         b[static_cast<size_t>(k * 8 + col)]);
        }
        EXPECT_EQ(result[static_cast<size_t>(row * 8 + col)], expected)
            << (bf16 ? "bf16" : "f16") << " row " << row << " column " << col;
      }
    }
    for (DevicePtr p : {pa, pb, pd, args}) device->Free(p);
  }
}

TEST_P(Devices, LdmatrixHandsEachLaneItsFragmentOfFourMatrices) {
  std::unique_ptr<Device> device = Open();
  if (!device) GTEST_SKIP() << skip_;
  std::vector<uint16_t> m(256);
  for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<uint16_t>(1000 + i);
  DevicePtr pm = Upload(*device, m), out = device->Alloc(256 * sizeof(uint32_t));
  DevicePtr args = Upload<uint64_t>(*device, {pm, out});
  ModuleId module = device->Load(Unit(kLdmatrix), "load_matrices");
  device->Launch(
      module,
      {.kernel = "load_matrices", .grid = 1, .block = 32, .shared_bytes = 512, .args = args});
  std::vector<uint32_t> result = Download<uint32_t>(*device, out, 256);
  // Element (r, c) of matrix j.
  auto at = [&](int j, int r, int c) {
    return m[static_cast<size_t>((r + (j & 1) * 8) * 16 + (j >> 1) * 8 + c)];
  };
  for (int lane = 0; lane < 32; ++lane) {
    const int r = lane / 4, c = 2 * (lane % 4);
    for (int j = 0; j < 4; ++j) {
      // Lane l: row l / 4, columns 2 (l % 4) and the next; transposed, that of the transpose.
      uint32_t plain = at(j, r, c) | (static_cast<uint32_t>(at(j, r, c + 1)) << 16);
      uint32_t trans = at(j, c, r) | (static_cast<uint32_t>(at(j, c + 1, r)) << 16);
      EXPECT_EQ(result[static_cast<size_t>(4 * lane + j)], plain) << "lane " << lane << " " << j;
      EXPECT_EQ(result[static_cast<size_t>(128 + 4 * lane + j)], trans)
          << "lane " << lane << " matrix " << j << " transposed";
    }
  }
  for (DevicePtr p : {pm, out, args}) device->Free(p);
}

TEST_P(Devices, AsynchronousCopiesLandByTheWaitForTheirGroup) {
  std::unique_ptr<Device> device = Open();
  if (!device) GTEST_SKIP() << skip_;
  std::vector<uint32_t> src(32 * 4);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint32_t>(i * 3 + 1);
  DevicePtr ps = Upload(*device, src), out = device->Alloc(64 * sizeof(uint32_t));
  DevicePtr args = Upload<uint64_t>(*device, {ps, out});
  ModuleId module = device->Load(Unit(kAsyncCopy), "async_copy");
  device->Launch(
      module, {.kernel = "async_copy", .grid = 1, .block = 32, .shared_bytes = 512, .args = args});
  std::vector<uint32_t> result = Download<uint32_t>(*device, out, 64);
  for (size_t t = 0; t < 32; ++t) {
    EXPECT_EQ(result[2 * t + 1], src[4 * t + 1]) << "thread " << t << " after the wait";
    // A GPU may land a copy any time before its wait; the host lands it at the wait, so that a
    // read the wait does not cover sees the old contents.
    if (host()) {
      EXPECT_EQ(result[2 * t], 0xffffffffu) << "thread " << t << " before the wait";
    }
  }
  for (DevicePtr p : {ps, out, args}) device->Free(p);
}

// The order pz_group_reduce documents: lane 0 of a group merges the partial of lane width / 2,
// then width / 4, ..., each of those lanes having done the same with the lanes above it.
float GroupTree(const std::vector<float>& values, size_t first, size_t width) {
  std::vector<float> v(values.begin() + static_cast<std::ptrdiff_t>(first),
                       values.begin() + static_cast<std::ptrdiff_t>(first + width));
  for (size_t m = width / 2; m > 0; m /= 2) {
    for (size_t l = 0; l < m; ++l) v[l] = 2.0f * v[l] + v[l + m];
  }
  return v[0];
}

TEST_P(Devices, GroupReduceMergesEachGroupAsATreeFromItsFirstLane) {
  std::unique_ptr<Device> device = Open();
  if (!device) GTEST_SKIP() << skip_;
  ModuleId module = device->Load(Unit(kGroupReduce), "group_reduce");
  // Two warps of 32, and a block of 4 threads (what the plain host device runs).
  for (unsigned threads : {64u, 4u}) {
    std::vector<float> in(threads);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 7 + 3) % 4);
    for (unsigned width = 2; width <= std::min(threads, 32u); width *= 2) {
      DevicePtr pin = Upload(*device, in), out = device->Alloc(threads * sizeof(float));
      DevicePtr args = Upload<uint64_t>(*device, {pin, out, width});
      device->Launch(module, {.kernel = "group_reduce", .grid = 1, .block = threads, .args = args});
      std::vector<float> result = Download<float>(*device, out, threads);
      for (size_t t = 0; t < threads; ++t) {
        EXPECT_EQ(result[t], GroupTree(in, t / width * width, width))
            << threads << " threads, groups of " << width << ", thread " << t;
      }
      for (DevicePtr p : {pin, out, args}) device->Free(p);
    }
  }
}

TEST_P(Devices, ArgMergeTakesTheFirstNanElseTheFirstMaximum) {
  std::unique_ptr<Device> device = Open();
  if (!device) GTEST_SKIP() << skip_;
  ModuleId module = device->Load(Unit(kGroupArgmax), "group_argmax");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Per warp: ties of the maximum (lanes 20 and 7), two NaNs (25 and 9) besides a larger
  // value, a single element (lane 31) among lanes without one, and -0 tying +0.
  std::vector<float> in(128, -1.0f);
  for (int l = 0; l < 32; ++l) {
    in[static_cast<size_t>(l)] = static_cast<float>(l % 5);
    in[static_cast<size_t>(32 + l)] = static_cast<float>(l);
    in[static_cast<size_t>(96 + l)] = -3.0f;
  }
  in[20] = in[7] = 9.0f;
  in[32 + 25] = in[32 + 9] = nan;
  in[64 + 31] = 2.0f;
  in[96 + 12] = -0.0f;
  in[96 + 3] = 0.0f;
  DevicePtr pin = Upload(*device, in), out = device->Alloc(128 * sizeof(long long));
  DevicePtr args = Upload<uint64_t>(*device, {pin, out});
  device->Launch(module, {.kernel = "group_argmax", .grid = 1, .block = 128, .args = args});
  std::vector<long long> result = Download<long long>(*device, out, 128);
  const long long expected[4] = {7, 9, 31, 3};
  for (size_t t = 0; t < 128; ++t) {
    EXPECT_EQ(result[t], expected[t / 32]) << "thread " << t;
  }
  for (DevicePtr p : {pin, out, args}) device->Free(p);
}

INSTANTIATE_TEST_SUITE_P(WarpForms, Devices, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Gpu" : "HostSm80";
                         });

}  // namespace
}  // namespace pz::cuda
