// Pictures of what a pallas_call does (`pallas-puzzles diagram`): its grid and, for a grid step,
// which block of every operand is resident in VMEM. The picture is built from a tpu::CallRecord
// (the block indices the emulator itself used at each step) into a plain model, drawn here as
// SVG and by the cli in the terminal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tpu/pallas_call.h"

namespace pz::course {

// What a cell of a picture shows; each role has one colour (SVG) or ANSI colour (terminal).
enum class BlockRole {
  kInput,    // an input block resident in VMEM (blue)
  kScratch,  // scratch memory, resident for the whole call (yellow)
  kOutput,   // an output block resident in VMEM (green)
  kSkipped,  // not resident at this step (grey)
  kError,    // the block the emulator stopped on: out of range, or a revisit (red)
};

// One operand drawn as the 2-D grid of blocks of its last two dimensions (leading dimensions are
// fixed at the resident block and named in `note`).
struct OperandPicture {
  std::string name;   // "x_ref"
  std::string kind;   // "input", "output", "scratch", "scalar prefetch", "input in HBM"
  std::string shape;  // "(512,) float32"
  std::string block;  // "block (128,)", "whole array"
  std::string index;  // "index (3,)"; empty for scratch and prefetch
  std::string note;   // leading dimensions, grouped cells, or why the step failed
  int64_t rows = 1, cols = 1;
  std::vector<BlockRole> cells;  // rows * cols, row-major
};

struct StepPicture {
  int64_t step = 0;            // linearised, row-major over the grid
  std::vector<int64_t> point;  // program ids
  bool failed = false;         // the emulator stopped the call at this step
  std::string failure;         // its message, when failed
  std::vector<OperandPicture> operands;
};

// The grid as a 2-D table of steps: rows are the leading axes (flattened), columns the last; a
// long side groups several steps into one cell.
struct GridShape {
  int64_t rows = 1, cols = 1;            // cells drawn
  int64_t row_group = 1, col_group = 1;  // steps per cell along each side
  int64_t steps_per_row = 1;             // the last axis's size
  std::string note;  // how axes map to rows and cells ("" for plain 1-D and 2-D grids)
  // Whether the cell at (r, c) holds linearised grid step `step`.
  bool Holds(int64_t r, int64_t c, int64_t step) const {
    return step / steps_per_row / row_group == r && step % steps_per_row / col_group == c;
  }
};
GridShape GridLayout(const std::vector<int64_t>& grid);

// The picture of `call` at recorded grid step `step` (0 <= step < trace.steps.size()).
StepPicture PictureOf(const tpu::CallRecord& call, int64_t step);

// The step that `text` ("1,2" or "(1, 2)": one program id per grid axis) names in `call`'s grid,
// or why not.
struct StepChoice {
  int64_t step = 0;
  std::string error;
};
StepChoice ParseStep(const tpu::CallRecord& call, const std::string& text);

// "grid (2, 3): 6 steps" and "step 4 of 6, program ids (1, 1)" lines.
std::string CallTitle(const tpu::CallRecord& call);
std::string StepTitle(const tpu::CallRecord& call, const StepPicture& step);

// The recorded steps an all-steps picture shows (the first kMaxSmallMultiples), and the note
// saying how many were left out ("" when none).
constexpr int64_t kMaxSmallMultiples = 32;
std::vector<int64_t> AllSteps(const tpu::CallRecord& call, std::string* note);

// `text` escaped for SVG (XML) text and attributes.
std::string SvgEscape(std::string_view text);
// Width of `text` at `size` px, estimated (no font metrics): wide enough for Helvetica.
int SvgTextWidth(std::string_view text, int size);

// A self-contained, deterministic SVG: one step in detail, or (`steps.size() > 1`) small
// multiples of the given steps.
std::string RenderSvg(const tpu::CallRecord& call, const std::vector<int64_t>& steps,
                      const std::string& note);

}  // namespace pz::course
