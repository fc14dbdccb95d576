// The SVG drawing of a pallas_call picture (course/diagram.h): one grid step in detail, or small
// multiples of many steps. Deterministic (integer coordinates, no ids or dates) and
// self-contained (no fonts or images loaded).
#include <fmt/format.h>

#include <algorithm>

#include "course/diagram.h"

namespace pz::course {
namespace {

using tpu::TupleString;

constexpr const char* kFont = "Helvetica, Arial, sans-serif";
// Page width the panels wrap at.
constexpr int kPageWidth = 960;
constexpr int kMargin = 16;

struct Colors {
  const char* fill;
  const char* stroke;
};

Colors ColorsOf(BlockRole role) {
  switch (role) {
    case BlockRole::kInput:
      return {"#dae8fc", "#6c8ebf"};
    case BlockRole::kScratch:
      return {"#fff2cc", "#d6b656"};
    case BlockRole::kOutput:
      return {"#d5e8d4", "#82b366"};
    case BlockRole::kSkipped:
      return {"#f5f5f5", "#b3b3b3"};
    case BlockRole::kError:
      return {"#f8cecc", "#b85450"};
  }
  return {"#ffffff", "#000000"};
}

// The current grid step in the grid panel.
constexpr Colors kCurrentStep = {"#e1d5e7", "#9673a6"};
constexpr Colors kOtherStep = {"#ffffff", "#b3b3b3"};

class Canvas {
 public:
  void Rect(int x, int y, int w, int h, Colors c, int stroke_width = 1) {
    body_ += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\" "
        "stroke-width=\"{}\"/>\n",
        x, y, w, h, c.fill, c.stroke, stroke_width);
    Extend(x + w, y + h);
  }
  void Text(int x, int y, std::string_view text, int size, bool bold = false,
            const char* color = "#222222") {
    body_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\"{} fill=\"{}\">{}</text>\n", x, y,
                         size, bold ? " font-weight=\"bold\"" : "", color, SvgEscape(text));
    Extend(x + SvgTextWidth(text, size), y + 4);
  }
  std::string Finish() const {
    int w = width_ + kMargin, h = height_ + kMargin;
    return fmt::format(
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
               "viewBox=\"0 0 {} {}\" font-family=\"{}\">\n"
               "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
               w, h, w, h, kFont, w, h) +
           body_ + "</svg>\n";
  }

 private:
  void Extend(int x, int y) {
    width_ = std::max(width_, x);
    height_ = std::max(height_, y);
  }
  std::string body_;
  int width_ = 0, height_ = 0;
};

// Cell size for a rows x cols grid drawn in about `budget` pixels.
int CellSize(int64_t rows, int64_t cols, int budget, int lo, int hi) {
  int64_t n = std::max<int64_t>(std::max(rows, cols), 1);
  return std::clamp(static_cast<int>(budget / n), lo, hi);
}

void Cells(Canvas& canvas, int x, int y, int cell, int64_t rows, int64_t cols,
           const std::vector<BlockRole>& cells) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      BlockRole role = cells[static_cast<size_t>(r * cols + c)];
      canvas.Rect(x + static_cast<int>(c) * cell, y + static_cast<int>(r) * cell, cell, cell,
                  ColorsOf(role), role == BlockRole::kSkipped ? 1 : 2);
    }
  }
}

void GridCells(Canvas& canvas, int x, int y, int cell, const tpu::CallRecord& call, int64_t step) {
  GridShape g = GridLayout(call.grid);
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t c = 0; c < g.cols; ++c) {
      bool current = g.Holds(r, c, step);
      canvas.Rect(x + static_cast<int>(c) * cell, y + static_cast<int>(r) * cell, cell, cell,
                  current ? kCurrentStep : kOtherStep, current ? 2 : 1);
    }
  }
}

// The colour key: the current grid step and the roles that occur in `pics`, in a fixed order.
void Legend(Canvas& canvas, int x, int y, const std::vector<StepPicture>& pics) {
  const std::pair<BlockRole, const char*> entries[] = {{BlockRole::kInput, "input block in VMEM"},
                                                       {BlockRole::kOutput, "output block in VMEM"},
                                                       {BlockRole::kScratch, "scratch"},
                                                       {BlockRole::kSkipped, "not resident"},
                                                       {BlockRole::kError, "error"}};
  auto swatch = [&](Colors colors, const char* label) {
    canvas.Rect(x, y - 10, 12, 12, colors);
    canvas.Text(x + 17, y, label, 11);
    x += 17 + SvgTextWidth(label, 11) + 14;
  };
  swatch(kCurrentStep, "current grid step");
  for (const auto& [role, label] : entries) {
    bool used = false;
    for (const StepPicture& pic : pics) {
      for (const OperandPicture& op : pic.operands) {
        used |= std::find(op.cells.begin(), op.cells.end(), role) != op.cells.end();
      }
    }
    if (used) swatch(ColorsOf(role), label);
  }
}

