// A step-by-step record of pallas_calls, for `check`'s search for the first place a learner's
// kernel parts from the solution's (course/divergence.h): per call, its configuration, a
// fingerprint of its operands, the contents of its scratch buffers after every grid step and of
// its output blocks when they are written back, which `pl.when` branches ran, and the last
// instruction that wrote each buffer. Recording costs copies of those buffers, so it is only
// turned on (EmulatorOptions::recorder) for the runs that search.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "array/array.h"
#include "kernel/grid_mapping.h"
#include "kernel/ir.h"
#include "support/source.h"

namespace pz::tpu {

// One buffer's contents at the end of a grid step.
struct BufferSnapshot {
  int64_t step = 0;  // linearised grid step
  kernel::RefId ref = -1;
  array::Array data;      // a copy
  SourceSpan last_write;  // the store or DMA that last wrote the buffer (empty: none yet)
  bool written = false;   // a store or DMA wrote the buffer during this step
  // Output blocks: the block index resident, and whether it was written back after this step.
  std::vector<int64_t> block;
  bool written_back = false;
};

// How often one `pl.when` / `lax.cond` took its branches during a call.
struct BranchRecord {
  const kernel::Instr* instr = nullptr;  // the kCond instruction (valid while its program lives)
  SourceSpan span;
  int64_t taken = 0, skipped = 0;  // executions with a true / false condition
  std::vector<bool> taken_at;      // per grid step: taken at least once

  // The last grid step before `step` at which the branch was taken, or -1.
  int64_t LastTakenBefore(int64_t step) const;
};

// Counts the branches of kCond instructions as a kernel runs (ExecContext::branches).
class BranchCounter {
 public:
  void SetStep(int64_t step) { step_ = step; }
  void Count(const kernel::Instr& instr, bool taken);
  std::vector<BranchRecord> Take() { return std::move(records_); }

 private:
  int64_t step_ = 0;
  std::vector<BranchRecord> records_;
  std::unordered_map<const kernel::Instr*, size_t> index_;
};

struct CallRecording {
  kernel::GridMapping mapping;  // its name and span are the pl.pallas_call's
  // The traced kernel (its refs in RefId order; BranchRecord::instr points into it).
  std::shared_ptr<const kernel::Function> kernel;
  // The call's operands: scalar-prefetch arrays, then inputs (arrays are immutable values, so
  // holding them is enough).
  std::vector<array::Array> prefetch, inputs;
  // Per grid step, per blocked operand (inputs then outputs): the block index.
  std::vector<std::vector<std::vector<int64_t>>> blocks;
  std::vector<BufferSnapshot> snapshots;  // in step order
  std::vector<BranchRecord> branches;
  int64_t steps_run = 0;
  bool truncated = false;  // the byte budget ran out: later steps are missing
};

// Where the calls of one program run are recorded.
struct StepRecorder {
  // Snapshot bytes over all calls, after which steps are no longer recorded.
  int64_t budget_bytes = int64_t{256} << 20;
  int64_t used_bytes = 0;
  std::vector<CallRecording> calls;
};

}  // namespace pz::tpu
