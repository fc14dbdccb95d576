// The vector instruction set the array layer's hand-vectorised loops may use, picked once at run
// time from the CPU (CPUID), so that one portable binary runs everywhere. Every vectorised path
// computes exactly what its baseline twin computes; the environment variable PZ_ISA forces a
// lower level (`baseline` or `avx2`), and the test suite runs the array tests at each.
#pragma once

namespace pz::array {

enum class Isa {
  kBaseline,  // x86-64 (SSE2) or another architecture: plain C++ loops
  kAvx2Fma,   // x86-64-v3: AVX2, FMA, BMI2 and the rest of that level
  kAvx512,    // x86-64-v3 and AVX-512 F, DQ, BW, VL (only some loops use it; GEMM stays AVX2)
};

// The best instruction set of this CPU, capped by PZ_ISA=baseline or PZ_ISA=avx2.
Isa RuntimeIsa();
const char* IsaName(Isa isa);

}  // namespace pz::array
