// jax.random's streams, 2 x 2^20 values each (the size of a 1024 x 2048 weight matrix): the
// threefry draws alone, uniform and normal. Reports values per second as `items_per_second`.
// The hot loops pick AVX2 lanes at run time; `PZ_ISA=baseline` runs the scalar loops instead
// (tests/bench/README.md has both).
#include <benchmark/benchmark.h>

#include "array/isa.h"
#include "array/random.h"

namespace pz::array {
namespace {

const Shape kShape = {2, 1 << 20};

void Finish(benchmark::State& state) {
  state.SetItemsProcessed(state.iterations() * NumElements(kShape));
  state.SetLabel(IsaName(RuntimeIsa()));
}

void BM_RandomBits(benchmark::State& state) {
  Array key = Key(0);
  for (auto _ : state) benchmark::DoNotOptimize(Bits(key, kShape));
  Finish(state);
}

void BM_RandomUniform(benchmark::State& state) {
  Array key = Key(0);
  for (auto _ : state) benchmark::DoNotOptimize(Uniform(key, kShape));
  Finish(state);
}

void BM_RandomNormal(benchmark::State& state) {
  Array key = Key(0);
  for (auto _ : state) benchmark::DoNotOptimize(Normal(key, kShape));
  Finish(state);
}

BENCHMARK(BM_RandomBits)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandomUniform)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandomNormal)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pz::array
