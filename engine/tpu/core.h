// One emulated TensorCore running its share of a pallas_call's grid: the grid loop over the HBM
// <-> VMEM pipeline of blocked operands (pallas-semantics.md §3.2 in `tpu` semantics, §3.4
// HLO-interp in `interpret` semantics), scratch and scalar-prefetch SMEM, and the checks that turn
// silent hardware misbehaviour into errors. tpu_backend.cpp runs one core, megacore.cpp several.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "array/array.h"
#include "kernel/backend.h"
#include "kernel/grid_mapping.h"
#include "kernel/program.h"
#include "support/source.h"
#include "tpu/executor.h"
#include "tpu/options.h"
#include "tpu/step_record.h"

namespace pz::tpu {

// What a run of the call (one core's, or the cores' merged) produced.
struct CallResult {
  std::vector<array::Array> outputs;
  // Per output: kernel::CallOutcome::writer.
  std::vector<array::Array> writer;
  Counters counters;
  UninitializedRead uninitialized;
  CarriedRead carried;
  // Per output in pl.ANY: the block shape of the DMAs that wrote it, when they all wrote boxes of
  // one shape at multiples of it (so `check` can draw a block map); empty otherwise.
  std::vector<std::vector<int64_t>> dma_blocks;
  // With more than one core: each core's counters (`counters` holds their sums) and its range
  // of linearised grid steps [first, end).
  std::vector<Counters> core_counters;
  std::vector<std::pair<int64_t, int64_t>> core_steps;
  // With `--cores 2`: which axes the cores split (SplitNote), or why the run used one core.
  std::string megacore_note;
};

// Which part of the grid a core runs and how.
struct CoreSpec {
  int core = 0;
  int64_t first = 0, end = 0;  // linearised grid steps [first, end)
  // Record HBM accesses (CoreResult::access) for the race check.
  bool track_hbm = false;
  // Serialises calls back into the interpreter (jax.debug.print, the step `tick`) when
  // cores run on threads; null with one core.
  std::mutex* callbacks = nullptr;
  // Records the block indices of every step (RunOptions::blocks); only with one core.
  kernel::BlockTrace* trace = nullptr;
  // Records the buffers after every step (EmulatorOptions::recorder) into `recording`, within
  // the recorder's byte budget; only with one core.
  StepRecorder* recorder = nullptr;
  CallRecording* recording = nullptr;
};

// The HBM elements one core touched. HBM buffers are numbered outputs first, then the inputs
// that are not aliased to an output (an aliased input is its output's buffer; HbmBufferOf).
// Per buffer an int32 stamp per element (an empty array where the core never touched it):
// -1 untouched; >= 0 the last linearised grid step whose write-back (fetch) reached it; <= -2 a
// DMA, dmas[-stamp - 2].
struct HbmAccess {
  struct Dma {
    int64_t step = 0;
    SourceSpan span;
  };
  std::vector<array::Array> writes, reads;
  std::vector<Dma> dmas;
};
int HbmBufferOf(const kernel::GridMapping& mapping, bool is_output, size_t index);
int NumHbmBuffers(const kernel::GridMapping& mapping);

struct CoreResult {
  CallResult result;
  HbmAccess access;
};

// Runs the steps of `core` (its own VMEM, SMEM, scratch, semaphores and DMA engine; private
// copies of the HBM arrays, merged by the caller). Throws EmulationError for emulator-detected
// mistakes; exceptions from debug prints (Python errors) and from `run.tick` pass through.
CoreResult RunCore(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                   const kernel::CallOperands& operands, const EmulatorOptions& options,
                   const kernel::RunOptions& run, const CoreSpec& core);

}  // namespace pz::tpu
