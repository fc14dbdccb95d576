// Notebook export (`pallas-puzzles export-notebooks`): one Jupyter notebook (nbformat 4.5) per
// chapter, built from its intro, its puzzle files in order (markdown cells from the theory, code
// cells from the code, hints as collapsible sections after each puzzle) and its summary. A first
// code cell installs JAX on Colab and writes the `check` harness (puzzles/pallas_check.py); images
// travel inside the notebook as markdown-cell attachments. The output is deterministic: cell ids
// come from the cell's place, keys are sorted, no outputs or timestamps are stored.
#pragma once

#include <string>
#include <vector>

#include "course/manifest.h"

namespace pz::course {

struct NotebookExport {
  std::string file_name;  // "01_basics.ipynb"
  std::string text;       // the notebook's JSON, ending in a newline
  // What could not be read (a puzzle file, an image): the notebook is still written without it.
  std::vector<std::string> problems;
};

// The notebook of `chapter`, with the starters (or, with `solutions`, the solutions).
NotebookExport ExportNotebook(const Course& course, const ChapterEntry& chapter, bool solutions);

// Standard base64 (with padding) of `bytes`, as notebooks store attachments.
std::string Base64(std::string_view bytes);

}  // namespace pz::course
