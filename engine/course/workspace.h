// The learner's workspace (default ./workspace, ignored by git): a copy of the starters, the
// harness for real JAX beside them, progress.json, the REPL history and backups made by `reset`.
// The repository's own files are never modified by learning.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "course/manifest.h"

namespace pz::course {

struct Workspace {
  std::filesystem::path dir;
  std::filesystem::path course_root;  // recorded at init; empty when unknown

  std::filesystem::path ProgressFile() const { return dir / "progress.json"; }
  std::filesystem::path HistoryFile() const { return dir / ".history"; }
  std::filesystem::path MarkerFile() const { return dir / ".pallas-puzzles"; }
  std::filesystem::path PuzzlePath(const PuzzleEntry& p) const {
    return dir / p.chapter / (p.id + ".py");
  }
  std::filesystem::path BackupDir() const { return dir / ".backups"; }
};

// The workspace at `start` or `start/workspace`, else at a parent directory (or its
// `workspace/`); nullopt when none.
std::optional<Workspace> FindWorkspace(const std::filesystem::path& start);

struct InitReport {
  std::vector<std::string> created;  // files written, relative to the workspace
  int kept = 0;                      // learner files already there, left alone
  std::optional<std::string> error;
};

// Creates (or completes) a workspace at `dir`: the starters not already present, pallas_check.py
// in every chapter folder, the marker file, and progress.json when missing. Never overwrites a
// learner's file.
InitReport InitWorkspace(const Course& course, const std::filesystem::path& dir);

// Restores the starter of `puzzle`, first saving the learner's file to
// .backups/<chapter>/<id>-<UTC time>.py (`-2`, `-3`, ... before `.py` when that name is taken;
// returned in `backup`). Nullopt on success, else why not.
std::optional<std::string> ResetPuzzle(const Course& course, const Workspace& workspace,
                                       const PuzzleEntry& puzzle, std::filesystem::path* backup);

// The newest backup ResetPuzzle made of `puzzle` (by the time in its name); nullopt when none.
std::optional<std::filesystem::path> LatestBackup(const Workspace& workspace,
                                                  const PuzzleEntry& puzzle);

struct RestoreReport {
  // Where the learner's file went before the backup replaced it; empty when nothing needed
  // keeping (the file was missing, the starter, or the backup itself).
  std::filesystem::path saved;
  std::optional<std::string> error;
};

// Copies `backup` over the learner's file of `puzzle`, first saving that file as ResetPuzzle
// does unless nothing would be lost (so a second restore brings it back).
RestoreReport RestoreBackup(const Course& course, const Workspace& workspace,
                            const PuzzleEntry& puzzle, const std::filesystem::path& backup);

}  // namespace pz::course
