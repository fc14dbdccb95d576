// The kernel IR of one pallas_call as a CUDA kernel (CUDA C++ source), and the translation unit
// holding every kernel a program launches.
//
// How a call maps onto CUDA (DESIGN.md, the `cuda` layer): the host orders the grid steps as
// chains (plan.h): one chain per point of the "parallel" axes, the other axes stepped in order
// inside it. One CUDA block runs a chain at a time (blocks stride over the chains). Per step it
// reads the grid point and every pipelined operand's window from the host's step table,
// fetches the input windows that changed into their block buffers (out-of-array elements get
// the dtype's poison, NaN or the minimum), runs the body, and writes back each output window
// whose next step moves it elsewhere (or at the chain's end), clipped to the array. Block
// buffers, scratch, semaphores and every array value of the body live in the block's arena:
// shared memory when everything fits; else the refs there and the values in global memory; else
// all of it global. When the block buffers and scratch do not fit in shared memory together, the
// operands that only loads and stores reach (no DMA, no aliasing, inputs never written) get no
// buffer: their loads and stores go to HBM at the window's place ("direct windows"),
// out-of-array elements read as the poison and written nowhere. Products whose operands are in
// global memory stage tiles of them in shared memory when there is room; the tiled matmul's
// `acc[...] += dot` then keeps the accumulator in the tensor cores' registers from one grid step
// to the next (emit_resident.cpp). Before any of this, a
// call with few chains may have its grid points split into parts (split.h). Elementwise work runs
// one element per thread, strided over the block; consecutive elementwise instructions over one
// shape (loads, stores, elementwise primitives) run as one loop with their values in registers.
// Scalars are computed by every thread alike, so all control flow is uniform and
// `__syncthreads()` may appear anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/plan.h"
#include "kernel/grid_mapping.h"
#include "kernel/ir.h"
#include "support/source.h"

namespace pz::cuda {

// An instruction (or call) the CUDA backend cannot map: a user-facing error at `span`.
class Unmappable : public std::runtime_error {
 public:
  Unmappable(const std::string& message, SourceSpan span, std::string hint = "")
      : std::runtime_error(message), span_(span), hint_(std::move(hint)) {}
  SourceSpan span() const { return span_; }
  const std::string& hint() const { return hint_; }

