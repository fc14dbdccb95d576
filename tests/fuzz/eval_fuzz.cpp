// libFuzzer target for the evaluator: inputs that parse are run with small step and time limits,
// so every program ends (with output or a diagnostic) and nothing crashes, leaks or hangs. Build
// and run: see README.md beside this file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "eval/interpreter.h"
#include "lang/parser.h"
#include "support/diagnostic.h"
#include "support/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pz::SourceManager sources;
  pz::FileId id = sources.Add("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
  pz::DiagnosticSink sink;
  pz::lang::Module module = pz::lang::ParseModule(sources.Get(id), id, sink);
  if (sink.HasErrors()) return 0;
  // Small limits keep each input fast; the file system is off limits (np.save/np.load would
  // write wherever the fuzzer points them), so inputs mentioning them are skipped.
  std::string text(reinterpret_cast<const char*>(data), size);
  if (text.find("save") != std::string::npos || text.find("load") != std::string::npos) return 0;
  pz::eval::Interpreter interp(sources, {.max_steps = 20000, .timeout_seconds = 2.0});
  if (std::optional<pz::Diagnostic> error = interp.RunModule(std::move(module))) {
    pz::Render(*error, sources);
  }
  return 0;
}
