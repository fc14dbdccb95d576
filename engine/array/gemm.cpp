#include "array/gemm.h"

namespace pz::array::gemm {

namespace isa_baseline {
extern const Kernels kKernels;
}
#ifdef PZ_GEMM_HAS_V3
namespace isa_v3 {
extern const Kernels kKernels;
}
#endif

const Kernels& KernelsFor(Isa isa) {
#ifdef PZ_GEMM_HAS_V3
  // Eigen's AVX-512 kernels ran slower than its AVX2 ones on this project's machines
  // (tests/bench/README.md), so the AVX-512 level multiplies with the AVX2 copy.
  if (isa == Isa::kAvx2Fma || isa == Isa::kAvx512) return isa_v3::kKernels;
#endif
  (void)isa;
  return isa_baseline::kKernels;
}

}  // namespace pz::array::gemm
