// Test helper: runs a Python-subset program in a fresh Interpreter and returns what it printed,
// or the rendered diagnostics when it fails to parse or raises.
#pragma once

#include <string>
#include <string_view>

#include "eval/interpreter.h"
#include "lang/parser.h"

namespace pz::eval::testing {

struct RunResult {
  std::string output;    // everything print() wrote
  std::string error;     // the first error's message ("" when the program succeeded)
  std::string rendered;  // the full rendered diagnostic(s)
  int error_line = 0;    // line of the first error's primary span
};

inline RunResult RunProgram(std::string_view program, InterpreterOptions options = {}) {
  RunResult result;
  SourceManager sources;
  FileId id = sources.Add("test.py", std::string(program));
  DiagnosticSink sink;
  lang::Module module = lang::ParseModule(sources.Get(id), id, sink);
  auto record = [&](const Diagnostic& d) {
    if (result.error.empty()) {
      result.error = d.message;
      if (d.span) result.error_line = sources.Get(id).Locate(d.span->begin).line;
    }
    result.rendered += Render(d, sources);
  };
  if (sink.HasErrors()) {
    for (const Diagnostic& d : sink.diagnostics()) record(d);
    return result;
  }
  options.output = [&](std::string_view text) { result.output += text; };
  Interpreter interp(sources, options);
  if (std::optional<Diagnostic> error = interp.RunModule(std::move(module))) record(*error);
  return result;
}

// Output of a program that must succeed; the error text otherwise (so a failure is readable).
inline std::string Output(std::string_view program) {
  RunResult r = RunProgram(program);
  return r.error.empty() ? r.output : "ERROR: " + r.rendered;
}

}  // namespace pz::eval::testing
