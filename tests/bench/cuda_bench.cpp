// The CUDA backend on a GPU against the best library operation on the same device, in one run
// (GPU only; prints why and exits 0 without one):
//   vector add      256 MiB per operand, (2048, 128) blocks    vs  cuMemcpyDtoD of 256 MiB
//                                                               (the device's copy bandwidth)
//   matmul f32      4096^3 in 256-blocks, f32 accumulator      vs  cublasGemmEx f32 (no TF32)
//   matmul bf16     the same with bf16 operands                vs  cublasGemmEx bf16 -> f32
//                   (once per warp tile of the staged tensor-core product: 32x32, the
//                   default, then 64x32 and 64x64; emit.h)
//   flash forward   8 heads, T = S = 4096, D = 128, 128-blocks  vs  its two products in
//                                                               cublasGemmEx f32 (a lower bound)
// The kernels are the programs of tests/bench/programs.py; a kernel's time is the median of
// several launches after a warm-up (CUDA events), the library's the mean of 20 calls after a
// warm-up. Ratios are library time / kernel time (1 = as fast as the library).
// Build: cmake --build --preset release --target pz_bench_cuda; run: build/release/tests/bench/
// pz_bench_cuda (tests/bench/README.md). cuBLAS is opened with dlopen (libcublas.so.13, .12, .11).
#include <dlfcn.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_program.h"
#include "cuda/cuda_backend.h"
#include "cuda/device.h"

namespace pz {
namespace {

// Runs each call on the inner backend and keeps the last report's kernel time.
class TimedBackend final : public kernel::Backend {
 public:
  explicit TimedBackend(std::shared_ptr<cuda::CudaBackend> inner) : inner_(std::move(inner)) {}
  kernel::CallOutcome Run(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                          const kernel::CallOperands& operands,
                          const kernel::RunOptions& options) override {
    kernel::CallOutcome outcome = inner_->Run(program, mapping, operands, options);
    const auto& report = dynamic_cast<const cuda::CudaReport&>(*outcome.report);
    milliseconds = report.milliseconds;
    flops = report.flops;
    bytes = report.hbm_bytes_read + report.hbm_bytes_written;
    return outcome;
  }
  double milliseconds = 0;
  int64_t flops = 0, bytes = 0;

 private:
  std::shared_ptr<cuda::CudaBackend> inner_;
};

// The few cuBLAS and driver entry points the baselines use, opened with dlopen.
struct Library {
  using Handle = void*;
  int (*create)(Handle*) = nullptr;
  int (*gemm_ex)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*,
                 int, int, const void*, void*, int, int, int, int) = nullptr;
  int (*memcpy_dtod)(uint64_t, uint64_t, size_t) = nullptr;
  int (*synchronize)() = nullptr;
  Handle handle = nullptr;
  std::string error;

  Library() {
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda) {
      memcpy_dtod = reinterpret_cast<decltype(memcpy_dtod)>(dlsym(cuda, "cuMemcpyDtoD_v2"));
      synchronize = reinterpret_cast<decltype(synchronize)>(dlsym(cuda, "cuCtxSynchronize"));
    }
    void* blas = nullptr;
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                             "libcublas.so", "/usr/local/cuda/lib64/libcublas.so"}) {
      if ((blas = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    }
    if (!blas) {
      error =
          "cuBLAS (libcublas.so) was not found; set LD_LIBRARY_PATH to the CUDA toolkit's lib64";
      return;
    }
    create = reinterpret_cast<decltype(create)>(dlsym(blas, "cublasCreate_v2"));
    gemm_ex = reinterpret_cast<decltype(gemm_ex)>(dlsym(blas, "cublasGemmEx"));
    if (!create || !gemm_ex || create(&handle) != 0) error = "cublasCreate failed";
  }
};

// cuBLAS enums (cublas_api.h, library_types.h).
constexpr int kOpN = 0, kOpT = 1;
constexpr int kR32F = 0, kR16BF = 14;
constexpr int kCompute32F = 68, kCompute32FFast16BF = 75;
constexpr int kGemmDefault = -1;

// Mean milliseconds of `op` over 20 calls after 3 warm-ups, synchronised around.
double TimeOp(Library& lib, const std::function<int()>& op) {
  for (int i = 0; i < 3; ++i) op();
  lib.synchronize();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    if (op() != 0) return -1;
  }
  lib.synchronize();
  std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count() / 20;
}

// C (m x n, f32) = A (m x k) @ B (k x n), row-major, operands of cuBLAS dtype `type`; for a
// row-major product cuBLAS computes C^T = B^T A^T in column-major terms.
double TimeGemm(Library& lib, cuda::Device& dev, int m, int n, int k, int type, int compute,
                bool b_transposed = false) {
  size_t item = type == kR32F ? 4 : 2;
  cuda::DevicePtr a = dev.Alloc(size_t(m) * k * item), b = dev.Alloc(size_t(k) * n * item);
  cuda::DevicePtr c = dev.Alloc(size_t(m) * n * 4);
  dev.Memset(a, 0, size_t(m) * k * item);
  dev.Memset(b, 0, size_t(k) * n * item);
  float alpha = 1, beta = 0;
  double ms = TimeOp(lib, [&] {
    return lib.gemm_ex(lib.handle, b_transposed ? kOpT : kOpN, kOpN, n, m, k, &alpha,
                       reinterpret_cast<const void*>(b), type, b_transposed ? k : n,
                       reinterpret_cast<const void*>(a), type, k, &beta, reinterpret_cast<void*>(c),
                       kR32F, n, compute, kGemmDefault);
  });
  dev.Free(a);
  dev.Free(b);
  dev.Free(c);
  return ms;
}

