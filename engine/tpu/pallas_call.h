// `pl.pallas_call`, the front end: its arguments and operand pytrees, read into the kernel layer's
// call spec and canonicalised into a GridMapping, the kernel traced, the call run on the TPU
// backend, and its report kept in the session (errors at the user's line, warnings, counters,
// output and block records for `check` and diagrams).
#pragma once

#include <string>
#include <vector>

#include "eval/array_object.h"
#include "eval/interpreter.h"
#include "kernel/backend.h"
#include "kernel/grid_mapping.h"
#include "support/diagnostic.h"
#include "tpu/executor.h"
#include "tpu/options.h"

namespace pz::tpu {

struct CallStats {
  std::string name;
  SourceSpan span;
  Counters counters;  // all cores together
  // With `--cores 2` and a split grid: per core, its counters and its steps [first, end).
  std::vector<Counters> core_counters;
  std::vector<std::pair<int64_t, int64_t>> core_steps;
  std::vector<int64_t> grid;
  std::vector<std::string> semantics;  // compiler_params' dimension_semantics (may be empty)
  std::string input_dtype;             // of the first input operand ("" without inputs)
  std::string megacore_note;           // `--cores 2`: what it split, or why one core ran
  std::string backend_summary;         // another backend's report (CallReport::Summary), if any
};

// Where one output array of a pallas_call came from, attached to the array it returned
// (eval::ArrayObject::origin) so `check` can explain a wrong answer block by block.
struct OutputRecord : eval::ArrayOrigin {
  std::string call;  // the pallas_call's name
  SourceSpan call_span;
  std::string operand;  // the kernel's parameter name, e.g. "o_ref"
  std::vector<int64_t> grid;
  std::vector<int64_t> block;  // elements per block along each dimension (1 where squeezed)
  bool blocked = true;         // false when a dimension is not plainly blocked (Element)
  // In pl.ANY: written by the kernel's DMAs, whose common shape (when they have one) is `block`.
  bool dma = false;
  array::Array writer;  // kernel::CallOutcome::writer of this output
  // The kernel's first store (or DMA) into this output, in program order; invalid when none.
  SourceSpan first_write;
  UninitializedRead uninitialized;
  bool uninitialized_is_padding = false;  // the read was of an input block's padding
  bool has_dma_semaphores = false;        // scratch memory may be meant to be filled by DMAs
  Counters counters;                      // the call's work (without its DMA time-line)
  // False when another backend ran the call (`--backend cuda`): `counters` are not measured.
  bool measured = true;
};

// What one pallas_call did with its operands, kept when EmulatorOptions::record_blocks is set:
// its mapping's operands and scratch, and the block indices of every grid step.
struct CallRecord {
  std::string name;
  std::string location;  // "file.py:25", the pallas_call (the file without its directory)
  std::vector<int64_t> grid;
  std::vector<kernel::BlockMapping> operands;  // inputs, then outputs (BlockTrace's order)
  std::vector<kernel::RefType> prefetch;       // scalar-prefetch arrays (whole, in SMEM)
  std::vector<kernel::RefType> scratch;
  kernel::BlockTrace trace;
};

// Per-interpreter state of the emulator: its options, and what the calls left to report.
struct EmulatorSession {
  EmulatorOptions options;
  // The TPU interpret mode set by pltpu.set_tpu_interpret_mode or force_tpu_interpret_mode: an
  // InterpretParams, or None (interpret_mode.h).
  eval::Value interpret_params;
  std::vector<Diagnostic> warnings;  // in the order found
  std::vector<CallStats> stats;      // one per pallas_call run, when options.stats
  // The first kMaxCallRecords calls, when options.record_blocks.
  std::vector<CallRecord> calls;
  static constexpr size_t kMaxCallRecords = 64;
};

// Adds pl.pallas_call (and the kernel layer's modules) to `interp`, configured by `options`.
// Its session lives as long as the interpreter.
EmulatorSession& InstallPallas(eval::Interpreter& interp, const EmulatorOptions& options);
// The session of an interpreter InstallPallas ran on (nullptr otherwise).
EmulatorSession* SessionOf(eval::Interpreter& interp);
// The record of the pallas_call that returned `array`, or nullptr when no pallas_call did (an
// operation on an output makes a new array, with no record).
const OutputRecord* OutputRecordOf(const eval::ArrayObject& array);

}  // namespace pz::tpu