// One step in detail: a panel per operand (and the grid), wrapping at the page width.
std::string DetailSvg(const tpu::CallRecord& call, int64_t step) {
  StepPicture pic = PictureOf(call, step);
  Canvas canvas;
  int y = kMargin + 14;
  canvas.Text(kMargin, y, CallTitle(call), 15, true);
  y += 20;
  canvas.Text(kMargin, y, StepTitle(call, pic), 13);
  if (pic.failed) {
    y += 18;
    canvas.Text(kMargin, y, pic.failure, 12, false, "#b85450");
  }
  y += 30;
  int x = kMargin, row_bottom = y;
  auto place = [&](int width, int height) {
    if (x > kMargin && x + width > kPageWidth) {
      x = kMargin;
      y = row_bottom + 24;
    }
    row_bottom = std::max(row_bottom, y + height);
  };
  // The grid.
  GridShape g = GridLayout(call.grid);
  int gcell = CellSize(g.rows, g.cols, 160, 8, 28);
  std::string gridline = call.grid.empty() ? "()" : TupleString(call.grid);
  int gw = std::max({static_cast<int>(g.cols) * gcell, SvgTextWidth("program ids " + gridline, 11),
                     SvgTextWidth(g.note, 11)});
  int gtext = g.note.empty() ? 26 : 40;
  place(gw, gtext + static_cast<int>(g.rows) * gcell);
  canvas.Text(x, y, "grid", 13, true);
  canvas.Text(x, y + 16, "program ids " + TupleString(pic.point), 11);
  if (!g.note.empty()) canvas.Text(x, y + 30, g.note, 11);
  GridCells(canvas, x, y + gtext, gcell, call, step);
  x += gw + 32;
  for (const OperandPicture& op : pic.operands) {
    int cell = CellSize(op.rows, op.cols, 160, 8, 32);
    std::vector<std::string> lines = {op.kind + " " + op.shape, op.block};
    if (!op.index.empty()) lines.back() += ", " + op.index;
    if (!op.note.empty()) lines.push_back(op.note);
    int w = std::max(static_cast<int>(op.cols) * cell, SvgTextWidth(op.name, 13));
    for (const std::string& line : lines) w = std::max(w, SvgTextWidth(line, 11));
    int text_h = 8 + 14 * static_cast<int>(lines.size());
    place(w, text_h + 10 + static_cast<int>(op.rows) * cell);
    canvas.Text(x, y, op.name, 13, true);
    for (size_t i = 0; i < lines.size(); ++i) {
      canvas.Text(x, y + 16 + 14 * static_cast<int>(i), lines[i], 11);
    }
    Cells(canvas, x, y + text_h + 10, cell, op.rows, op.cols, op.cells);
    x += w + 32;
  }
  Legend(canvas, kMargin, row_bottom + 30, {pic});
  return canvas.Finish();
}

// Small multiples: one tile per step, each with the grid and every operand's cells.
std::string StepsSvg(const tpu::CallRecord& call, const std::vector<int64_t>& steps,
                     const std::string& note) {
  Canvas canvas;
  int y = kMargin + 14;
  canvas.Text(kMargin, y, CallTitle(call), 15, true);
  std::vector<StepPicture> pics;
  for (int64_t t : steps) pics.push_back(PictureOf(call, t));
  // The operands, once.
  y += 6;
  for (const OperandPicture& op : pics.front().operands) {
    y += 16;
    std::string line = fmt::format("{}: {} {}, {}", op.name, op.kind, op.shape, op.block);
    canvas.Text(kMargin, y, line, 12);
  }
  y += 26;
  // Tile geometry, the same for every tile.
  GridShape g = GridLayout(call.grid);
  int gcell = CellSize(g.rows, g.cols, 72, 5, 16);
  int tile_w = std::max(static_cast<int>(g.cols) * gcell, 120);
  int tile_h = 22 + static_cast<int>(g.rows) * gcell + 8;
  std::vector<int> cell_of;
  for (const OperandPicture& op : pics.front().operands) {
    int cell = CellSize(op.rows, op.cols, 96, 4, 18);
    cell_of.push_back(cell);
    tile_w = std::max({tile_w, static_cast<int>(op.cols) * cell, SvgTextWidth(op.name, 10)});
    tile_h += 16 + static_cast<int>(op.rows) * cell + 6;
  }
  int columns = std::max(
      1, std::min<int>(static_cast<int>(pics.size()), (kPageWidth - kMargin) / (tile_w + 24)));
  for (size_t i = 0; i < pics.size(); ++i) {
    const StepPicture& pic = pics[i];
    int x = kMargin + static_cast<int>(i % static_cast<size_t>(columns)) * (tile_w + 24);
    int ty = y + static_cast<int>(i / static_cast<size_t>(columns)) * (tile_h + 24);
    canvas.Text(x, ty, "step " + TupleString(pic.point), 12, true,
                pic.failed ? "#b85450" : "#222222");
    GridCells(canvas, x, ty + 8, gcell, call, pic.step);
    int oy = ty + 8 + static_cast<int>(g.rows) * gcell + 8;
    for (size_t k = 0; k < pic.operands.size(); ++k) {
      const OperandPicture& op = pic.operands[k];
      canvas.Text(x, oy + 10, op.name, 10);
      Cells(canvas, x, oy + 16, cell_of[k], op.rows, op.cols, op.cells);
      oy += 16 + static_cast<int>(op.rows) * cell_of[k] + 6;
    }
  }
  int rows = (static_cast<int>(pics.size()) + columns - 1) / columns;
  int bottom = y + rows * (tile_h + 24);
  if (pics.back().failed) {
    canvas.Text(kMargin, bottom, pics.back().failure, 12, false, "#b85450");
    bottom += 20;
  }
  if (!note.empty()) {
    canvas.Text(kMargin, bottom, note, 12, false, "#555555");
    bottom += 20;
  }
  Legend(canvas, kMargin, bottom + 10, pics);
  return canvas.Finish();
}

}  // namespace

std::string RenderSvg(const tpu::CallRecord& call, const std::vector<int64_t>& steps,
                      const std::string& note) {
  if (steps.size() == 1) return DetailSvg(call, steps[0]);
  return StepsSvg(call, steps, note);
}

std::string SvgEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

int SvgTextWidth(std::string_view text, int size) {
  return static_cast<int>(static_cast<double>(text.size()) * size * 0.56) + 2;
}

}  // namespace pz::course
