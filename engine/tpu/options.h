// Everything that configures the emulated TPU core, in one place (`pallas-puzzles run` flags map
// onto these fields).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/source.h"

namespace pz::kernel {
class Backend;
struct CallWarning;
struct GridMapping;
struct KernelProgram;
struct RunOptions;
struct CallOperands;
}  // namespace pz::kernel

namespace pz::tpu {

struct StepRecorder;
struct Probe;

enum class Semantics {
  // The TPU pipeline machine (default): per-operand VMEM buffers, fetch on block-index change,
  // write-back on change or at the end, outputs never read from HBM, scratch persistent and
  // poisoned; mistakes that silently corrupt results on hardware are errors.
  kTpu,
  // JAX `interpret=True`: every block re-sliced from the full arrays each step and written back
  // each step (so output revisits "work" and input writes persist), out-of-range windows
  // clamped, prefetch writes dropped.
  kInterpret,
};

// When the data of a DMA lands in its destination (`tpu` semantics; `interpret` semantics copies
// at the start, as JAX's interpret=True does).
enum class DmaMode {
  // At the wait that consumes it (JAX's TPU interpret mode default): a kernel that reads a
  // destination without waiting sees stale data, which the race detector also reports.
  kOnWait,
  // At `.start()`, the whole copy at once.
  kEager,
};

struct EmulatorOptions {
  Semantics semantics = Semantics::kTpu;
  // Record the first read of uninitialised memory (poisoned buffers, padding) and report it when
  // an output ends up holding poison. Costs a byte of shadow state per buffer element.
  bool track_uninitialized = true;
  // Grid axes whose points must not pass values to each other in scratch (set by pallas_call for
  // `--lint` and `--emit-cuda`): when one of their coordinates changes, what scratch holds is
  // marked as an earlier point's, and the first read of it is reported (TpuReport::carried). Needs
  // `track_uninitialized`.
  std::vector<int> carry_axes;
  // Hardware lint warnings: block shapes breaking the (8, 128) rule, VMEM use above the budget.
  bool lint = false;
  // Scoped VMEM budget for the lint (bytes); 16 MiB is the default scoped limit on v5e.
  int64_t vmem_budget_bytes = int64_t{16} << 20;
  // Print each kernel's IR when it is traced (`--dump-ir`).
  bool dump_ir = false;
  // Collect per-pallas_call counters (`--stats` prints them).
  bool stats = false;
  // When DMA data lands (`--dma eager|on_wait`).
  DmaMode dma_mode = DmaMode::kOnWait;
  // Fill fresh buffers (scratch, blocks, outputs, run_scoped) with zeros instead of poison
  // (InterpretParams(uninitialized_memory="zero")); nothing is then tracked as uninitialised.
  // Backends read it from kernel::RunOptions, where pallas_call copies it.
  bool zero_uninitialized = false;
  // When set, the grid visits the coordinates of each "parallel" axis in an order shuffled by
  // this seed, as JAX's TPU interpret mode does (InterpretParams: random_seed, or 0 without
  // one): a kernel whose result depends on the order of parallel steps gives another answer.
  std::optional<uint64_t> parallel_order_seed;
  // Record a time-line of DMA starts and waits and semaphore operations per grid step in the
  // counters (`--stats --timeline` prints it).
  bool timeline = false;
  // Record, for each pallas_call, the block index of every blocked operand at every grid step
  // (EmulatorSession::calls; `pallas-puzzles diagram` draws them).
  bool record_blocks = false;
  // TensorCores sharing HBM (`--cores N`, 1 or 2). With 2 (the megacore of TPU v4/v5p) the
  // leading grid axes marked "parallel" in `dimension_semantics` are cut into two contiguous
  // chunks, each run by its own core (own VMEM buffers, scratch, SMEM, semaphores and DMA
  // engine; shared HBM) on its own thread; the megacore race detector then reports HBM elements
  // both cores write, or one core reads while the other writes. `interpret` semantics ignores
  // it, as JAX's interpret=True ignores dimension_semantics.
  int cores = 1;
  // A kernel load past the end of a ref reads poison there instead of being an error
  // (InterpretParams(out_of_bounds_reads="uninitialized")).
  bool out_of_bounds_reads_uninitialized = false;
  // The TPU chip the emulator stands for (`--tpu VERSION`: "v5e", "v5p", ...; tpu_info.h), as
  // pltpu.get_tpu_info() reports it; empty: v5e, or v5p with two cores.
  std::string chip;
  // Runs every pallas_call instead of the emulated TPU when set (`--backend cuda`); the TPU's
  // detectors, counters and options above then do not apply.
  std::shared_ptr<kernel::Backend> backend;
  // When set, every pallas_call runs on one core and records its configuration, operands and
  // buffers step by step there (step_record.h; `check` compares a failing kernel with the
  // solution's this way).
  std::shared_ptr<StepRecorder> recorder;
  // When set, kernels run under this probe (probe.h): a re-run of a failing program that traces
  // where NaN are born or tries comparisons flipped.
  std::shared_ptr<Probe> probe;
  // Called with every traced call before it runs, and how to name a source line ("line 12"):
  // `--emit-cuda` collects the kernels. What it returns the call warns of, as of its backend's.
  std::function<std::vector<kernel::CallWarning>(
      const kernel::KernelProgram&, const kernel::GridMapping&, const kernel::CallOperands&,
      const kernel::RunOptions&)>
      on_trace;
};

}  // namespace pz::tpu
