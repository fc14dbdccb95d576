#include "course/diagram.h"

#include <fmt/format.h>

#include <algorithm>

namespace pz::course {
namespace {

using tpu::TupleString;

using kernel::BlockDim;

// Cells per axis of a picture; a longer axis groups several blocks into one cell.
constexpr int64_t kMaxCells = 32;

std::string ShapeString(const array::Shape& shape, array::DType dtype) {
  return fmt::format("{} {}", TupleString(shape), array::DTypeName(dtype));
}

std::string BlockString(const std::vector<BlockDim>& block) {
  std::string s = "(";
  for (size_t d = 0; d < block.size(); ++d) {
    if (d) s += ", ";
    switch (block[d].kind) {
      case BlockDim::Kind::kBlocked:
        s += std::to_string(block[d].size);
        break;
      case BlockDim::Kind::kSqueezed:
        s += "None";
        break;
      case BlockDim::Kind::kElement:
        s += fmt::format("Element({})", block[d].size);
        break;
    }
  }
  return s + (block.size() == 1 ? ",)" : ")");
}

// One drawn axis of an operand: its cells, the cells the resident window covers, and an extra
// cell before or after the array when the window lies outside it.
struct Axis {
  int64_t cells = 1;
  int64_t group = 1;       // blocks per cell
  int64_t lo = 0, hi = 1;  // highlighted cells [lo, hi), counting an extra cell before
  bool before = false, after = false;
  int64_t start = 0, size = 1;  // the window in elements
};

Axis AxisOf(const kernel::BlockMapping& op, size_t d, int64_t index) {
  const BlockDim& b = op.block[d];
  int64_t n = op.shape[d];
  Axis a;
  int64_t cell = b.kind == BlockDim::Kind::kSqueezed ? 1 : std::max<int64_t>(b.size, 1);
  a.size = b.WindowSize();
  a.start = b.WindowStart(index);
  int64_t blocks = std::max<int64_t>((n + cell - 1) / cell, 1);
  a.group = (blocks + kMaxCells - 1) / kMaxCells;
  a.cells = (blocks + a.group - 1) / a.group;
  if (a.start + std::max<int64_t>(a.size, 1) <= 0) {
    a.before = true;
    a.lo = 0;
    a.hi = 1;
  } else if (a.start >= n) {
    a.after = true;
    a.lo = a.cells;
    a.hi = a.cells + 1;
  } else {
    int64_t first = std::max<int64_t>(a.start, 0) / cell;
    int64_t last = (std::min(a.start + std::max<int64_t>(a.size, 1), n) - 1) / cell;
    a.lo = first / a.group;
    a.hi = last / a.group + 1;
  }
  return a;
}

OperandPicture Whole(std::string name, std::string kind, std::string shape, std::string block,
                     BlockRole role) {
  return {.name = std::move(name),
          .kind = std::move(kind),
          .shape = std::move(shape),
          .block = std::move(block),
          .cells = {role}};
}

OperandPicture PictureOfOperand(const kernel::BlockMapping& op, const std::vector<int64_t>& index,
                                bool error) {
  std::string kind = op.is_output ? "output" : "input";
  if (op.space == kernel::MemorySpace::kAny) {
    return Whole(op.name, kind + " in HBM", ShapeString(op.shape, op.dtype),
                 "memory_space=ANY: no block, the kernel copies by DMA", BlockRole::kSkipped);
  }
  OperandPicture pic{.name = op.name,
                     .kind = op.space == kernel::MemorySpace::kSmem ? kind + " (SMEM)" : kind,
                     .shape = ShapeString(op.shape, op.dtype),
                     .block = "block " + BlockString(op.block),
                     .index = "index " + TupleString(index)};
  BlockRole role = error          ? BlockRole::kError
                   : op.is_output ? BlockRole::kOutput
                                  : BlockRole::kInput;
  size_t rank = op.shape.size();
  std::vector<Axis> axes;
  for (size_t d = 0; d < rank; ++d) axes.push_back(AxisOf(op, d, index[d]));
  std::vector<std::string> notes;
  if (rank > 2) {
    std::string at = "[";
    for (size_t d = 0; d < rank; ++d) {
      if (d) at += ", ";
      const Axis& a = axes[d];
      bool single = op.block[d].kind == BlockDim::Kind::kSqueezed || a.size == 1;
      at += d + 2 >= rank ? ":"
            : single      ? std::to_string(a.start)
                          : fmt::format("{}:{}", a.start, a.start + a.size);
    }
    array::Shape leading(op.shape.begin(), op.shape.end() - 2);
    notes.push_back(fmt::format("showing slice {}] of the leading dimension{} {}", at,
                                rank > 3 ? "s" : "", TupleString(leading)));
  }
  Axis none;
  const Axis& rows = rank >= 2 ? axes[rank - 2] : none;
  const Axis& cols = rank >= 1 ? axes[rank - 1] : none;
  if (rows.group > 1 || cols.group > 1) {
    notes.push_back(fmt::format("one cell is {}x{} blocks", rows.group, cols.group));
  }
  for (const Axis& a : axes) {
    if (a.before || a.after) notes.push_back("the block lies outside the array");
  }
  for (size_t i = 0; i < notes.size(); ++i) pic.note += (i ? "; " : "") + notes[i];
  pic.rows = rows.cells + rows.before + rows.after;
  pic.cols = cols.cells + cols.before + cols.after;
  // A window outside the array on a leading dimension highlights nothing drawn.
  bool leading_outside = false;
  for (size_t d = 0; d + 2 < rank; ++d) leading_outside |= axes[d].before || axes[d].after;
  for (int64_t r = 0; r < pic.rows; ++r) {
    for (int64_t c = 0; c < pic.cols; ++c) {
      bool hit = !leading_outside && r >= rows.lo && r < rows.hi && c >= cols.lo && c < cols.hi;
      pic.cells.push_back(hit ? role : BlockRole::kSkipped);
    }
  }
  return pic;
}

std::string Ordinal(int64_t n) { return std::to_string(n); }

}  // namespace

GridShape GridLayout(const std::vector<int64_t>& grid) {
  GridShape g;
  if (grid.empty()) return g;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < grid.size(); ++d) rows *= std::max<int64_t>(grid[d], 1);
  g.steps_per_row = std::max<int64_t>(grid.back(), 1);
  g.row_group = (rows + kMaxCells - 1) / kMaxCells;
  g.col_group = (g.steps_per_row + kMaxCells - 1) / kMaxCells;
  g.rows = (rows + g.row_group - 1) / g.row_group;
  g.cols = (g.steps_per_row + g.col_group - 1) / g.col_group;
  std::vector<std::string> notes;
  if (grid.size() >= 3) {
    notes.push_back(fmt::format("rows: axes 0 to {} row-major, columns: axis {}", grid.size() - 2,
                                grid.size() - 1));
  }
  if (g.row_group > 1 || g.col_group > 1) {
    notes.push_back(fmt::format("one cell is {}x{} steps", g.row_group, g.col_group));
  }
  for (size_t i = 0; i < notes.size(); ++i) g.note += (i ? "; " : "") + notes[i];
  return g;
}

