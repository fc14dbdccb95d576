// The binary kernels of the other dtypes (elementwise_binary_kernels.h).
#include "array/elementwise_binary_kernels.h"

namespace pz::array::binary_kernels {

PZ_BINARY_DISPATCH(DType::kFloat16);
PZ_BINARY_DISPATCH(DType::kInt8);
PZ_BINARY_DISPATCH(DType::kUInt8);
PZ_BINARY_DISPATCH(DType::kInt16);
PZ_BINARY_DISPATCH(DType::kUInt16);
PZ_BINARY_DISPATCH(DType::kUInt32);
PZ_BINARY_DISPATCH(DType::kInt4);
PZ_BINARY_DISPATCH(DType::kUInt4);

}  // namespace pz::array::binary_kernels
