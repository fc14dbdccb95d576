#include "array/isa.h"

#include <cstdlib>
#include <cstring>

namespace pz::array {
namespace {

Isa Detect() {
  const char* forced = std::getenv("PZ_ISA");
  if (forced != nullptr && std::strcmp(forced, "baseline") == 0) return Isa::kBaseline;
  bool cap_avx2 = forced != nullptr && std::strcmp(forced, "avx2") == 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // The GEMM copy for this level is built with -march=x86-64-v3, which may use any of its
  // extensions (BMI2, LZCNT, MOVBE, F16C, ...), not only AVX2 and FMA.
#if defined(__clang__)
  bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
            __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#else
  bool v3 = __builtin_cpu_supports("x86-64-v3");
#endif
  if (!v3) return Isa::kBaseline;
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return avx512 && !cap_avx2 ? Isa::kAvx512 : Isa::kAvx2Fma;
#endif
  return Isa::kBaseline;
}

}  // namespace

Isa RuntimeIsa() {
  static const Isa isa = Detect();
  return isa;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return "avx-512";
    case Isa::kAvx2Fma:
      return "avx2+fma";
    case Isa::kBaseline:
      break;
  }
  return "baseline";
}

}  // namespace pz::array
