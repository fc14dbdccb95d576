// The learner's progress (workspace/progress.json): which puzzles are solved, how many hints were
// shown, the current puzzle. Written atomically (temporary file, then rename); a corrupt file is
// kept as a backup and progress starts afresh, with a warning.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace pz::course {

struct PuzzleProgress {
  bool solved = false;
  int hints_shown = 0;
  bool solution_shown = false;
  int checks = 0;         // check runs of this puzzle
  std::string solved_at;  // ISO 8601, UTC
};

struct Progress {
  std::string current;                            // full puzzle name, empty for the first puzzle
  std::map<std::string, PuzzleProgress> puzzles;  // by full puzzle name

  PuzzleProgress& Of(const std::string& name) { return puzzles[name]; }
  const PuzzleProgress* Find(const std::string& name) const;
  int SolvedCount() const;
};

struct ProgressLoad {
  Progress progress;
  std::optional<std::string> warning;  // the file was corrupt (and where its backup went)
};

// Missing file: empty progress, no warning.
ProgressLoad LoadProgress(const std::filesystem::path& file);
// Nullopt on success, else why the file could not be written.
std::optional<std::string> SaveProgress(const std::filesystem::path& file,
                                        const Progress& progress);
// The current UTC time as "2026-11-21T10:30:00Z".
std::string NowUtc();

}  // namespace pz::course
