// Runs one puzzle file (or any program) in a fresh interpreter with the emulator and the `check`
// harness installed, and says whether it passed: it ran to the end, called `check` at least once,
// and every check passed.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "course/check_report.h"
#include "eval/interpreter.h"
#include "tpu/options.h"
#include "tpu/pallas_call.h"

namespace pz::course {

class EagerRecord;

struct RunOptions {
  tpu::EmulatorOptions emulator;
  // Limits of the run; the default timeout keeps a runaway puzzle from stalling `verify`.
  eval::InterpreterOptions interpreter{.timeout_seconds = 120};
  // Receives the program's output as it is printed (may be empty).
  std::function<void(std::string_view)> output;
  // ANSI colours in the status words of the check lines the program prints (diagnostics are
  // coloured when rendered: PuzzleRun::Diagnostics).
  bool color = false;
  // The program's text, instead of the file's contents (the file still names it in messages
  // and is where its imports are found): `tune` runs edited copies of a program this way.
  std::optional<std::string> source;
  // With emulator.stats: whether PuzzleRun::Diagnostics renders the `--stats` lines (they are
  // always in PuzzleRun::stats).
  bool stats_in_diagnostics = true;
  // Warnings (uninitialised memory reaching an output, output elements never written, the
  // lint's, ...) are errors: the run fails with exit code 70 (`run --strict`).
  bool strict = false;
  // Records the program's eager jax.numpy steps and what its checks compared (divergence.cpp).
  std::shared_ptr<EagerRecord> eager;
};

enum class RunStatus {
  kPassed,        // every check passed (at least one ran)
  kFailed,        // a check failed
  kNoChecks,      // ran to the end without calling check
  kSyntaxError,   // the file does not parse
  kTraceError,    // a kernel could not be traced (TracerBoolConversionError, ...)
  kRuntimeError,  // a Python or emulation error stopped the run
  kIoError,       // the file could not be read
};

// A program's run, as values: what its checks found, what it printed, and the problems the
// engine reported, which the caller renders (Diagnostics) or reads.
struct PuzzleRun {
  RunStatus status = RunStatus::kIoError;
  std::vector<CheckReport> checks;
  std::string output;  // everything the program printed
  // The warnings of the parser, the emulator and the interpreter (a warning repeated by later
  // calls once, with how often), printed first; then the `--stats` lines; then `errors`: the
  // error that stopped the run and notes on why a check failed (where a NaN was made).
  std::vector<Diagnostic> warnings;
  std::vector<Diagnostic> errors;
  std::string footer;  // "1 error; nothing was run" after syntax errors
  std::string error;   // the first error's one-line message ("" when none)
  // The files the diagnostics' spans point into (the program and what it imported).
  std::shared_ptr<SourceManager> sources;
  // What each pallas_call did, block by block (only with RunOptions::emulator.record_blocks).
  std::vector<tpu::CallRecord> calls;
  // What each pallas_call counted (only with RunOptions::emulator.stats), in call order.
  std::vector<tpu::CallStats> stats;
  // The lint's warnings (what a TPU would not compile or run: tiling, VMEM budget, ...).
  std::vector<Diagnostic> lint;
  bool stats_in_diagnostics = true;  // RunOptions::stats_in_diagnostics
  bool timeline = false;             // the stats carry a DMA time-line to print

  // The problems as `pallas-puzzles run` prints them, in order (with ANSI colours if asked).
  std::string Diagnostics(bool color = false) const;

  bool passed() const { return status == RunStatus::kPassed; }
  // DESIGN.md §6: 0 passed, 1 check failed (or none ran), 65 syntax or trace error, 70 runtime
  // or emulation error, 74 unreadable file.
  int exit_code() const;
};

// `options` for running a program again to learn why it failed: on the emulated TPU, one core,
// printing nothing, with no stats, time-line, IR dump, trace hook or step record.
RunOptions QuietRerun(RunOptions options);

// Runs `file` in a Session of its own.
PuzzleRun RunFile(const std::filesystem::path& file, const RunOptions& options);

std::string_view StatusName(RunStatus status);

}  // namespace pz::course
