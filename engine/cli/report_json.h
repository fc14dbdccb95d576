// `--json` forms of what a run found: check reports and diagnostics as objects, located by file,
// line and column (the run's values, rendered here and nowhere else).
#pragma once

#include <nlohmann/json.hpp>

#include "course/check_report.h"
#include "course/runner.h"
#include "support/diagnostic.h"

namespace pz::cli {

nlohmann::json DiagnosticJson(const Diagnostic& diagnostic, const SourceManager& sources);
nlohmann::json CheckJson(const course::CheckReport& check, const SourceManager& sources);
// Every check and every diagnostic of `run`: {"checks": [...], "problems": [...]}.
nlohmann::json RunFindingsJson(const course::PuzzleRun& run);

}  // namespace pz::cli
