#include "cli/report_json.h"

namespace pz::cli {

using nlohmann::json;

namespace {

// {"file", "line", "column"} of a span; null for none.
json LocationJson(std::optional<SourceSpan> span, const SourceManager& sources) {
  if (!span || !span->valid()) return nullptr;
  const SourceFile& file = sources.Get(span->file);
  LineCol at = file.Locate(span->begin);
  return {{"file", file.path()}, {"line", at.line}, {"column", at.col}};
}

}  // namespace

json DiagnosticJson(const Diagnostic& d, const SourceManager& sources) {
  json notes = json::array();
  for (const Note& note : d.notes) {
    notes.push_back({{"message", note.message}, {"at", LocationJson(note.span, sources)}});
  }
  return {{"severity", SeverityName(d.severity)},
          {"message", d.message},
          {"at", LocationJson(d.span, sources)},
          {"notes", notes}};
}

json CheckJson(const course::CheckReport& c, const SourceManager& sources) {
  json mismatch = nullptr;
  if (c.first_mismatch) {
    mismatch = {{"index", c.first_mismatch->index},
                {"block", c.first_mismatch->block},
                {"expected", c.first_mismatch->expected},
                {"got", c.first_mismatch->got}};
  }
  json map = nullptr;
  if (!c.block_map.empty() || !c.block_map_shown_in.empty()) {
    map = {{"operand", c.block_map_operand},
           {"lines", c.block_map},
           {"same_as_check",
            c.block_map_shown_in.empty() ? json(nullptr) : json(c.block_map_shown_in)}};
  }
  return {{"name", c.name},
          {"status", std::string(course::StatusWord(c.status))},
          {"passed", c.passed()},
          {"values", c.values},
          {"at", LocationJson(c.span, sources)},
          {"summary", c.summary},
          {"lines", c.lines},
          {"first_mismatch", mismatch},
          {"block_map", map},
          {"provenance", c.provenance},
          {"nonfinite", c.nonfinite}};
}

json RunFindingsJson(const course::PuzzleRun& run) {
  json checks = json::array();
  json problems = json::array();
  if (run.sources != nullptr) {
    for (const course::CheckReport& c : run.checks) checks.push_back(CheckJson(c, *run.sources));
    for (const auto* list : {&run.warnings, &run.errors}) {
      for (const Diagnostic& d : *list) problems.push_back(DiagnosticJson(d, *run.sources));
    }
  }
  return {{"checks", checks}, {"problems", problems}};
}

}  // namespace pz::cli
