// Throughput of the eager products (jnp.dot, jnp.einsum) on square float32 matrices, next to a
// raw Eigen product of the same shape: the gap is the cost of our dispatch, layout checks and
// result allocation. Reports GFLOP/s (2 n^3 flops per product) as the `flops` counter.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cmath>

#include "array/linalg.h"

namespace pz::array {
namespace {

Array SineMatrix(int64_t n, double phase) {
  std::vector<double> values(static_cast<size_t>(n * n));
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.37 * i + phase);
  return Array::FromDoubles(DType::kFloat32, {n, n}, values);
}

void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["flops"] = benchmark::Counter(
      2.0 * static_cast<double>(n) * n * n * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_Dot(benchmark::State& state) {
  int64_t n = state.range(0);
  Array a = SineMatrix(n, 0.0), b = SineMatrix(n, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(Dot(a, b, std::nullopt));
  SetFlops(state, n);
}

void BM_Einsum(benchmark::State& state) {
  int64_t n = state.range(0);
  Array a = SineMatrix(n, 0.0), b = SineMatrix(n, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(Einsum("ij,jk->ik", a, b, std::nullopt));
  SetFlops(state, n);
}

void BM_RawEigen(benchmark::State& state) {
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  int64_t n = state.range(0);
  Array a = SineMatrix(n, 0.0), b = SineMatrix(n, 1.0);
  Eigen::Map<const RowMatrix> ma(a.data<float>(), n, n), mb(b.data<float>(), n, n);
  for (auto _ : state) {
    RowMatrix c(n, n);
    c.noalias() = ma * mb;
    benchmark::DoNotOptimize(c.data());
  }
  SetFlops(state, n);
}

BENCHMARK(BM_Dot)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Einsum)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RawEigen)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pz::array
