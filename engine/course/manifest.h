// The course manifest (puzzles/course.json and one chapter.json per chapter, see
// puzzles/README.md): chapters and puzzles in order, the paths of their files, and the names a
// learner may type for a puzzle ("01_basics/01_constant_add", "1.1", "01/01", "constant_add").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pz::course {

struct PuzzleEntry {
  std::string chapter;  // "01_basics"
  std::string id;       // "01_constant_add"
  std::string title;
  std::string starter_fails_with;   // text the failing starter must print (may be empty)
  std::vector<std::string> images;  // file names under images/
  int chapter_number = 0;           // 1-based position of the chapter
  int number = 0;                   // 1-based position in the chapter

  std::string name() const { return chapter + "/" + id; }
  std::string short_name() const;  // "1.1"
};

// A diagram the course generates (`pallas-puzzles export-diagrams`) instead of drawing by hand:
// `pallas-puzzles diagram PUZZLE ARGS... --svg images/IMAGE`.
struct DiagramEntry {
  std::string image;              // file name under images/
  std::string puzzle;             // the puzzle's id in its chapter (or a full name)
  std::vector<std::string> args;  // options of `pallas-puzzles diagram`, e.g. "--all-steps"
  // The command that draws it: "diagram" (the default) or "roofline" (its --svg plot).
  std::string command = "diagram";
};

struct ChapterEntry {
  std::string id;
  std::string title;
  std::vector<PuzzleEntry> puzzles;
  std::vector<DiagramEntry> diagrams;
};

struct Course {
  std::filesystem::path root;  // the repository: puzzles/, solutions/, hints/, images/
  std::string title;
  std::vector<ChapterEntry> chapters;
  // The JAX release the course is verified against (`jax_version`, e.g. "0.10.2"): exported
  // notebooks install it. Empty when the manifest names none.
  std::string jax_version;
  // The course's public GitHub repository (`repository`, "owner/name") and the branch its
  // notebooks are committed on (`branch`, default "main"): exported notebooks then open with an
  // "Open in Colab" link to their committed copy. Empty when the manifest names none.
  std::string repository;
  std::string branch;

  // Every puzzle in course order.
  std::vector<const PuzzleEntry*> Puzzles() const;
  // The puzzle a learner means by `name` (see the file comment), or nullptr when it names none
  // or several.
  const PuzzleEntry* Find(std::string_view name) const;
  const ChapterEntry* FindChapter(std::string_view id) const;
  // The puzzle a chapter's diagram draws (its id in `chapter`, or any name Find accepts).
  const PuzzleEntry* FindDiagramPuzzle(const ChapterEntry& chapter,
                                       const DiagramEntry& diagram) const;

  std::filesystem::path StarterPath(const PuzzleEntry& p) const;
  std::filesystem::path SolutionPath(const PuzzleEntry& p) const;
  std::filesystem::path HintsPath(const PuzzleEntry& p) const;
  std::filesystem::path IntroPath(const ChapterEntry& c) const;
  std::filesystem::path SummaryPath(const ChapterEntry& c) const;
  std::filesystem::path ImagePath(const std::string& image) const;
  std::filesystem::path HarnessPath() const;  // puzzles/pallas_check.py
};

struct CourseLoad {
  Course course;
  std::vector<std::string> errors;  // manifest problems ("puzzles/01_basics/chapter.json: ...")
  bool ok() const { return errors.empty(); }
};

// Reads the manifest under `root`. Problems are collected, not thrown: what could be read is
// still returned.
CourseLoad LoadCourse(const std::filesystem::path& root);

// The course root to use: $PALLAS_PUZZLES_COURSE, else the nearest directory at or above `start`
// holding puzzles/course.json, else the source tree this binary was built from; empty if none
// of these holds a course.
std::filesystem::path FindCourseRoot(const std::filesystem::path& start);

}  // namespace pz::course