 private:
  SourceSpan span_;
  std::string hint_;
};

// Error codes the generated code leaves in its status row (see Status in cuda_backend.cpp).
enum class DeviceFault : int64_t {
  kNone = 0,
  kIndexOutOfBounds = 1,     // detail: dimension, start, window extent, the dimension's size
  kDmaWaitBlocks = 2,        // detail: the semaphore's count, the bytes waited for
  kSemaphoreWaitBlocks = 3,  // detail: the semaphore's count, the value waited for
  kLoopLimit = 4,            // detail: the iteration limit
  kSemaphoreNonzero = 5,     // at the kernel's end; instruction: the last to raise it; step:
                             // when; detail: the semaphore ref, its element, its count
  kPrngUnseeded = 6,         // a draw from the core's generator before any seed in the chain;
                             // detail: the chain, the step within it
};

// Status row of one CUDA block: {fault, instruction number, step (chain order), detail...}.
inline constexpr int kStatusWords = 8;
// The arguments every generated kernel reads from its `args` array, before the operands.
enum KernelArg : int {
  kArgStatus = 0,       // long long[grid * kStatusWords]
  kArgTable = 1,        // the step table (plan.h)
  kArgGlobalArena = 2,  // global memory for the blocks' arenas
  kArgChains = 3,       // the number of chains
  kArgArenaStride = 4,  // bytes of global arena per CUDA block
  kArgSteps = 5,        // the steps of a chain
  kArgOperands = 6,     // then the HBM arrays: prefetch, inputs, outputs
};
// The log of a kernel's prints (jax.debug.print), after the operands in `args`: a cursor (words
// used), the capacity (words), the prints that did not fit, then the records. A record is the
// step (its row of the step table), the print's number in the chain, the instruction's number
// plus one (a zero word: no record), then each operand's elements as stored, every operand padded
// to whole words.
inline constexpr int kLogHeaderWords = 3;
inline constexpr int kPrintHeaderWords = 3;
// The words of one record of `print`.
int64_t PrintRecordWords(const kernel::Function& kernel, const kernel::Instr& print);
// The words an operand of type `t` takes in a record: its elements as stored, in whole words (at
// least one).
int64_t PrintOperandWords(const kernel::ValueType& t);
// The loop bound of a `while_loop` on the device: more iterations are a fault.
inline constexpr int64_t kMaxWhileIterations = int64_t{1} << 31;

// How the warps of a block share a staged tensor-core product's 128 x 128 tile of the result:
// each warp a `rows` x `cols` tile (32 or 64 each), so the block has (128 / rows) * (128 / cols)
// warps. Wider tiles reuse each fragment read from shared memory in more tensor-core products
// and keep more accumulators per thread. 32 x 32 (16 warps) unless PZ_CUDA_WARP_TILE says
// otherwise (WarpTileFromEnvironment).
struct WarpTile {
  int rows = 32, cols = 32;
  int Warps() const { return (128 / rows) * (128 / cols); }
  unsigned Threads() const { return static_cast<unsigned>(32 * Warps()); }
  int MTiles() const { return rows / 16; }  // m16 tiles of the instruction per warp
  int NTiles() const { return cols / 8; }   // n8 tiles
  bool operator==(const WarpTile&) const = default;
};
// "64x32": a warp tile, or nullopt when `text` is not one of 32x32, 32x64, 64x32, 64x64.
std::optional<WarpTile> ParseWarpTile(const std::string& text);
// PZ_CUDA_WARP_TILE when set, else 32 x 32. Throws std::invalid_argument naming the accepted
// values when it is set to anything else.
WarpTile WarpTileFromEnvironment();

struct EmitRequest {
  const kernel::Function* kernel = nullptr;
  const kernel::GridMapping* mapping = nullptr;
  std::string name;             // the CUDA function's name (a C identifier)
  std::string origin;           // "pallas_call `add` at add.py:12", for the comment
  int64_t steps_per_chain = 1;  // the sequential steps of a chain
  int64_t shared_budget = 48 * 1024;
  bool zero_uninitialized = false;  // fresh buffers start as zeros, not poison (RunOptions)
  WarpTile warp_tile;
};

struct EmittedKernel {
  std::string name;
  std::string source;  // the kernel function and its constant tables
  int64_t shared_bytes = 0;
  int64_t global_bytes = 0;  // per CUDA block
  bool arena_in_shared = false;
  int64_t direct_operands = 0;  // pipelined operands read and written in HBM (no block buffer)
  // Threads per CUDA block on a GPU (the kernel's __launch_bounds__): 1024, or 512 for kernels
  // with products, whose tiles keep more registers; a kernel whose staged products are all
  // tensor-core products gets the threads of its warp tile (WarpTile::Threads).
  unsigned threads = 1024;
  // Some product multiplies 16-bit floats (tensor cores on sm_80 and later).
  bool tensor_products = false;
  // Some product stages tiles of its operands in shared memory (on sm_80 and later, with
  // `threads` threads).
  bool staged_products = false;
  // Some tensor-core product does, with warps of `warp_tile` (false where the kernel's threads
  // are the staged float32 form's 512 and the warp tile asks for others).
  bool tensor_staged = false;
  WarpTile warp_tile;
  // Some instruction draws random numbers: the unit needs RandomPrelude() (prelude.h).
  bool random = false;
  // The index in `args` of the print log (kLogHeaderWords), or -1 when the kernel prints nothing.
  int64_t log_arg = -1;
  // Instructions in the numbering the status rows use (pre-order).
  std::vector<const kernel::Instr*> instrs;
  // Row layout of the step table (plan.h).
  TableLayout layout;
};

// Writes the kernel for one call. Throws Unmappable for what has no CUDA mapping.
EmittedKernel EmitKernel(const EmitRequest& request);

// One translation unit: the prelude, then the kernels.
std::string AssembleUnit(const std::vector<const EmittedKernel*>& kernels);

// "pz_add_kernel_0": a C identifier from a call's name and its number in the program.
std::string KernelName(const std::string& call_name, int serial);

}  // namespace pz::cuda
