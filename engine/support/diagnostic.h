// The one Diagnostic type of the engine and its renderer. Library code never prints: it reports
// Diagnostics to a DiagnosticSink (or returns them), and the CLI renders them in one place as
//   file:line:col: error: message
//      14 |     o_ref[...] = x_ref[...] + y
//         |     ^~~~~~~~~~
//   note: ...
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/source.h"

namespace pz {

enum class Severity { kError, kWarning, kNote };

// Which stage found the problem; the CLI maps phases to exit codes.
enum class Phase { kLex, kParse, kRuntime, kTrace, kEmulate, kLint, kUsage, kIo };

// A secondary message, optionally pointing at another place in the source.
struct Note {
  std::string message;
  std::optional<SourceSpan> span;
};

// One frame of a Python-style traceback: the call site (or the failing line for the innermost
// frame) and the name of the function executing there ("<module>" at top level).
struct TraceFrame {
  SourceSpan span;
  std::string function;
};

struct Diagnostic {
  Severity severity = Severity::kError;
  Phase phase = Phase::kRuntime;
  // Lowercase start, no trailing period, code in backticks; a hint follows after "; ".
  std::string message;
  std::optional<SourceSpan> span;
  std::vector<Note> notes;
  // Outermost frame first, as Python prints it. Empty for non-runtime diagnostics.
  std::vector<TraceFrame> traceback;
};

// Collects diagnostics in report order.
class DiagnosticSink {
 public:
  void Report(Diagnostic diagnostic) { diagnostics_.push_back(std::move(diagnostic)); }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  bool HasErrors() const;
  int ErrorCount() const;
  void Clear() { diagnostics_.clear(); }

 private:
  std::vector<Diagnostic> diagnostics_;
};

struct RenderOptions {
  // ANSI colours; the CLI sets this only on a TTY without NO_COLOR.
  bool color = false;
};

// "error", "warning", "note".
const char* SeverityName(Severity severity);

// Renders one diagnostic (traceback, location line, source excerpt with an underline of the whole
// primary span, notes). The result ends with a newline.
std::string Render(const Diagnostic& diagnostic, const SourceManager& sources,
                   const RenderOptions& options = {});

// "path:line:col" for the start of a span, or "<unknown>" for an invalid span.
std::string FormatLocation(SourceSpan span, const SourceManager& sources);
// "file.py:25": the file without its directory, and the line.
std::string ShortLocation(SourceSpan span, const SourceManager& sources);

}  // namespace pz
