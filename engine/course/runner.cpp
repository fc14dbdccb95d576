#include "course/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "course/eager_record.h"
#include "course/session.h"
#include "lang/parser.h"
#include "support/diagnostic.h"
#include "tpu/call_report.h"
#include "tpu/pallas_call.h"
#include "tpu/probe.h"

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

namespace {

std::string Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.8g}", v);
}

// What a primitive computed, "-inf - -inf = nan" or "exp(100.5) = inf", and the usual reason.
std::pair<std::string, std::string> DescribeBirth(const tpu::NonFiniteOrigin& o) {
  const std::string& p = o.prim;
  const std::vector<double>& x = o.operands;
  std::string result = Number(o.result);
  auto infinite = [&](double v) { return std::isinf(v); };
  if (x.size() == 2 && (p == "add" || p == "sub" || p == "mul" || p == "div")) {
    const char* symbol = p == "add" ? "+" : p == "sub" ? "-" : p == "mul" ? "*" : "/";
    std::string what = fmt::format("{} {} {} = {}", Number(x[0]), symbol, Number(x[1]), result);
    if ((p == "add" || p == "sub") && (infinite(x[0]) || infinite(x[1]))) {
      return {what,
              "infinities of opposite signs cancel to NaN: a row whose scores are all masked to "
              "-inf has a maximum of -inf, and subtracting it gives NaN; either the mask hides a "
              "row it should not (check its comparison), or, where such rows are expected, mask "
              "with a large finite number instead (e.g. -1e30, or jnp.finfo(jnp.float32).min) or "
              "keep them out of the arithmetic"};
    }
    if (p == "div" && x[1] == 0) {
      return {what,
              "a division by zero: the denominator (a row sum, a count, a norm) is 0 here; "
              "either what it sums was wrong or never accumulated (look at what made it), or, "
              "where an empty row is expected, guard it (e.g. jnp.where(l == 0, 1, l))"};
    }
    if (p == "mul" && (infinite(x[0]) || infinite(x[1]))) {
      return {what, "0 * inf is NaN: one factor overflowed or came from a -inf mask"};
    }
    return {what, "the result overflowed float32 (largest about 3.4e38)"};
  }
  if (x.size() == 1) {
    std::string what = fmt::format("{}({}) = {}", p, Number(x[0]), result);
    if (p == "exp" || p == "exp2") {
      return {what,
              "exp overflows float32 above about 88.7: subtract the (running) maximum before "
              "exponentiating, as a numerically stable softmax does"};
    }
    if (p == "log" || p == "log1p") {
      return {what, "log is -inf at 0 and NaN below it: the argument must be positive"};
    }
    if (p == "sqrt" || p == "rsqrt") {
      return {what, "the argument must not be negative (nor 0 for rsqrt)"};
    }
    return {what, "its operand was finite"};
  }
  if (!x.empty()) {
    std::string args;
    for (size_t i = 0; i < x.size(); ++i) args += (i ? ", " : "") + Number(x[i]);
    return {fmt::format("{}({}) = {}", p, args, result), "its operands were finite"};
  }
  return {fmt::format("`{}` of finite operands gave {}", p, result),
          "the values overflowed float32 (largest about 3.4e38)"};
}

PuzzleRun RunIn(std::shared_ptr<SourceManager> sources, const std::filesystem::path& file,
                const RunOptions& options);

// A failed check whose result holds NaN or infinities that uninitialised memory does not explain:
// runs the program again (its files loaded into `sources` once more) under a probe that stops
// at the first primitive making one from numbers that were not; a note at that place (nullopt
// when no kernel made one).
std::optional<Diagnostic> ExplainNonFinite(const std::shared_ptr<SourceManager>& sources,
                                           const std::filesystem::path& file,
                                           const RunOptions& options) {
  RunOptions probed = QuietRerun(options);
  auto probe = std::make_shared<tpu::Probe>();
  probe->trace_nonfinite = true;
  probed.emulator.probe = probe;
  RunIn(sources, file, probed);
  const tpu::NonFiniteOrigin& o = probe->nonfinite;
  if (!o.found) return std::nullopt;
  auto [what, why] = DescribeBirth(o);
  bool nan = std::isnan(o.result);
  return Diagnostic{
      .severity = Severity::kNote,
      .phase = Phase::kEmulate,
      .message = fmt::format("the first {} in a kernel was made here: in `{}` at grid step {}, "
                             "`{}` computed {} (element {} of its result)",
                             nan ? "NaN" : "infinity", o.kernel, tpu::TupleString(o.grid_point),
                             o.prim, what, tpu::TupleString(o.element)),
      .span = o.span,
      .notes = {{.message = why}}};
}

