// The threads of one CUDA block as fibers on the calling OS thread (the host device's way of
// running a block): each thread has its own stack, and `__syncthreads()` or a warp's barrier
// switches to the next thread that can run instead of waking an OS thread. A block of 512
// threads crosses a barrier in a few hundred microseconds this way, where 512 OS threads on two
// cores took milliseconds.
//
// Threads run one at a time until they wait, first in the order of their index, or in the
// reverse order when the caller asks; the last to arrive at a barrier releases the others, which
// resume in the order they arrived, and goes on. Between two barriers each thread's work is then
// done whole, before or after another's: running blocks in both orders shows a missing barrier
// between two threads of a block (one reading what the other writes) as a wrong result in one of
// them, whichever way round the two touch the memory. A thread that returns counts as arrived at
// every later barrier of its block and warp, as an exited warp does on a GPU. Threads that wait at
// barriers which can no longer complete (some at the block's, the rest of their warp at the warp's)
// are an error, not a hang.
#pragma once

#include <cstddef>
#include <memory>

namespace pz::cuda {

class BlockFibers {
 public:
  // Room for blocks of up to `threads` threads, each with a stack of `stack_bytes`.
  BlockFibers(unsigned threads, size_t stack_bytes);
  ~BlockFibers();
  BlockFibers(const BlockFibers&) = delete;
  BlockFibers& operator=(const BlockFibers&) = delete;

  // Runs body(context, t) for t in [0, threads) of one block, each call on its own fiber, until
  // all have returned; `descending` starts them last thread first. Throws DeviceError when
  // threads wait at barriers that cannot complete.
  void Run(unsigned threads, void (*body)(void* context, unsigned thread), void* context,
           bool descending = false);

  // The sync callbacks of the prelude's host shim: wait until every thread of the block, or of
  // the calling thread's warp, has arrived. Their context is the value of BlockSync() or
  // WarpSync(thread).
  static void Sync(void* barrier);
  void* BlockSync();
  void* WarpSync(unsigned thread);

  struct State;  // opaque: host_fibers.cpp

 private:
  std::unique_ptr<State> state_;
};

}  // namespace pz::cuda
