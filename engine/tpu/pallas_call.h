// `pl.pallas_call`: argument and spec handling (pytrees, BlockSpecs, grid specs, scalar
// prefetch, scratch, aliases), tracing of the kernel and its index maps, running the call on the
// emulated core, and reporting (errors at the user's line, warnings, counters).
#pragma once

#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "support/diagnostic.h"
#include "tpu/executor.h"
#include "tpu/options.h"

namespace pz::tpu {

struct CallStats {
  std::string name;
  SourceSpan span;
  Counters counters;
};

// Per-interpreter state of the emulator: its options, and what the calls left to report.
struct EmulatorSession {
  EmulatorOptions options;
  std::vector<Diagnostic> warnings;  // in the order found
  std::vector<CallStats> stats;      // one per pallas_call run, when options.stats
};

// Adds pl.pallas_call (and the kernel layer's modules) to `interp`, configured by `options`.
void InstallPallas(eval::Interpreter& interp, const EmulatorOptions& options);
// The session of an interpreter InstallPallas ran on (nullptr otherwise).
EmulatorSession* SessionOf(eval::Interpreter& interp);

}  // namespace pz::tpu
