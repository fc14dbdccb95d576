// The vector instruction set the array layer's hand-vectorised loops may use, picked once at run
// time from the CPU (CPUID), so that one portable binary runs everywhere. Every vectorised path
// computes exactly what its baseline twin computes; the environment variable PZ_ISA=baseline
// forces the baseline paths (the test suite runs the array tests both ways).
#pragma once

namespace pz::array {

enum class Isa {
  kBaseline,  // x86-64 (SSE2) or another architecture: plain C++ loops
  kAvx2Fma,   // x86-64-v3: AVX2, FMA, BMI2 and the rest of that level
};

// The best instruction set of this CPU, or kBaseline when PZ_ISA=baseline.
Isa RuntimeIsa();
const char* IsaName(Isa isa);

}  // namespace pz::array
