#include "course/runner.h"

#include <fmt/format.h>

#include <algorithm>

#include "lang/parser.h"
#include "support/diagnostic.h"
#include "tpu/call_report.h"
#include "tpu/pallas_call.h"

namespace pz::course {

int PuzzleRun::exit_code() const {
  switch (status) {
    case RunStatus::kPassed:
      return 0;
    case RunStatus::kFailed:
    case RunStatus::kNoChecks:
      return 1;
    case RunStatus::kSyntaxError:
    case RunStatus::kTraceError:
      return 65;
    case RunStatus::kRuntimeError:
      return 70;
    case RunStatus::kIoError:
      return 74;
  }
  return 70;
}

std::string_view StatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kPassed:
      return "passed";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kNoChecks:
      return "no-checks";
    case RunStatus::kSyntaxError:
      return "syntax-error";
    case RunStatus::kTraceError:
      return "trace-error";
    case RunStatus::kRuntimeError:
      return "runtime-error";
    case RunStatus::kIoError:
      return "io-error";
  }
  return "unknown";
}

PuzzleRun RunFile(const std::filesystem::path& file, const RunOptions& options,
                  SourceManager* keep_sources) {
  PuzzleRun run;
  SourceManager own_sources;
  SourceManager& sources = keep_sources != nullptr ? *keep_sources : own_sources;
  std::optional<FileId> id = options.source
                                 ? std::optional(sources.Add(file.string(), *options.source))
                                 : sources.Load(file.string());
  if (!id) {
    run.status = RunStatus::kIoError;
    run.error = fmt::format("cannot read {}", file.string());
    run.diagnostics = run.error + "\n";
    return run;
  }
  RenderOptions render{.color = options.color};
  DiagnosticSink sink;
  lang::Module module = lang::ParseModule(sources.Get(*id), *id, sink);
  for (const Diagnostic& d : sink.diagnostics()) run.diagnostics += Render(d, sources, render);
  if (sink.HasErrors()) {
    int errors = sink.ErrorCount();
    run.diagnostics += fmt::format("{} error{}; nothing was run\n", errors, errors == 1 ? "" : "s");
    run.status = RunStatus::kSyntaxError;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.severity == Severity::kError) {
        run.error = d.message;
        break;
      }
    }
    return run;
  }
  eval::InterpreterOptions limits = options.interpreter;
  limits.output = [&run, &options](std::string_view text) {
    run.output += text;
    if (options.output) options.output(text);
  };
  eval::Interpreter interpreter(sources, limits);
  tpu::InstallPallas(interpreter, options.emulator);
  InstallHarness(interpreter);
  std::optional<Diagnostic> error = interpreter.RunModule(std::move(module));
  const tpu::EmulatorSession& session = *tpu::SessionOf(interpreter);
  // A warning repeated by later calls (the same place and advice; counts in the message may
  // differ) is printed once, with how often it recurred.
  std::vector<const Diagnostic*> shown;
  std::vector<int> repeats;
  for (const Diagnostic& warning : session.warnings) {
    auto same = std::find_if(shown.begin(), shown.end(), [&](const Diagnostic* d) {
      if (!(d->span == warning.span) || d->notes.size() != warning.notes.size()) return false;
      for (size_t i = 0; i < d->notes.size(); ++i) {
        if (d->notes[i].message != warning.notes[i].message) return false;
      }
      return true;
    });
    if (same != shown.end()) {
      ++repeats[static_cast<size_t>(same - shown.begin())];
      continue;
    }
    shown.push_back(&warning);
    repeats.push_back(0);
  }
  // --strict: every warning is an error, and the run fails with the first of them.
  std::optional<Diagnostic> first_strict;
  auto render_warning = [&](Diagnostic warning) {
    if (options.strict) {
      warning.severity = Severity::kError;
      warning.notes.push_back({.message = "a warning, made an error by --strict"});
      if (!first_strict) first_strict = warning;
    }
    run.diagnostics += Render(warning, sources, render);
  };
  for (size_t i = 0; i < shown.size(); ++i) {
    Diagnostic warning = *shown[i];
    if (repeats[i] > 0) {
      warning.notes.push_back(
          {.message = fmt::format("the same warning came from {} later pallas_call{}", repeats[i],
                                  repeats[i] == 1 ? "" : "s")});
    }
    render_warning(std::move(warning));
  }
  for (const Diagnostic& warning : interpreter.warnings()) render_warning(warning);
  if (options.stats_in_diagnostics) {
    for (const tpu::CallStats& call : session.stats) {
      run.diagnostics += tpu::FormatCallStats(call, sources, options.emulator.timeline);
    }
  }
  for (const Diagnostic& warning : session.warnings) {
    if (warning.phase == Phase::kLint) run.lint.push_back(warning);
  }
  run.stats = std::move(tpu::SessionOf(interpreter)->stats);
  run.checks = HarnessOf(interpreter)->checks;
  run.calls = std::move(tpu::SessionOf(interpreter)->calls);
  if (error) {
    run.diagnostics += Render(*error, sources, render);
    run.error = error->message;
    run.status = error->phase == Phase::kTrace ? RunStatus::kTraceError : RunStatus::kRuntimeError;
    return run;
  }
  if (first_strict) {
    run.error = first_strict->message;
    run.status = RunStatus::kRuntimeError;
    return run;
  }
  bool all = !run.checks.empty();
  for (const CheckOutcome& c : run.checks) all &= c.passed;
  run.status = run.checks.empty() ? RunStatus::kNoChecks
               : all              ? RunStatus::kPassed
                                  : RunStatus::kFailed;
  return run;
}

}  // namespace pz::course