StepPicture PictureOf(const tpu::CallRecord& call, int64_t step) {
  const kernel::BlockTrace& trace = call.trace;
  StepPicture pic{.step = step, .point = tpu::UnravelIndex(step, call.grid)};
  pic.failed = trace.failed_step == step;
  if (pic.failed) pic.failure = trace.failure;
  for (const kernel::RefType& ref : call.prefetch) {
    pic.operands.push_back(Whole(ref.name, "scalar prefetch", ShapeString(ref.shape, ref.dtype),
                                 "whole array in SMEM", BlockRole::kInput));
  }
  const std::vector<std::vector<int64_t>>& index = trace.steps[static_cast<size_t>(step)];
  for (size_t k = 0; k < call.operands.size(); ++k) {
    bool error = pic.failed && trace.failed_operand == static_cast<int>(k);
    pic.operands.push_back(PictureOfOperand(call.operands[k], index[k], error));
  }
  for (const kernel::RefType& ref : call.scratch) {
    if (ref.space == kernel::MemorySpace::kSemaphore) continue;
    bool smem = ref.space == kernel::MemorySpace::kSmem;
    pic.operands.push_back(Whole(ref.name, "scratch", ShapeString(ref.shape, ref.dtype),
                                 smem ? "whole buffer in SMEM, kept across steps"
                                      : "whole buffer in VMEM, kept across steps",
                                 BlockRole::kScratch));
  }
  return pic;
}

