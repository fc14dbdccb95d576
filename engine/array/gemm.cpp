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
#ifdef PZ_GEMM_HAS_V4
namespace isa_v4 {
extern const Kernels kKernels;
}
#endif

const Kernels& KernelsFor(Isa isa) {
#ifdef PZ_GEMM_HAS_V4
  // Eigen's AVX-512 kernels: 1.5x to 2x its AVX2 ones on an Intel Xeon, slower on AMD's Zen 4,
  // which splits 512-bit operations in two (tests/bench/README.md).
  if (isa == Isa::kAvx512 && FullWidthAvx512()) return isa_v4::kKernels;
#endif
#ifdef PZ_GEMM_HAS_V3
  if (isa == Isa::kAvx2Fma || isa == Isa::kAvx512) return isa_v3::kKernels;
#endif
  (void)isa;
  return isa_baseline::kKernels;
}

}  // namespace pz::array::gemm
