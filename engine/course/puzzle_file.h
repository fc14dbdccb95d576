// What the course reads inside a puzzle file (puzzles/README.md): jupytext percent cells
// (markdown theory and code), the editable regions between `# YOUR CODE BEGIN` and
// `# YOUR CODE END`, and the images the theory references. Also hint files: one level per `## `
// section.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pz::course {

struct Cell {
  enum class Kind { kMarkdown, kCode };
  Kind kind = Kind::kCode;
  int first_line = 1;  // 1-based line of the cell's first content line
  // Markdown: the text with the leading "# " of each line removed. Code: the lines as written,
  // without the cell marker.
  std::string text;
};

// The cells of a jupytext percent-format file; text before the first marker is a code cell.
// Empty cells (only blank lines) are dropped.
std::vector<Cell> SplitCells(std::string_view source);

struct Region {
  int begin_line = 0;  // the `# YOUR CODE BEGIN` line (1-based)
  int end_line = 0;    // the `# YOUR CODE END` line; the region is the lines strictly between
};

struct RegionScan {
  std::vector<Region> regions;
  std::vector<std::string> errors;  // "line 12: `# YOUR CODE END` without a BEGIN"
};

RegionScan FindRegions(std::string_view source);
// Whether 1-based `line` is strictly inside one of `regions` (a line the learner edits).
bool InRegion(const std::vector<Region>& regions, int line);

// A code cell that holds editable regions: its lines (1-based, inclusive), without the cell
// marker and the blank lines at its ends, and the regions inside it.
struct EditableCell {
  int first_line = 0;
  int last_line = 0;
  std::vector<Region> regions;
};

// The code cells of `source` that hold a region, in order (a region is counted in the cell
// where it begins).
std::vector<EditableCell> EditableCells(std::string_view source);

// The lines strictly inside `region`, joined with newlines.
std::string RegionText(std::string_view source, const Region& region);

// Nullopt when `starter` and `solution` are equal outside their editable regions (and have the
// same number of them); else where they first differ ("starter line 12 / solution line 14 ...").
std::optional<std::string> CompareOutsideRegions(std::string_view starter,
                                                 std::string_view solution);

// File names referenced as images/NAME in markdown cells (`![...](../../images/NAME)`), in
// order, without duplicates.
std::vector<std::string> ImageReferences(std::string_view source);

struct Hint {
  std::string title;  // the `## ` heading's text, e.g. "Hint 1: where the data is"
  std::string body;   // the section's text, trimmed
};

// One hint per `## ` section of a hints file; text before the first heading is ignored.
std::vector<Hint> ParseHints(std::string_view markdown);

std::vector<std::string_view> SplitLines(std::string_view text);

}  // namespace pz::course
