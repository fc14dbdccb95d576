// The report a pallas_call leaves after it ran: its `--stats` lines and its warnings: output
// elements no grid step wrote, and uninitialised memory (scratch, fresh output blocks, the padding
// of partial input blocks) that reached an output.
#pragma once

#include <string>

#include "kernel/backend.h"
#include "kernel/grid_mapping.h"
#include "kernel/program.h"
#include "tpu/pallas_call.h"
#include "tpu/tpu_backend.h"

namespace pz::tpu {

// Whether `ref` names an input operand: its uninitialised elements are the padding of a block
// that reaches past the end of the array.
bool InputPadding(const kernel::GridMapping& mapping, const std::string& ref);

// Appends the call's warnings to `session.warnings`; `span` is the pallas_call.
void ReportWarnings(const kernel::Function& kernel, const kernel::GridMapping& mapping,
                    const kernel::CallOutcome& outcome, const TpuReport& report, SourceSpan span,
                    EmulatorSession& session);

// The record of the call for EmulatorSession::calls, its trace still empty.
CallRecord RecordCall(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                      const SourceManager& sources);

// The `--stats` lines of one pallas_call (with the DMA time-line when `timeline`).
std::string FormatCallStats(const CallStats& call, const SourceManager& sources, bool timeline);

}  // namespace pz::tpu
