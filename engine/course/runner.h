// Runs one puzzle file (or any program) in a fresh interpreter with the emulator and the `check`
// harness installed, and says whether it passed: it ran to the end, called `check` at least once,
// and every check passed.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "course/harness.h"
#include "eval/interpreter.h"
#include "tpu/options.h"
#include "tpu/pallas_call.h"

namespace pz::course {

struct RunOptions {
  tpu::EmulatorOptions emulator;
  // Limits of the run; the default timeout keeps a runaway puzzle from stalling `verify`.
  eval::InterpreterOptions interpreter{.timeout_seconds = 120};
  // Receives the program's output as it is printed (may be empty).
  std::function<void(std::string_view)> output;
  // ANSI colours in the rendered diagnostics.
  bool color = false;
  // The program's text, instead of the file's contents (the file still names it in messages
  // and is where its imports are found): `tune` runs edited copies of a program this way.
  std::optional<std::string> source;
  // With emulator.stats: whether the `--stats` lines go into `diagnostics` (they are always in
  // PuzzleRun::stats).
  bool stats_in_diagnostics = true;
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

struct PuzzleRun {
  RunStatus status = RunStatus::kIoError;
  std::vector<CheckOutcome> checks;
  std::string output;       // everything the program printed
  std::string diagnostics;  // rendered errors and warnings, in order
  std::string error;        // the first error's one-line message ("" when none)
  // What each pallas_call did, block by block (only with RunOptions::emulator.record_blocks).
  std::vector<tpu::CallRecord> calls;
  // What each pallas_call counted (only with RunOptions::emulator.stats), in call order.
  std::vector<tpu::CallStats> stats;
  // The lint's warnings (what a TPU would not compile or run: tiling, VMEM budget, ...).
  std::vector<Diagnostic> lint;

  bool passed() const { return status == RunStatus::kPassed; }
  // DESIGN.md §6: 0 passed, 1 check failed (or none ran), 65 syntax or trace error, 70 runtime
  // or emulation error, 74 unreadable file.
  int exit_code() const;
};

// `sources`, when given, keeps the program's files after the run (to render spans of what it
// recorded); by default they are dropped with the run.
PuzzleRun RunFile(const std::filesystem::path& file, const RunOptions& options,
                  SourceManager* sources = nullptr);

std::string_view StatusName(RunStatus status);

}  // namespace pz::course