struct Row {
  std::string name, versus;
  double kernel_ms = 0, library_ms = 0;
  std::string rate;
};

int Main() {
  std::unique_ptr<cuda::Device> device;
  try {
    device = cuda::OpenGpuDevice();
  } catch (const cuda::DeviceError& e) {
    std::printf("pz_bench_cuda: skipped: %s\n", e.what());
    return 0;
  }
  cuda::Device& dev = *device;
  auto timed = [](const cuda::WarpTile& tile) {
    return std::make_shared<TimedBackend>(std::make_shared<cuda::CudaBackend>(
        cuda::CudaOptions{.timing = true, .warp_tile = tile}, cuda::OpenGpuDevice()));
  };
  const std::shared_ptr<TimedBackend> default_tile = timed({});
  std::shared_ptr<TimedBackend> backend = default_tile;
  Library lib;
  if (!lib.error.empty())
    std::printf("pz_bench_cuda: no library baselines: %s\n", lib.error.c_str());
  std::printf("device: %s (%d SMs)\n", dev.info().name.c_str(), dev.info().multiprocessors);

  std::vector<Row> rows;
  auto run_kernel = [&](const std::string& maker, double& ms, int64_t& flops, int64_t& bytes) {
    tpu::EmulatorOptions options;
    options.backend = backend;
    options.stats = true;
    bench::Program program(bench::SharedProgram(maker), options);
    if (!program.error().empty() || !program.Run()) {
      std::printf("%s failed:\n%s\n", maker.c_str(), program.error().c_str());
      return false;
    }
    ms = backend->milliseconds;
    flops = backend->flops;
    bytes = backend->bytes;
    return true;
  };
  auto add = [&](const std::string& name, const std::string& maker, const std::string& versus,
                 const std::function<double()>& library, bool compute_bound) {
    Row row{.name = name, .versus = versus};
    int64_t flops = 0, bytes = 0;
    if (!run_kernel(maker, row.kernel_ms, flops, bytes)) return;
    row.library_ms = lib.error.empty() ? library() : 0;
    double seconds = row.kernel_ms / 1000;
    row.rate = compute_bound ? fmt::format("{:.2f} TFLOP/s", flops / seconds / 1e12)
                             : fmt::format("{:.0f} GB/s", bytes / seconds / 1e9);
    rows.push_back(row);
    std::printf("%-14s kernel %9.3f ms (%s)  %-34s %9.3f ms  ratio %.3f\n", name.c_str(),
                row.kernel_ms, row.rate.c_str(), versus.c_str(), row.library_ms,
                row.kernel_ms > 0 && row.library_ms > 0 ? row.library_ms / row.kernel_ms : 0.0);
    std::fflush(stdout);
  };

  constexpr int64_t kAddRows = (int64_t{256} << 20) / (128 * 4);  // 256 MiB per operand
  add(
      "vector add", fmt::format("add_program({}, block_rows=2048)", kAddRows),
      "cuMemcpyDtoD 256 MiB",
      [&] {
        size_t n = size_t{256} << 20;
        cuda::DevicePtr src = dev.Alloc(n), dst = dev.Alloc(n);
        // A copy reads and writes 256 MiB; the add reads 512 MiB and writes 256: scale the copy
        // to the add's 768 MiB of traffic.
        double ms = TimeOp(lib, [&] { return lib.memcpy_dtod(dst, src, n); }) * 1.5;
        dev.Free(src);
        dev.Free(dst);
        return ms;
      },
      false);
  add(
      "matmul f32", "matmul_program(4096, 256)", "cublasGemmEx f32 (no TF32)",
      [&] { return TimeGemm(lib, dev, 4096, 4096, 4096, kR32F, kCompute32F); }, true);
  double cublas_bf16 = 0;
  for (cuda::WarpTile tile : {cuda::WarpTile{}, cuda::WarpTile{.rows = 64, .cols = 32},
                              cuda::WarpTile{.rows = 64, .cols = 64}}) {
    backend = tile == cuda::WarpTile{} ? default_tile : timed(tile);
    add(
        tile == cuda::WarpTile{} ? "matmul bf16" : fmt::format("  w{}x{}", tile.rows, tile.cols),
        "matmul_program(4096, 256, dtype=jnp.bfloat16)", "cublasGemmEx bf16 -> f32",
        [&] {
          if (cublas_bf16 == 0)
            cublas_bf16 = TimeGemm(lib, dev, 4096, 4096, 4096, kR16BF, kCompute32F);
          return cublas_bf16;
        },
        true);
  }
  backend = default_tile;
  (void)kCompute32FFast16BF;
  add(
      "flash forward", "flash_program(8, 4096, 4096, 128, 128, parallel_heads=True)",
      "2 x 8 cublasGemmEx f32 (q k^T, p v)",
      [&] {
        double qk = TimeGemm(lib, dev, 4096, 4096, 128, kR32F, kCompute32F, true);
        double pv = TimeGemm(lib, dev, 4096, 128, 4096, kR32F, kCompute32F);
        return 8 * (qk + pv);
      },
      true);
  return 0;
}

}  // namespace
}  // namespace pz

int main() { return pz::Main(); }
