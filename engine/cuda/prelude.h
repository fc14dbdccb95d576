// The fixed start of every translation unit the CUDA emitter writes: dtype helpers (bfloat16 and
// float16 kept as their bits, converted through float with round-to-nearest-even), the scalar
// semantics of the array layer's elementwise ops, and, when the unit is compiled as plain C++
// (no __CUDACC__), the host shim that device.h's host device runs it with.
//
// The host shim's contract (OpenHostDevice relies on it): the unit defines
//   extern "C" void pz_host_run(void (*kernel)(const unsigned long long*),
//                               const unsigned long long* args, unsigned thread, unsigned block,
//                               unsigned block_dim, unsigned grid_dim, char* shared,
//                               void (*sync)(void*), void* sync_context, void* warp_context,
//                               unsigned* warp_slots);
// which runs kernel(args) as CUDA thread `thread` of block `block`: threadIdx.x, blockIdx.x,
// blockDim.x, gridDim.x and the block's dynamic shared memory are set for that call.
// `__syncthreads()` calls sync(sync_context), which must wait for the block's other threads;
// sync(warp_context) must wait for the other threads of the thread's warp (threads 32 w to
// 32 w + 31). Both may switch to another CUDA thread's call of pz_host_run on the same OS thread
// (the host device's fibers). `warp_slots` is the warp's 32 x pz_host_slot_words words (the unit
// defines extern "C" const unsigned pz_host_slot_words), through which its lanes trade
// tensor-core fragments and ldmatrix rows.
//
// The unit's PZ_SM80 says whether it takes the forms of sm_80 and later GPUs (tensor cores,
// ldmatrix, asynchronous copies into shared memory): on a GPU by __CUDA_ARCH__; as plain C++
// when compiled with PZ_HOST_SM80 defined, the host shim then carrying out those instructions
// lane by lane (the warp's lanes trading values as the instructions define), with asynchronous
// copies landing only at the wait that makes them visible.
#pragma once

#include <string_view>

namespace pz::cuda {

std::string_view Prelude();

// What follows the prelude in units whose kernels draw random numbers (EmittedKernel::random):
// jax.random's threefry2x32 draws and its samplers' steps, and the core generator's draws.
std::string_view RandomPrelude();

// What follows in units whose kernels print (EmittedKernel::log_arg): a record's room in the log.
std::string_view PrintPrelude();

}  // namespace pz::cuda
