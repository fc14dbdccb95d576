// Cost of the emulated TPU core (engine/tpu) on whole Pallas programs run in-process, next to
// Eigen doing the same block products directly:
//   BM_GridStepOverhead      fixed cost per grid step (tiny blocks): `steps_per_second`; /1 with
//                            the default options, /0 with track_uninitialized off
//   BM_TiledMatmul           2048^3 f32 matmul in 256-blocks, grid (8, 8, 8), f32 accumulator
//   BM_EigenMatmulSameTiles/I  the same 512 block products of 256^3 with Eigen built for
//                            I = 0 baseline x86-64, 1 x86-64-v3, 2 -march=native
//   BM_FlashAttentionForward T = S = 4096, head dim 128, 4 heads, 128-blocks, online softmax
//   BM_FlashAttentionMegacore/N  the same with its head axis "parallel" on N emulated cores
//                            (wall-clock time)
//   BM_EigenFlashSameDots/I  the same q @ k^T and p @ v block products with Eigen (no softmax)
//   BM_EigenFlashFullMath/I  the whole kernel (products and online softmax) in Eigen
//   BM_JaxComparable/I       the three programs tests/bench/jax_comparable.py times in real JAX
//   BM_FlashAttentionMemory  T = S = 16384, one head, run in a child process: its peak RSS
//                            (VmHWM) against 1.5 x operand bytes + 64 MiB; T = 128 is the baseline
// Each program's setup (imports, operand creation, the pallas_call object) runs once before the
// timing loop; an iteration calls a Python function that performs the pallas_call(s) (the kernel
// is traced on every call, as JAX traces on every call without jit). See tests/bench/README.md.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_program.h"
#include "eigen_ref.h"

