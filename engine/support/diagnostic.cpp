// Rendering of Diagnostics: the only place the engine turns a problem into text.
#include "support/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace pz {
namespace {

constexpr const char* kReset = "\x1b[0m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kRed = "\x1b[1;31m";
constexpr const char* kYellow = "\x1b[1;33m";
constexpr const char* kCyan = "\x1b[1;36m";
constexpr const char* kBlue = "\x1b[1;34m";

const char* SeverityColor(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return kRed;
    case Severity::kWarning:
      return kYellow;
    case Severity::kNote:
      return kCyan;
  }
  return kRed;
}

// Appends the source line of `span` with a gutter and an underline covering the span (clipped to
// its first line).
void AppendExcerpt(std::string& out, SourceSpan span, const SourceManager& sources,
                   const RenderOptions& options) {
  const SourceFile& file = sources.Get(span.file);
  LineCol start = file.Locate(span.begin);
  std::string_view line = file.Line(start.line);
  std::string gutter = fmt::format("{:>5}", start.line);
  std::string blank(gutter.size(), ' ');
  const char* blue = options.color ? kBlue : "";
  const char* reset = options.color ? kReset : "";
  out += fmt::format("{}{} |{} {}\n", blue, gutter, reset, line);

  // Underline: reuse tabs from the source line so the caret lines up in any tab width.
  uint32_t line_start = file.LineStart(start.line);
  uint32_t line_end = line_start + static_cast<uint32_t>(line.size());
  uint32_t begin = std::clamp(span.begin, line_start, line_end);
  uint32_t end = std::clamp(std::max(span.end, span.begin), begin, line_end);
  std::string marks;
  for (uint32_t i = line_start; i < begin; ++i) {
    char c = file.text()[i];
    if (c == '\t') {
      marks += '\t';
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      marks += ' ';
    }
  }
  int width = 0;
  for (uint32_t i = begin; i < end; ++i) {
    if ((static_cast<unsigned char>(file.text()[i]) & 0xC0) != 0x80) ++width;
  }
  std::string underline = "^" + std::string(width > 1 ? width - 1 : 0, '~');
  const char* mark_color = options.color ? kRed : "";
  out +=
      fmt::format("{}{} |{} {}{}{}{}\n", blue, blank, reset, marks, mark_color, underline, reset);
}

}  // namespace

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

bool DiagnosticSink::HasErrors() const { return ErrorCount() > 0; }

int DiagnosticSink::ErrorCount() const {
  return static_cast<int>(
      std::count_if(diagnostics_.begin(), diagnostics_.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::kError; }));
}

std::string FormatLocation(SourceSpan span, const SourceManager& sources) {
  if (!span.valid()) return "<unknown>";
  const SourceFile& file = sources.Get(span.file);
  LineCol lc = file.Locate(span.begin);
  return fmt::format("{}:{}:{}", file.path(), lc.line, lc.col);
}

std::string ShortLocation(SourceSpan span, const SourceManager& sources) {
  if (!span.valid()) return "<unknown>";
  const SourceFile& file = sources.Get(span.file);
  return fmt::format("{}:{}", std::filesystem::path(file.path()).filename().string(),
                     file.Locate(span.begin).line);
}

std::string Render(const Diagnostic& diagnostic, const SourceManager& sources,
                   const RenderOptions& options) {
  std::string out;
  const char* bold = options.color ? kBold : "";
  const char* reset = options.color ? kReset : "";

  if (!diagnostic.traceback.empty()) {
    out += "Traceback (most recent call last):\n";
    for (const TraceFrame& frame : diagnostic.traceback) {
      if (!frame.span.valid()) {
        out += fmt::format("  in {}\n", frame.function);
        continue;
      }
      const SourceFile& file = sources.Get(frame.span.file);
      LineCol lc = file.Locate(frame.span.begin);
      out += fmt::format("  File \"{}\", line {}, in {}\n", file.path(), lc.line, frame.function);
      std::string_view line = file.Line(lc.line);
      size_t first = line.find_first_not_of(" \t");
      if (first != std::string_view::npos) out += fmt::format("    {}\n", line.substr(first));
    }
  }

  const char* sev_color = options.color ? SeverityColor(diagnostic.severity) : "";
  std::string where = diagnostic.span && diagnostic.span->valid()
                          ? FormatLocation(*diagnostic.span, sources) + ": "
                          : std::string();
  out += fmt::format("{}{}{}{}: {}{}{}{}\n", bold, where, sev_color,
                     SeverityName(diagnostic.severity), reset, bold, diagnostic.message, reset);
  if (diagnostic.span && diagnostic.span->valid()) {
    AppendExcerpt(out, *diagnostic.span, sources, options);
  }
  for (const Note& note : diagnostic.notes) {
    const char* cyan = options.color ? kCyan : "";
    if (note.span && note.span->valid()) {
      out += fmt::format("{}: {}note:{} {}\n", FormatLocation(*note.span, sources), cyan, reset,
                         note.message);
      AppendExcerpt(out, *note.span, sources, options);
    } else {
      out += fmt::format("{}note:{} {}\n", cyan, reset, note.message);
    }
  }
  return out;
}

}  // namespace pz
