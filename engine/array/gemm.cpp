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
  if (isa == Isa::kAvx2Fma) return isa_v3::kKernels;
#endif
  (void)isa;
  return isa_baseline::kKernels;
}

}  // namespace pz::array::gemm
