// Notebook export (`pallas-puzzles export-notebooks`): one Jupyter notebook (nbformat 4.5) per
// chapter, built from its intro, its puzzle files in order (markdown cells from the theory, code
// cells from the code, hints as collapsible sections after each puzzle) and its summary. A first
// code cell installs the JAX release the course is verified against (replacing Colab's
// preinstalled one) and writes the `check` harness (puzzles/pallas_check.py); images travel
// inside the notebook as markdown-cell attachments. The output is deterministic: cell ids come
// from the cell's place, keys are sorted, no outputs or timestamps are stored.
#pragma once

#include <string>
#include <vector>

#include "course/manifest.h"
#include "course/workspace.h"

namespace pz::course {

struct NotebookOptions {
  // Whose code the puzzle cells hold.
  enum class Code {
    kStarters,   // the course's starters: notebooks/ in the repository
    kSolutions,  // the solutions: notebooks/solutions/
    kWorkspace,  // the learner's own files, from `workspace`
  };
  Code code = Code::kStarters;
  // With kWorkspace: the learner's workspace. A puzzle missing there is exported as its starter
  // (a note says so).
  const Workspace* workspace = nullptr;
};

struct NotebookExport {
  std::string file_name;  // "01_basics.ipynb"
  std::string text;       // the notebook's JSON, ending in a newline
  // What could not be read (a puzzle file, an image): the notebook is still written without it.
  std::vector<std::string> problems;
  // What the learner should know but is no failure (a workspace file replaced by its starter).
  std::vector<std::string> notes;
};

// The notebook of `chapter`. When the course names its repository, starters and solutions open
// with an "Open in Colab" link to their committed copy (ColabUrl); a workspace's do not.
NotebookExport ExportNotebook(const Course& course, const ChapterEntry& chapter,
                              const NotebookOptions& options = {});

// Where Colab opens the committed notebook `file_name` (notebooks/ or, for solutions,
// notebooks/solutions/ on the course's branch); empty when the course names no repository.
std::string ColabUrl(const Course& course, const std::string& file_name, bool solutions);

// Standard base64 (with padding) of `bytes`, as notebooks store attachments.
std::string Base64(std::string_view bytes);

}  // namespace pz::course
