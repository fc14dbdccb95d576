// What the course commands share, whether run as subcommands or from the REPL: the course, the
// learner's workspace and progress, the terminal's colour policy, and the actions themselves
// (list, show, check, hint, solution, progress, reset), each printing to stdout.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "course/manifest.h"
#include "course/progress.h"
#include "course/runner.h"
#include "course/workspace.h"

namespace pz::cli {

struct CourseContext {
  course::Course course;
  std::optional<course::Workspace> workspace;
  course::Progress progress;
  bool color = false;
  bool json = false;  // subcommands with --json print data instead of text
  // When set, the learner has confirmed showing the solution before passing.
  bool confirmed = false;
  // `check --backend cuda`: run the puzzle's calls on a GPU (outputs only; no progress kept).
  bool cuda = false;
  // `check --cores 1|2`: the TensorCores of the emulated chip (2: a megacore, TPU v4 or v5p).
  int cores = 1;
  // `reset --restore`: bring back the latest backup of the learner's file instead of the
  // starter.
  bool restore = false;

  // Finds and loads the course (and the workspace and progress, when `need_workspace` or one
  // exists). Prints why not and returns an exit code on failure.
  std::optional<int> Load(bool need_workspace);
  // Saves progress; prints a warning when the workspace is read-only.
  void Save();

  const course::PuzzleEntry* Current() const;
  // The first unsolved puzzle after `p` in course order, wrapping around to the start; null when
  // every other puzzle is solved.
  const course::PuzzleEntry* NextUnsolved(const course::PuzzleEntry& p) const;
  // The puzzle `name` names, or the current one when empty; prints an error and returns null
  // when none matches.
  const course::PuzzleEntry* Resolve(const std::string& name) const;
  // The file the learner edits: in the workspace, or the pristine starter without one.
  std::filesystem::path FileOf(const course::PuzzleEntry& p) const;

  // Colour helpers (no-ops without colour).
  std::string Green(std::string_view s) const;
  std::string Red(std::string_view s) const;
  std::string Bold(std::string_view s) const;
  std::string Dim(std::string_view s) const;
};

// The actions; each returns an exit code (DESIGN.md §6).
int ListAction(CourseContext& ctx);
int ShowAction(CourseContext& ctx, const course::PuzzleEntry& p);
int CheckAction(CourseContext& ctx, const course::PuzzleEntry& p);
int HintAction(CourseContext& ctx, const course::PuzzleEntry& p);
int HintsShownAction(CourseContext& ctx, const course::PuzzleEntry& p);
int SolutionAction(CourseContext& ctx, const course::PuzzleEntry& p);
int ProgressAction(CourseContext& ctx);
int ResetAction(CourseContext& ctx, const course::PuzzleEntry& p);
// Runs any file with the course harness, printing its output and diagnostics.
int RunFileAction(CourseContext& ctx, const std::string& file);
// Makes `p` the current puzzle and prints its title line.
void GotoAction(CourseContext& ctx, const course::PuzzleEntry& p);

// The options every course run uses (tpu semantics, lint on, as DESIGN.md §4 says for check).
course::RunOptions CourseRunOptions(bool color);

// The value of `--cores` (`1` or `2`), or nullopt after printing why not, for `command`.
std::optional<int> ParseCores(const std::string& command, std::string_view value);

}  // namespace pz::cli
