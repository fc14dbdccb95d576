// libFuzzer target for the kernel pipeline: each input chooses a Pallas program (kernel_program.h)
// that is parsed and run the way `pallas-puzzles run` runs a file (an interpreter with the Pallas
// modules, tracing, the emulated TPU core), with small step, time and memory limits. Exceptions
// and diagnostics are expected outcomes; crashes, sanitizer reports, leaks and hangs are bugs.
// PZ_FUZZ_PRINT=1 writes each program, its command line and its outcome to stderr.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "eval/interpreter.h"
#include "kernel_program.h"
#include "lang/parser.h"
#include "support/check.h"
#include "support/diagnostic.h"
#include "support/source.h"
#include "tpu/call_report.h"
#include "tpu/pallas_call.h"

namespace {

// The fuzzer's bytes as the generator's choices.
class BytesChoices final : public pz::fuzz::Choices {
 public:
  explicit BytesChoices(FuzzedDataProvider& bytes) : bytes_(bytes) {}
  int Pick(int n) override { return bytes_.ConsumeIntegralInRange<int>(0, n - 1); }

 private:
  FuzzedDataProvider& bytes_;
};

bool PrintPrograms() {
  static const bool print = [] {
    const char* value = std::getenv("PZ_FUZZ_PRINT");
    return value != nullptr && std::string(value) == "1";
  }();
  return print;
}

pz::tpu::EmulatorOptions EmulatorFor(const pz::fuzz::KernelRunFlags& flags) {
  return {.semantics = flags.interpret ? pz::tpu::Semantics::kInterpret : pz::tpu::Semantics::kTpu,
          .lint = flags.lint,
          .stats = flags.stats,
          .dma_mode = flags.eager_dma ? pz::tpu::DmaMode::kEager : pz::tpu::DmaMode::kOnWait,
          .cores = flags.two_cores ? 2 : 1};
}

}  // namespace

// Traced kernels get the IR verifier's full type checks here, as in the test suites.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("PZ_CHECK_IR_TYPES", "1", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider provider(data, size);
  BytesChoices choices(provider);
  pz::fuzz::KernelProgram program = pz::fuzz::GenerateKernelProgram(choices);
  bool print = PrintPrograms();
  if (print) {
    std::fprintf(stderr, "# %s\n%s", program.CommandLine("kernel.py").c_str(),
                 program.source.c_str());
  }

  pz::SourceManager sources;
  pz::FileId id = sources.Add("kernel.py", program.source);
  pz::DiagnosticSink sink;
  pz::lang::Module module = pz::lang::ParseModule(sources.Get(id), id, sink);
  // The generator writes only well-formed Python: a syntax error is a bug in the generator.
  for (const pz::Diagnostic& d : sink.diagnostics()) {
    std::fputs(pz::Render(d, sources).c_str(), stderr);
  }
  PZ_CHECK(!sink.HasErrors());

  // Limits far above what a generated program needs (arrays of at most 64K elements, at most
  // 16 grid steps, loops of at most 4 trips), so only a runaway hits them.
  pz::eval::Interpreter interp(sources, {.max_steps = 200'000,
                                         .timeout_seconds = 5.0,
                                         .max_array_bytes = int64_t{64} << 20,
                                         .output = [print](std::string_view text) {
                                           if (print)
                                             std::fwrite(text.data(), 1, text.size(), stderr);
                                         }});
  pz::tpu::EmulatorOptions emulator = EmulatorFor(program.flags);
  pz::tpu::InstallPallas(interp, emulator);
  std::optional<pz::Diagnostic> error = interp.RunModule(std::move(module));

  // Render everything the run reports, as `pallas-puzzles run` does.
  std::string report;
  const pz::tpu::EmulatorSession& session = *pz::tpu::SessionOf(interp);
  for (const pz::Diagnostic& warning : session.warnings) report += pz::Render(warning, sources);
  for (const pz::tpu::CallStats& call : session.stats) {
    report += pz::tpu::FormatCallStats(call, sources, emulator.timeline);
  }
  if (error) report += pz::Render(*error, sources);
  if (print) std::fprintf(stderr, "%s# outcome: %s\n", report.c_str(), error ? "error" : "ran");
  return 0;
}
