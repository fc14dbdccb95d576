// The array library's AVX code leaves the upper halves of the vector registers clean
// (`vzeroupper`) when it returns. Left dirty, every plain SSE instruction after it runs slowly:
// the rest of the engine, and the CUDA host device's units (built for baseline x86-64), which ran
// up to twenty times slower in a build whose AVX files GCC compiled at -O1, where it emits no
// `vzeroupper` (engine/array/CMakeLists.txt). The suite runs this under each PZ_ISA level.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "array/creation.h"
#include "array/elementwise.h"
#include "array/linalg.h"
#include "array/random.h"
#include "array/reduce.h"
#include "array/shape_ops.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace pz::array {
namespace {

#if defined(__x86_64__)
// Whether XGETBV can read which state components are in use (CPUID.(EAX=0DH,ECX=1):EAX[2]).
bool CanReadStateInUse() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d)) return false;
  return (a >> 2) & 1;
}

// The state components in use: bit 2 the upper halves of ymm0-15, bit 6 the upper halves of
// zmm0-15 (both cleared by `vzeroupper`).
unsigned long long StateInUse() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}
#endif

TEST(VectorState, EveryAvxPathReturnsWithTheUpperHalvesClean) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "x86-64 only";
#else
  if (!CanReadStateInUse()) GTEST_SKIP() << "this CPU cannot report the state in use";
  constexpr unsigned long long kUpperHalves = (1ull << 2) | (1ull << 6);
  Array x = Reshape(Iota(DType::kFloat32, 65536), {256, 256});
  Array y = Unary(UnaryOp::kCos, x);
  std::vector<std::pair<std::string, std::function<Array()> > > paths = {
      {"binary lanes (add)", [&] { return Binary(BinaryOp::kAdd, x, y); }},
      {"exp lanes", [&] { return Unary(UnaryOp::kExp, y); }},
      {"row maxima", [&] { return Reduce(ReduceOp::kMax, x, std::vector<int>{1}, false); }},
      {"sum", [&] { return Reduce(ReduceOp::kSum, y, std::nullopt, false); }},
      {"uniform draws", [&] { return Uniform(Key(0), {65536}); }},
      {"normal draws", [&] { return Normal(Key(1), {65536}); }},
      {"GEMM", [&] { return Matmul(x, y, std::nullopt); }},
  };
  for (const auto& [name, run] : paths) {
    Array out = run();
    unsigned long long in_use = StateInUse();
    EXPECT_EQ(in_use & kUpperHalves, 0u)
        << name << " left the upper halves of the vector registers in use (XINUSE " << std::hex
        << in_use << ")";
  }
#endif
}

}  // namespace
}  // namespace pz::array
