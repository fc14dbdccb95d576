// The vector instruction set the array layer's hand-vectorised loops may use, picked once at run
// time from the CPU (CPUID), so that one portable binary runs everywhere. Every vectorised path
// computes exactly what its baseline twin computes; the environment variable PZ_ISA forces a
// lower level (`baseline` or `avx2`), or `avx512` for the AVX-512 GEMM on a CPU that has AVX-512
// but does not take it by itself (FullWidthAvx512), and the test suite runs the array tests at
// each.
#pragma once

namespace pz::array {

enum class Isa {
  kBaseline,  // x86-64 (SSE2) or another architecture: plain C++ loops
  kAvx2Fma,   // x86-64-v3: AVX2, FMA, BMI2 and the rest of that level
  kAvx512,    // x86-64-v4: x86-64-v3 and AVX-512 F, CD, DQ, BW, VL
};

// The best instruction set of this CPU, capped by PZ_ISA=baseline or PZ_ISA=avx2.
Isa RuntimeIsa();
const char* IsaName(Isa isa);

// Whether this CPU runs 512-bit vector operations at the full width (every AVX-512 CPU of Intel,
// and AMD's from Zen 5 on). Zen 4 splits them into two 256-bit halves; there Eigen's AVX-512
// GEMM ran slower than its AVX2 one (tests/bench/README.md), so the GEMM keeps AVX2 (gemm.h).
// PZ_ISA=avx512 makes it true.
bool FullWidthAvx512();

}  // namespace pz::array