StepChoice ParseStep(const tpu::CallRecord& call, const std::string& text) {
  std::vector<int64_t> point;
  std::string number;
  auto flush = [&]() -> bool {
    if (number.empty()) return true;
    if (number.size() > 9) return false;
    point.push_back(std::stoll(number));
    number.clear();
    return true;
  };
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      number += c;
    } else if (c == ',' || c == ' ' || c == '(' || c == ')') {
      if (!flush()) return {.error = "step numbers are too large"};
    } else {
      return {.error = fmt::format("`{}` is not a grid step; write program ids like `1,0`", text)};
    }
  }
  if (!flush()) return {.error = "step numbers are too large"};
  const std::vector<int64_t>& grid = call.grid;
  if (point.size() != grid.size() && !(grid.empty() && point == std::vector<int64_t>{0})) {
    return {.error = fmt::format("the grid {} has {} axes, so a step is {} program ids",
                                 TupleString(grid), grid.size(), grid.size())};
  }
  int64_t step = 0;
  for (size_t d = 0; d < grid.size(); ++d) {
    if (point[d] >= grid[d]) {
      return {.error = fmt::format("program id {} of axis {} is outside the grid {}", point[d], d,
                                   TupleString(grid))};
    }
    step = step * grid[d] + point[d];
  }
  auto recorded = static_cast<int64_t>(call.trace.steps.size());
  if (step >= recorded) {
    return {.error = recorded < call.trace.total_steps && call.trace.failed_step < 0
                         ? fmt::format("only the first {} steps are recorded", recorded)
                         : fmt::format("the call stopped before step {}", TupleString(point))};
  }
  return {.step = step};
}

std::string CallTitle(const tpu::CallRecord& call) {
  int64_t total = call.trace.total_steps;
  std::string grid = call.grid.empty() ? "no grid" : "grid " + TupleString(call.grid);
  return fmt::format("pallas_call {} at {}: {}, {} step{}", call.name, call.location, grid, total,
                     total == 1 ? "" : "s");
}

std::string StepTitle(const tpu::CallRecord& call, const StepPicture& step) {
  return fmt::format("grid step {}, step {} of {}", TupleString(step.point), Ordinal(step.step + 1),
                     call.trace.total_steps);
}

std::vector<int64_t> AllSteps(const tpu::CallRecord& call, std::string* note) {
  auto recorded = static_cast<int64_t>(call.trace.steps.size());
  int64_t shown = std::min(recorded, kMaxSmallMultiples);
  std::vector<int64_t> steps;
  for (int64_t t = 0; t < shown; ++t) steps.push_back(t);
  note->clear();
  if (shown < call.trace.total_steps) {
    *note = call.trace.failed_step >= 0 && shown == recorded
                ? fmt::format("the call stopped at step {} of {}", recorded, call.trace.total_steps)
                : fmt::format("showing the first {} of {} grid steps (`--step` shows any one)",
                              shown, call.trace.total_steps);
  }
  return steps;
}

}  // namespace pz::course
