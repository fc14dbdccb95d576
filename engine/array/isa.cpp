#include "array/isa.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

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
  // The AVX-512 GEMM copy is built with -march=x86-64-v4, which adds CD to these four.
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("avx512cd");
  return avx512 && !cap_avx2 ? Isa::kAvx512 : Isa::kAvx2Fma;
#endif
  return Isa::kBaseline;
}

bool DetectFullWidth() {
  // PZ_ISA=avx512 takes the AVX-512 GEMM on any CPU that has AVX-512 (for its tests).
  const char* forced = std::getenv("PZ_ISA");
  if (forced != nullptr && std::strcmp(forced, "avx512") == 0) return true;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
  // "AuthenticAMD": EBX, EDX, ECX spell it four letters each.
  bool amd = ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163;
  if (!amd) return true;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  unsigned family = (eax >> 8) & 0xf;
  if (family == 0xf) family += (eax >> 20) & 0xff;
  return family >= 0x1a;  // Zen 5
#else
  return false;
#endif
}

}  // namespace

bool FullWidthAvx512() {
  static const bool full = DetectFullWidth();
  return full;
}

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
