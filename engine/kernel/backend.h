// The one interface between `pl.pallas_call` and what runs a kernel: a Backend takes a
// KernelProgram, its GridMapping and the operand arrays, and returns the outputs with a report.
// `tpu` implements it (the emulated TensorCore: pipeline, executor, DMA engine, megacore); a
// CUDA backend implements the same.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "array/array.h"
#include "kernel/grid_mapping.h"
#include "kernel/program.h"
#include "support/diagnostic.h"
#include "support/source.h"

namespace pz::kernel {

// The block index of every operand (inputs, then outputs) at each grid step of one call, as a
// backend computed it from the index maps; recorded when RunOptions::blocks is set.
struct BlockTrace {
  int64_t total_steps = 0;  // the grid's size; `steps` holds at most kMaxSteps of them
  // steps[t][k]: the block index of operand k at grid step t (for kElement dimensions, the
  // element offset the index map returned).
  std::vector<std::vector<std::vector<int64_t>>> steps;
  // The step and operand at which the backend stopped the call (an out-of-range block index,
  // an output revisit), with the error's message; -1 when it did not.
  int64_t failed_step = -1;
  int failed_operand = -1;
  std::string failure;
  // Enough for every course diagram; a longer grid is recorded in part.
  static constexpr int64_t kMaxSteps = 4096;
};

// The operand arrays of a call, in the mapping's order.
struct CallOperands {
  std::vector<array::Array> prefetch;  // one per GridMapping::prefetch
  std::vector<array::Array> inputs;    // one per GridMapping::inputs
};

struct RunOptions {
  // Called once per grid step and loop iteration; may throw to stop a runaway kernel.
  std::function<void()> tick;
  // "line 12" for a span, in messages that name a second place (DMA diagnostics).
  std::function<std::string(SourceSpan)> line_of;
  // When set, the block indices of every step are recorded there as they are used (also when
  // the call fails).
  BlockTrace* blocks = nullptr;
  // Fresh memory (output blocks, scratch, run_scoped buffers, unaliased outputs) starts as zeros
  // instead of poison (InterpretParams(uninitialized_memory="zero")).
  bool zero_uninitialized = false;
};

// A mistake a backend found while running a kernel (an out-of-range block, a race, an
// uninitialised read...), at an instruction, a BlockSpec or the call; raised as a Python
// exception of `kind` by the caller.
struct CallError {
  enum class Kind { kIndexError, kValueError, kRuntimeError, kTypeError };
  Kind kind = Kind::kRuntimeError;
  std::string message;
  SourceSpan span;
  std::vector<std::string> notes;
  // Notes at another place in the source, rendered before `notes`.
  std::vector<Note> related;
};

// What a backend reports about a call besides its outputs (counters, detector findings); each
// backend derives its own.
class CallReport {
 public:
  virtual ~CallReport() = default;
  // Lines for `--stats` ("" when the caller formats the report itself, as for the TPU's).
  virtual std::string Summary() const { return {}; }
};

// What a backend warns of while running a kernel that still ran (shown as a warning at `span`).
struct CallWarning {
  std::string message;
  SourceSpan span;
  std::vector<std::string> notes;
};

struct CallOutcome {
  std::vector<array::Array> outputs;  // one per GridMapping::outputs
  // Per output: int32 per element, the linearised grid step (row-major over the grid) whose
  // write-back last stored it; -1 where none did (the element is garbage), -2 where it still
  // holds the aliased input's value.
  std::vector<array::Array> writer;
  std::unique_ptr<CallReport> report;
  std::vector<CallWarning> warnings;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Runs the call. Throws CallError for mistakes the backend detects; exceptions from calls
  // back into the interpreter (Python errors) and from RunOptions::tick pass through.
  virtual CallOutcome Run(const KernelProgram& program, const GridMapping& mapping,
                          const CallOperands& operands, const RunOptions& options) = 0;
};

}  // namespace pz::kernel
