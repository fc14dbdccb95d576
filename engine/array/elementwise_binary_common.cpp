// The binary kernels of the dtypes kernels compute in most (elementwise_binary_kernels.h).
#include "array/elementwise_binary_kernels.h"

namespace pz::array::binary_kernels {

PZ_BINARY_DISPATCH(DType::kFloat32);
PZ_BINARY_DISPATCH(DType::kBFloat16);
PZ_BINARY_DISPATCH(DType::kInt32);
PZ_BINARY_DISPATCH(DType::kBool);

}  // namespace pz::array::binary_kernels
