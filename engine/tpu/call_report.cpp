#include "tpu/call_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "kernel/carried.h"
#include "tpu/dma.h"
#include "tpu/megacore.h"

namespace pz::tpu {

bool InputPadding(const kernel::GridMapping& mapping, const std::string& ref) {
  for (const kernel::BlockMapping& op : mapping.inputs) {
    if (op.name == ref) return true;
  }
  return false;
}

CallRecord RecordCall(const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
                      const SourceManager& sources) {
  CallRecord record{.name = mapping.name, .grid = mapping.grid, .scratch = mapping.scratch};
  if (mapping.span.valid()) record.location = ShortLocation(mapping.span, sources);
  record.operands = mapping.inputs;
  record.operands.insert(record.operands.end(), mapping.outputs.begin(), mapping.outputs.end());
  for (const kernel::RefType& ref : program.kernel->refs) {
    if (ref.role == kernel::RefRole::kPrefetch) record.prefetch.push_back(ref);
  }
  return record;
}

void ReportWarnings(const kernel::Function& kernel, const kernel::GridMapping& mapping,
                    const kernel::CallOutcome& outcome, const TpuReport& report, SourceSpan span,
                    EmulatorSession& session) {
  for (const kernel::CallWarning& warning : outcome.warnings) {
    Diagnostic d{.severity = Severity::kWarning,
                 .phase = Phase::kEmulate,
                 .message = warning.message,
                 .span = warning.span};
    for (const std::string& note : warning.notes) d.notes.push_back({.message = note});
    session.warnings.push_back(std::move(d));
  }
  // Carries across points of the carry axes that only the run saw: a draw from the core's
  // generator as an earlier point left it, and scratch that the static walks could not see
  // carried (they warn of the others at trace time; the stores that fill it depend on loaded
  // values).
  const CarriedRead& carried = report.carried;
  auto warn_carried = [&](std::string message, std::string note) {
    session.warnings.push_back(Diagnostic{.severity = Severity::kWarning,
                                          .phase = Phase::kEmulate,
                                          .message = std::move(message),
                                          .span = carried.span,
                                          .notes = {{.message = std::move(note)}}});
  };
  std::string at = TupleString(carried.grid_point);
  std::string axes = AxesPhrase(mapping, report.carry_axes);
  // A draw where a point resumes after other points' steps: the static walk tells it (the CUDA
  // backend warns of it at trace time).
  auto resumed_draw = [&] {
    kernel::CarriedDraw draw =
        kernel::DrawCarriedAcrossPoints(kernel, mapping.grid, report.carry_axes);
    return draw.draw != nullptr && draw.resumes;
  };
  if (carried.seen && carried.ref < 0) {
    if (!resumed_draw()) {
      warn_carried(
          fmt::format(
              "pltpu.prng_random_bits at grid step {} draws from the random number generator as "
              "an earlier point of the \"parallel\" {} left it: on the emulated TPU, which runs "
              "every step on one core, these bits go on from that point's seed, but a megacore TPU "
              "(v4, v5p) splits the leading \"parallel\" axes between its two TensorCores, each "
              "with a generator of its own, and the CUDA backend gives each point a generator of "
              "its own, unseeded",
              at, axes),
          std::string(kernel::kCarriedDrawHint));
    }
  } else if (carried.seen &&
             kernel::ScratchCarriedAcrossPoints(kernel, mapping.grid, report.carry_axes).ref !=
                 carried.ref) {
    const std::string& ref = kernel.refs.at(static_cast<size_t>(carried.ref)).name;
    warn_carried(
        fmt::format(
            "scratch `{}` is read at grid step {} where it still holds what an earlier point of "
            "the \"parallel\" {} stored: on the emulated TPU, which runs every step in order, "
            "this read sees that value, but a megacore TPU (v4, v5p) splits the leading "
            "\"parallel\" axes between its two TensorCores and the CUDA backend runs each point "
            "on a CUDA block of its own, each with scratch of its own, and there it sees "
            "something else",
            ref, at, axes),
        fmt::format("this run's data decided it: the stores that fill `{}` did not cover what "
                    "this step reads (a `pl.when` on loaded values, or indices read from "
                    "memory); write all of it at each point before reading it, or mark the axes "
                    "its value flows along \"arbitrary\"",
                    ref));
  }
  for (size_t o = 0; o < mapping.outputs.size(); ++o) {
    const kernel::BlockMapping& op = mapping.outputs[o];
    const array::Array& writer = outcome.writer[o];
    int64_t missing = 0, size = writer.size();
    const int32_t* w = writer.data<int32_t>();
    for (int64_t i = 0; i < size; ++i) missing += w[i] == -1;
    if (missing > 0) {
      // A pipelined output nothing wrote, although the kernel has a store into it: no step ran
      // the store.
      const kernel::Instr* write = nullptr;
      if (missing == writer.size() && op.space != kernel::MemorySpace::kAny) {
        auto ref = static_cast<kernel::RefId>(mapping.prefetch.size() + mapping.inputs.size() + o);
        write = kernel::FirstWriteTo(kernel.body, ref);
      }
      session.warnings.push_back(Diagnostic{
          .severity = Severity::kWarning,
          .phase = Phase::kEmulate,
          .message = fmt::format("{} of {} elements of output {} were never written by any grid "
                                 "step; they hold garbage",
                                 missing, writer.size(), op.name),
          .span = span,
          .notes = {
              {.message = op.space == kernel::MemorySpace::kAny
                              ? fmt::format("`{}` is in pl.ANY, so only DMAs write it: copy "
                                            "into every element, from memory the kernel "
                                            "has written",
                                            op.name)
                          : write != nullptr
                              ? fmt::format("the kernel writes `{}` here, but no grid step "
                                            "ever ran this line: the branch around it was "
                                            "never taken",
                                            op.name)
                          : missing == writer.size()
                              ? fmt::format("the kernel never stores into `{}`; it writes "
                                            "its result with `{}[...] = value`",
                                            op.name, op.name)
                              : "check that the grid covers the whole output (grid = "
                                "pl.cdiv(n, block)) and that the out_specs index map "
                                "reaches every block",
               .span = write != nullptr ? std::optional<SourceSpan>(write->span) : std::nullopt}}});
    }
  }
  if (report.uninitialized.seen) {
    std::string poisoned;
    for (size_t o = 0; o < mapping.outputs.size() && poisoned.empty(); ++o) {
      const array::Array& out = outcome.outputs[o];
      if (!array::IsFloating(out.dtype())) continue;
      for (int64_t i = 0; i < out.size(); ++i) {
        if (std::isnan(out.GetDouble(i))) {
          poisoned = mapping.outputs[o].name;
          break;
        }
      }
    }
    if (!poisoned.empty()) {
      session.warnings.push_back(Diagnostic{
          .severity = Severity::kWarning,
          .phase = Phase::kEmulate,
          .message = fmt::format("read of uninitialised memory from {} (first in grid step {}); "
                                 "output {} holds NaN",
                                 report.uninitialized.ref,
                                 TupleString(report.uninitialized.grid_point), poisoned),
          .span = report.uninitialized.span,
          .notes = {{.message = InputPadding(mapping, report.uninitialized.ref)
                                    ? "this input block reaches past the end of the array; the "
                                      "rows or columns beyond it are garbage: mask them (e.g. "
                                      "`jnp.where` on a `lax.broadcasted_iota` of the global "
                                      "index) before they reach the result; a read masked with "
                                      "the right bound is harmless, look for one that is not "
                                      "masked or whose mask is off"
                                : std::any_of(mapping.outputs.begin(), mapping.outputs.end(),
                                              [&](const kernel::BlockMapping& out) {
                                                return out.name == report.uninitialized.ref;
                                              })
                                    ? "output blocks are never loaded from HBM: they start as "
                                      "garbage (NaN here); initialise them before reading, e.g. "
                                      "under `@pl.when(pl.program_id(axis) == 0)`, or, where the "
                                      "read keeps rows that another step writes (a masked "
                                      "store), check that the mask selects the right rows"
                                    : "output blocks and scratch are never loaded from HBM: they "
                                      "start as garbage (NaN here); initialise them before "
                                      "reading, e.g. under `@pl.when(pl.program_id(axis) == "
                                      "0)`"}}});
    }
  }
}

std::string FormatCallStats(const CallStats& call, const SourceManager& sources, bool timeline) {
  const Counters& c = call.counters;
  if (!call.backend_summary.empty()) {
    return fmt::format("stats: pallas_call {} ({}): {}", call.name,
                       FormatLocation(call.span, sources), call.backend_summary);
  }
  // HBM traffic counts the kernel's DMAs to and from `pl.ANY` refs too; their share is named.
  auto [dma_read, dma_written] = DmaHbmBytes(c);
  auto of_which = [](int64_t bytes) {
    return bytes > 0 ? fmt::format(" ({} B by DMAs)", bytes) : std::string();
  };
  std::string out = fmt::format(
      "stats: pallas_call {} ({}): {} grid steps, HBM read {} B{}, HBM written {} B{}, {} flops, "
      "{} transcendentals, VMEM {} B (blocks double-buffered + scratch)\n",
      call.name, FormatLocation(call.span, sources), c.grid_steps, c.hbm_bytes_read,
      of_which(dma_read), c.hbm_bytes_written, of_which(dma_written), c.flops, c.transcendentals,
      c.vmem_high_water);
  auto line_of = [&](SourceSpan s) {
    return std::to_string(sources.Get(s.file).Locate(s.begin).line);
  };
  if (!call.megacore_note.empty()) out += "stats:   megacore: " + call.megacore_note + "\n";
  for (size_t k = 0; k < call.core_counters.size(); ++k) {
    const Counters& core = call.core_counters[k];
    const auto& [first, end] = call.core_steps[k];
    out += fmt::format(
        "stats:   core {}: {} grid steps{}, HBM read {} B, HBM written {} B, {} flops{}\n", k,
        core.grid_steps,
        first < end ? fmt::format(" {} to {}", TupleString(UnravelIndex(first, call.grid)),
                                  TupleString(UnravelIndex(end - 1, call.grid)))
                    : "",
        core.hbm_bytes_read, core.hbm_bytes_written, core.flops,
        core.dma_count ? fmt::format(", {} DMAs", core.dma_count) : "");
  }
  return out + FormatDmaStats(c, timeline, line_of);
}

}  // namespace pz::tpu
