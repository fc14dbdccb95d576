// libFuzzer target for the front end: any bytes go through the lexer, the parser, the AST printer
// and the diagnostic renderer. Crashes, sanitizer reports, leaks and hangs are bugs; diagnostics
// are the expected outcome for most inputs. Build and run: see README.md beside this file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lang/ast_printer.h"
#include "lang/parser.h"
#include "support/check.h"
#include "support/diagnostic.h"
#include "support/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pz::SourceManager sources;
  pz::FileId id = sources.Add("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
  pz::DiagnosticSink sink;
  pz::lang::Module module = pz::lang::ParseModule(sources.Get(id), id, sink);
  std::string printed = pz::lang::PrintAst(module, sources);
  PZ_CHECK(!printed.empty());
  for (const pz::Diagnostic& diagnostic : sink.diagnostics()) {
    PZ_CHECK(diagnostic.span.has_value() && diagnostic.span->begin <= diagnostic.span->end &&
             diagnostic.span->end <= size);
    pz::Render(diagnostic, sources);
  }
  return 0;
}
