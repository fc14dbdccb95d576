// The fixed start of every translation unit the CUDA emitter writes: dtype helpers (bfloat16 and
// float16 kept as their bits, converted through float with round-to-nearest-even), the scalar
// semantics of the array layer's elementwise ops, and, when the unit is compiled as plain C++
// (no __CUDACC__), the host shim that device.h's host device runs it with.
//
// The host shim's contract (OpenHostDevice relies on it): the unit defines
//   extern "C" void pz_host_bind(unsigned thread, unsigned block, unsigned block_dim,
//                                unsigned grid_dim, char* shared, void (*sync)(void*),
//                                void* sync_context);
// which a host thread calls before each call of a kernel function: it sets threadIdx.x,
// blockIdx.x, blockDim.x, gridDim.x and the block's dynamic shared memory for that thread;
// `__syncthreads()` then calls sync(sync_context), which must wait for the block's other threads.
#pragma once

#include <string_view>

namespace pz::cuda {

std::string_view Prelude();

}  // namespace pz::cuda
