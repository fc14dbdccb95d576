// Helpers of the parser tests (parser_test.cpp, parser_errors_test.cpp): parsing a snippet
// into its printed tree or its diagnostics, as "line:col: message" lines.
#pragma once

#include <string>
#include <string_view>

#include "lang/ast_printer.h"
#include "lang/parser.h"

namespace pz::lang::testing {

// Diagnostics as "line:col: message" lines.
inline std::string FormatDiagnostics(const DiagnosticSink& sink, const SourceManager& sources) {
  std::string out;
  for (const Diagnostic& diagnostic : sink.diagnostics()) {
    LineCol at = sources.Get(diagnostic.span->file).Locate(diagnostic.span->begin);
    out +=
        std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + diagnostic.message + "\n";
  }
  return out;
}

// Parses `source` as a file: the PrintAst text, or the diagnostics if there were any.
inline std::string Parse(std::string_view source) {
  SourceManager sources;
  FileId id = sources.Add("test.py", std::string(source));
  DiagnosticSink sink;
  Module module = ParseModule(sources.Get(id), id, sink);
  if (sink.HasErrors()) return FormatDiagnostics(sink, sources);
  return PrintAst(module, sources);
}

// Only the diagnostics of parsing `source` (empty when it parses).
inline std::string Errors(std::string_view source) {
  SourceManager sources;
  FileId id = sources.Add("test.py", std::string(source));
  DiagnosticSink sink;
  ParseModule(sources.Get(id), id, sink);
  return FormatDiagnostics(sink, sources);
}

}  // namespace pz::lang::testing
