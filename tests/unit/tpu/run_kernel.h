// Test helper: runs a Python-subset program with pl.pallas_call installed (as `pallas-puzzles run`
// does) and returns what it printed, the error (if any), the emulator's warnings and its
// per-call counters.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/interpreter.h"
#include "lang/parser.h"
#include "tpu/pallas_call.h"

namespace pz::tpu::testing {

// The imports every kernel program needs, prepended to the programs of the tests (so line
// numbers in them are offset by kPreludeLines).
inline constexpr std::string_view kPrelude =
    "import functools\n"
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from jax import lax\n"
    "from jax.experimental import pallas as pl\n"
    "from jax.experimental.pallas import tpu as pltpu\n";
inline constexpr int kPreludeLines = 6;

struct KernelRun {
  std::string output;                // everything print() / jax.debug.print wrote
  std::optional<Diagnostic> error;   // the error the program stopped with
  std::string error_message;         // its message ("" when the program succeeded)
  std::string rendered;              // the rendered error and warnings
  std::vector<Diagnostic> warnings;  // the emulator's warnings, in order
  std::vector<CallStats> stats;      // one per pallas_call run
  std::vector<CallRecord> calls;     // with options.record_blocks: the recorded calls
  int error_line = 0;                // line of the error in the program (prelude excluded)

  // The counters of the only (or the `index`th) pallas_call.
  const Counters& counters(size_t index = 0) const { return stats.at(index).counters; }
  // All warning messages, one per line.
  std::string WarningText() const {
    std::string s;
    for (const Diagnostic& d : warnings) s += d.message + "\n";
    return s;
  }
};

// A program with one call: grid (4,), an SMEM scratch counter set to 0 at step 0 and incremented
// every step, each output element x * 100 + the counter; prints [1, 102, 203, 304].
inline constexpr std::string_view kCounterProgram = R"(
def counter(x_ref, o_ref, count_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        count_ref[0] = 0

    count_ref[0] = count_ref[0] + 1
    o_ref[...] = x_ref[...] * 100 + count_ref[0]


x = jnp.arange(4, dtype=jnp.int32)
spec = pl.BlockSpec((1,), lambda i: (i,))
out = pl.pallas_call(counter, out_shape=jax.ShapeDtypeStruct((4,), jnp.int32), grid=(4,),
                     in_specs=[spec], out_specs=spec,
                     scratch_shapes=[pltpu.SMEM((1,), jnp.int32)])(x)
print(out.tolist())
)";

inline EmulatorOptions Tpu() {
  return EmulatorOptions{.semantics = Semantics::kTpu, .stats = true};
}
inline EmulatorOptions Interpret() {
  return EmulatorOptions{.semantics = Semantics::kInterpret, .stats = true};
}

inline KernelRun RunKernelProgram(std::string_view program, EmulatorOptions options = Tpu(),
                                  eval::InterpreterOptions interp_options = {}) {
  KernelRun result;
  SourceManager sources;
  FileId id = sources.Add("test.py", std::string(kPrelude) + std::string(program));
  DiagnosticSink sink;
  lang::Module module = lang::ParseModule(sources.Get(id), id, sink);
  if (sink.HasErrors()) {
    result.error = sink.diagnostics().front();
    result.error_message = result.error->message;
    for (const Diagnostic& d : sink.diagnostics()) result.rendered += Render(d, sources);
    return result;
  }
  interp_options.output = [&](std::string_view text) { result.output += text; };
  eval::Interpreter interp(sources, interp_options);
  InstallPallas(interp, options);
  result.error = interp.RunModule(std::move(module));
  EmulatorSession* session = SessionOf(interp);
  result.warnings = session->warnings;
  result.stats = session->stats;
  result.calls = session->calls;
  for (const Diagnostic& w : result.warnings) result.rendered += Render(w, sources);
  if (result.error) {
    result.error_message = result.error->message;
    if (result.error->span) {
      result.error_line = sources.Get(id).Locate(result.error->span->begin).line - kPreludeLines;
    }
    result.rendered += Render(*result.error, sources);
  }
  return result;
}

// Output of a program that must succeed without warnings; the rendered diagnostics otherwise
// (so that a failure is readable).
inline std::string KernelOutput(std::string_view program, EmulatorOptions options = Tpu()) {
  KernelRun r = RunKernelProgram(program, options);
  if (r.error || !r.warnings.empty()) return r.output + "ERROR/WARNING: " + r.rendered;
  return r.output;
}

}  // namespace pz::tpu::testing