namespace pz {
namespace {

using bench::Program;
using bench::SharedProgram;

// Runs `program` once per benchmark iteration; false (after SkipWithError) on any failure.
bool RunTimed(benchmark::State& state, Program& program) {
  if (!program.error().empty()) {
    state.SkipWithError(program.error().c_str());
    return false;
  }
  for (auto _ : state) {
    if (!program.Run()) {
      state.SkipWithError(program.error().c_str());
      return false;
    }
  }
  return true;
}

// ---- Grid-step overhead ---------------------------------------------------------------------

constexpr int64_t kAddElements = int64_t{1} << 20;
constexpr int64_t kAddBlock = 8;

void BM_GridStepOverhead(benchmark::State& state) {
  tpu::EmulatorOptions options;
  options.track_uninitialized = state.range(0) != 0;
  Program program(fmt::format(R"(
def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


n, b = {0}, {1}
x = jnp.arange(n, dtype=jnp.float32)
y = jnp.ones((n,), jnp.float32)
spec = pl.BlockSpec((b,), lambda i: (i,))
add = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((n,), jnp.float32),
                     grid=(n // b,), in_specs=[spec, spec], out_specs=spec)
bench.register(lambda: add(x, y))
)",
                              kAddElements, kAddBlock),
                  options);
  if (!RunTimed(state, program)) return;
  int64_t steps = kAddElements / kAddBlock;
  state.counters["steps_per_second"] = benchmark::Counter(
      static_cast<double>(steps * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["seconds_per_step"] =
      benchmark::Counter(static_cast<double>(steps * state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(options.track_uninitialized ? "tracking uninitialised reads (default)"
                                             : "track_uninitialized = false");
}

// ---- Tiled matmul -----------------------------------------------------------------------------

constexpr int64_t kMatN = 2048;
constexpr int64_t kMatBlock = 256;

void SetMatmulFlops(benchmark::State& state) {
  state.counters["flops"] =
      benchmark::Counter(2.0 * kMatN * kMatN * kMatN * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_TiledMatmul(benchmark::State& state) {
  Program program(SharedProgram(fmt::format("matmul_program({}, {})", kMatN, kMatBlock)));
  if (!RunTimed(state, program)) return;
  SetMatmulFlops(state);
}

std::vector<float> SineData(int64_t n, double scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(std::sin(scale * static_cast<double>(i)));
  return v;
}

// The Eigen references run one copy of eigen_ref.cpp: state.range(0) 0 baseline x86-64, 1
// x86-64-v3 (AVX2 + FMA, what the emulator's own GEMM uses on such CPUs), 2 -march=native.
struct EigenRef {
  decltype(&bench::ref_baseline::MatmulSameTiles) matmul;
  decltype(&bench::ref_baseline::FlashSameDots) flash_dots;
  decltype(&bench::ref_baseline::FlashFullMath) flash_full;
  const char* label;
};

const EigenRef& RefFor(benchmark::State& state) {
  static const EigenRef refs[] = {
      {&bench::ref_baseline::MatmulSameTiles, &bench::ref_baseline::FlashSameDots,
       &bench::ref_baseline::FlashFullMath, "Eigen, baseline x86-64"},
      {&bench::ref_v3::MatmulSameTiles, &bench::ref_v3::FlashSameDots,
       &bench::ref_v3::FlashFullMath, "Eigen, x86-64-v3"},
      {&bench::ref_native::MatmulSameTiles, &bench::ref_native::FlashSameDots,
       &bench::ref_native::FlashFullMath, "Eigen, -march=native"},
  };
  const EigenRef& ref = refs[state.range(0)];
  state.SetLabel(ref.label);
  return ref;
}

void BM_EigenMatmulSameTiles(benchmark::State& state) {
  const EigenRef& ref = RefFor(state);
  const int64_t n = kMatN;
  std::vector<float> x = SineData(n * n, 0.37), y = SineData(n * n, 0.11), out(n * n);
  for (auto _ : state) {
    ref.matmul(x.data(), y.data(), out.data(), n, kMatBlock);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetMatmulFlops(state);
}

// ---- Flash attention --------------------------------------------------------------------------

constexpr int64_t kFlashHeads = 4, kFlashT = 4096, kFlashD = 128, kFlashBlock = 128;

// The flash attention of programs.py: heads x (t x t) in 128-blocks, head dim 128.
std::string FlashMaker(int64_t heads, int64_t t, bool parallel_heads) {
  return fmt::format("flash_program({}, {}, {}, {}, {}, parallel_heads={})", heads, t, t, kFlashD,
                     kFlashBlock, parallel_heads ? "True" : "False");
}

void SetFlashFlops(benchmark::State& state) {
  // Two products of (128 x 128) x (128 x 128) per grid step.
  state.counters["dot_flops"] = benchmark::Counter(
      4.0 * kFlashHeads * kFlashT * kFlashT * kFlashD * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_FlashAttentionForward(benchmark::State& state) {
  Program program(SharedProgram(FlashMaker(kFlashHeads, kFlashT, false)));
  if (!RunTimed(state, program)) return;
  SetFlashFlops(state);
}

// The same flash attention with its head axis "parallel", on state.range(0) emulated cores
// (`--cores N`). Wall-clock time: the cores run on threads.
void BM_FlashAttentionMegacore(benchmark::State& state) {
  tpu::EmulatorOptions options;
  options.cores = static_cast<int>(state.range(0));
  Program program(SharedProgram(FlashMaker(kFlashHeads, kFlashT, true)), options);
  if (!RunTimed(state, program)) return;
  SetFlashFlops(state);
}

void BM_EigenFlashSameDots(benchmark::State& state) {
  const EigenRef& ref = RefFor(state);
  const int64_t h = kFlashHeads, t = kFlashT, d = kFlashD;
  std::vector<float> q = SineData(h * t * d, 0.37), k = SineData(h * t * d, 0.23),
                     v = SineData(h * t * d, 0.11), out(h * t * d);
  for (auto _ : state) {
    ref.flash_dots(q.data(), k.data(), v.data(), out.data(), h, t, d, kFlashBlock);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetFlashFlops(state);
}

// The whole kernel in Eigen (block products and the online softmax): how far the emulator is
// from native code doing the same arithmetic, not just the same products.
void BM_EigenFlashFullMath(benchmark::State& state) {
  const EigenRef& ref = RefFor(state);
  const int64_t h = kFlashHeads, t = kFlashT, d = kFlashD;
  std::vector<float> q = SineData(h * t * d, 0.37), k = SineData(h * t * d, 0.23),
                     v = SineData(h * t * d, 0.11), out(h * t * d);
  for (auto _ : state) {
    ref.flash_full(q.data(), k.data(), v.data(), out.data(), h, t, d, kFlashBlock);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetFlashFlops(state);
}

// ---- Flash attention memory ---------------------------------------------------------------------

constexpr const char* kMemoryChildFlag = "--pz-flash-memory-child";
std::string g_self_path;

// The peak resident set of this process image (VmHWM; KiB). Unlike getrusage's ru_maxrss it
// does not include the parent's peak, which Linux carries over into a forked child across exec.
int64_t PeakRssKib() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::atoll(line + 6);
  }
  std::fclose(status);
  return kib;
}

// Body of the child process: runs the T = S = `t` flash attention once and prints its peak RSS;
// exit status 0 on success.
int FlashMemoryChild(int64_t t) {
  Program program(SharedProgram(FlashMaker(1, t, false)));
  if (!program.error().empty() || !program.Run()) {
    std::fputs(program.error().c_str(), stderr);
    return 1;
  }
  std::printf("%lld\n", static_cast<long long>(PeakRssKib()));
  return 0;
}

void BM_FlashAttentionMemory(benchmark::State& state) {
  const int64_t t = state.range(0);
  double peak_mib = 0;
  for (auto _ : state) {
    // A fresh process, so that nothing this one allocated counts in the peak.
    std::string command = fmt::format("'{}' {} {}", g_self_path, kMemoryChildFlag, t);
    FILE* child = popen(command.c_str(), "r");
    long long kib = -1;
    if (child == nullptr || std::fscanf(child, "%lld", &kib) != 1 || pclose(child) != 0 ||
        kib <= 0) {
      state.SkipWithError("the child process running the flash attention failed");
      return;
    }
    peak_mib = std::max(peak_mib, static_cast<double>(kib) / 1024.0);
  }
  // q, k, v and the output, f32.
  double operand_mib = 4.0 * static_cast<double>(t * kFlashD * 4) / (1 << 20);
  double budget_mib = 1.5 * operand_mib + 64;
  state.counters["peak_rss_MiB"] = peak_mib;
  state.counters["operand_MiB"] = operand_mib;
  state.counters["budget_MiB"] = budget_mib;
  state.counters["rss_over_budget"] = peak_mib / budget_mib;
}

// ---- Programs to time against real JAX ----------------------------------------------------------

// The three programs of programs.py that jax_comparable.py times under real JAX
// (pl.pallas_call(..., interpret=True), jitted, steady state): 0 a tiled matmul 1024^3 in
// 256-blocks, 1 flash attention forward H = 2, T = S = 1024, D = 128 in 128-blocks, 2 a vector
// add of 512 grid steps of (8, 128) f32 blocks. An iteration traces and runs the call.
void BM_JaxComparable(benchmark::State& state) {
  static const struct {
    const char* maker;
    const char* label;
  } kPrograms[] = {
      {"matmul_program(1024, 256)", "matmul 1024^3, 256-blocks (64 steps)"},
      {"flash_program(2, 1024, 1024, 128, 128)", "flash H=2 T=S=1024 D=128 (128 steps)"},
      {"add_program(4096)", "vector add, 512 steps of (8, 128)"},
  };
  state.SetLabel(kPrograms[state.range(0)].label);
  Program program(SharedProgram(kPrograms[state.range(0)].maker));
  RunTimed(state, program);
}

BENCHMARK(BM_GridStepOverhead)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TiledMatmul)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EigenMatmulSameTiles)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FlashAttentionForward)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FlashAttentionMegacore)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EigenFlashSameDots)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EigenFlashFullMath)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_JaxComparable)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
// 128 is a baseline (the interpreter and program alone); 16384 is the target size.
BENCHMARK(BM_FlashAttentionMemory)
    ->Arg(128)
    ->Arg(16384)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pz

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], pz::kMemoryChildFlag) == 0) {
    return pz::FlashMemoryChild(std::atoll(argv[2]));
  }
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return 1;
  pz::g_self_path.assign(self, static_cast<size_t>(length));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