PuzzleRun RunIn(std::shared_ptr<SourceManager> sources, const std::filesystem::path& file,
                const RunOptions& options) {
  PuzzleRun run;
  run.sources = sources;
  run.stats_in_diagnostics = options.stats_in_diagnostics;
  run.timeline = options.emulator.timeline;
  std::optional<FileId> id = options.source
                                 ? std::optional(sources->Add(file.string(), *options.source))
                                 : sources->Load(file.string());
  if (!id) {
    run.status = RunStatus::kIoError;
    run.error = fmt::format("cannot read {}", file.string());
    run.footer = run.error + "\n";
    return run;
  }
  DiagnosticSink sink;
  lang::Module module = lang::ParseModule(sources->Get(*id), *id, sink);
  // After a syntax error, everything the parser said is printed in its order with the errors.
  (sink.HasErrors() ? run.errors : run.warnings) = sink.diagnostics();
  if (sink.HasErrors()) {
    int errors = sink.ErrorCount();
    run.footer = fmt::format("{} error{}; nothing was run\n", errors, errors == 1 ? "" : "s");
    run.status = RunStatus::kSyntaxError;
    for (const Diagnostic& d : run.errors) {
      if (d.severity == Severity::kError) {
        run.error = d.message;
        break;
      }
    }
    return run;
  }
  Session session(sources, options, [&run, &options](std::string_view text) {
    run.output += text;
    if (options.output) options.output(text);
  });
  eval::Interpreter& interpreter = session.interpreter();
  std::optional<Diagnostic> error;
  if (options.eager) {
    EagerRecord* record = options.eager.get();
    record->Attach(&interpreter);
    session.harness().eager = record;
    interpreter.call_observer = [record](const eval::FunctionObject& function,
                                         const eval::Environment& locals, SourceSpan site) {
      record->RecordCall(function, locals, site);
    };
    array::ScopedPrimRecorder listen(record);
    error = interpreter.RunModule(std::move(module));
    interpreter.call_observer = nullptr;
    record->Attach(nullptr);
    session.harness().eager = nullptr;
  } else {
    error = interpreter.RunModule(std::move(module));
  }
  tpu::EmulatorSession& emulator = session.emulator();
  // A warning repeated by later calls (the same place and advice; counts in the message may
  // differ) is reported once, with how often it recurred.
  std::vector<const Diagnostic*> shown;
  std::vector<int> repeats;
  for (const Diagnostic& warning : emulator.warnings) {
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
  auto add_warning = [&](Diagnostic warning) {
    if (options.strict) {
      warning.severity = Severity::kError;
      warning.notes.push_back({.message = "a warning, made an error by --strict"});
      if (!first_strict) first_strict = warning;
    }
    run.warnings.push_back(std::move(warning));
  };
  for (size_t i = 0; i < shown.size(); ++i) {
    Diagnostic warning = *shown[i];
    if (repeats[i] > 0) {
      warning.notes.push_back(
          {.message = fmt::format("the same warning came from {} later pallas_call{}", repeats[i],
                                  repeats[i] == 1 ? "" : "s")});
    }
    add_warning(std::move(warning));
  }
  for (const Diagnostic& warning : interpreter.warnings()) add_warning(warning);
  for (const Diagnostic& warning : emulator.warnings) {
    if (warning.phase == Phase::kLint) run.lint.push_back(warning);
  }
  run.stats = std::move(emulator.stats);
  run.checks = std::move(session.harness().checks);
  run.calls = std::move(emulator.calls);
  if (error) {
    run.errors.push_back(*error);
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
  for (const CheckReport& c : run.checks) all &= c.passed();
  run.status = run.checks.empty() ? RunStatus::kNoChecks
               : all              ? RunStatus::kPassed
                                  : RunStatus::kFailed;
  bool nonfinite = std::any_of(run.checks.begin(), run.checks.end(),
                               [](const CheckReport& c) { return !c.passed() && c.nonfinite; });
  if (nonfinite && options.emulator.probe == nullptr && options.emulator.backend == nullptr) {
    if (std::optional<Diagnostic> origin = ExplainNonFinite(sources, file, options)) {
      run.errors.push_back(std::move(*origin));
    }
  }
  return run;
}

}  // namespace

std::string PuzzleRun::Diagnostics(bool color) const {
  std::string out;
  RenderOptions render{.color = color};
  for (const Diagnostic& d : warnings) out += Render(d, *sources, render);
  if (stats_in_diagnostics) {
    for (const tpu::CallStats& call : stats) out += tpu::FormatCallStats(call, *sources, timeline);
  }
  for (const Diagnostic& d : errors) out += Render(d, *sources, render);
  return out + footer;
}

RunOptions QuietRerun(RunOptions options) {
  options.output = nullptr;
  options.eager = nullptr;
  options.emulator.stats = false;
  options.emulator.timeline = false;
  options.emulator.dump_ir = false;
  options.emulator.on_trace = nullptr;
  options.emulator.recorder = nullptr;
  options.emulator.backend = nullptr;
  options.emulator.cores = 1;
  return options;
}

PuzzleRun RunFile(const std::filesystem::path& file, const RunOptions& options) {
  return RunIn(std::make_shared<SourceManager>(), file, options);
}

}  // namespace pz::course
