// `pallas-puzzles diagram`: runs a puzzle's solution (or the learner's file, or any file) with
// block recording on, and draws what one of its pallas_calls does, from the block indices the
// emulator used: as SVG (`--svg`), or in the terminal with Unicode blocks and ANSI colour, one
// step, all steps, or a walk through the grid. Also `export-diagrams`, which regenerates the
// diagrams the chapters declare (puzzles/README.md).
#include "cli/diagram_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "cli/terminal.h"
#include "course/diagram.h"

namespace pz::cli {
namespace fs = std::filesystem;
using course::BlockRole;
using tpu::TupleString;

namespace {

const char* AnsiOf(BlockRole role) {
  switch (role) {
    case BlockRole::kInput:
      return "\033[34m";
    case BlockRole::kScratch:
      return "\033[33m";
    case BlockRole::kOutput:
      return "\033[32m";
    case BlockRole::kSkipped:
      return "\033[90m";
    case BlockRole::kError:
      return "\033[31m";
  }
  return "";
}

// Two columns per cell: resident blocks are solid, the others shaded, errors crossed.
const char* GlyphOf(BlockRole role) {
  switch (role) {
    case BlockRole::kSkipped:
      return "░░";
    case BlockRole::kError:
      return "XX";
    default:
      return "██";
  }
}

std::string CellRow(const std::vector<BlockRole>& cells, size_t from, int64_t n, bool color) {
  std::string row;
  for (int64_t c = 0; c < n; ++c) {
    BlockRole role = cells[from + static_cast<size_t>(c)];
    row += color ? fmt::format("{}{}\033[0m", AnsiOf(role), GlyphOf(role)) : GlyphOf(role);
  }
  return row;
}

// The grid's cells: the current step solid (magenta), the others shaded.
std::vector<std::string> GridRows(const tpu::CallRecord& call, int64_t step, bool color) {
  course::GridShape g = course::GridLayout(call.grid);
  std::vector<std::string> rows;
  for (int64_t r = 0; r < g.rows; ++r) {
    std::string row;
    for (int64_t c = 0; c < g.cols; ++c) {
      bool current = g.Holds(r, c, step);
      const char* glyph = current ? "██" : "░░";
      row += color ? fmt::format("{}{}\033[0m", current ? "\033[35m" : "\033[90m", glyph) : glyph;
    }
    rows.push_back(row);
  }
  return rows;
}

std::string Bold(const std::string& s, bool color) { return color ? "\033[1m" + s + "\033[0m" : s; }

}  // namespace

std::string RenderStepText(const tpu::CallRecord& call, int64_t step, bool color) {
  course::StepPicture pic = course::PictureOf(call, step);
  size_t width = 4;
  for (const course::OperandPicture& op : pic.operands) width = std::max(width, op.name.size());
  std::string pad(width + 4, ' ');
  std::string text = Bold(course::StepTitle(call, pic), color) + "\n";
  if (pic.failed) {
    text += (color ? "\033[31m" + pic.failure + "\033[0m" : pic.failure) + "\n";
  }
  auto label = [&](const std::string& name) {
    return "  " + Bold(name, color) + std::string(width + 2 - name.size(), ' ');
  };
  std::vector<std::string> grid = GridRows(call, step, color);
  text += label("grid") + "program ids " + TupleString(pic.point) + "\n";
  if (std::string note = course::GridLayout(call.grid).note; !note.empty()) {
    text += pad + note + "\n";
  }
  for (const std::string& row : grid) text += pad + row + "\n";
  for (const course::OperandPicture& op : pic.operands) {
    std::string facts = op.kind + " " + op.shape + ", " + op.block;
    if (!op.index.empty()) facts += ", " + op.index;
    text += label(op.name) + facts + "\n";
    if (!op.note.empty()) text += pad + op.note + "\n";
    for (int64_t r = 0; r < op.rows; ++r) {
      text += pad + CellRow(op.cells, static_cast<size_t>(r * op.cols), op.cols, color) + "\n";
    }
  }
  return text;
}

std::string LegendText(bool color) {
  auto entry = [&](BlockRole role, const char* label) {
    std::string glyph = color ? fmt::format("{}{}\033[0m", AnsiOf(role), GlyphOf(role))
                              : std::string(GlyphOf(role));
    return glyph + " " + label;
  };
  return entry(BlockRole::kInput, "input") + "  " + entry(BlockRole::kOutput, "output") + "  " +
         entry(BlockRole::kScratch, "scratch") + "  (in VMEM at this step)  " +
         entry(BlockRole::kSkipped, "not resident") + "  " + entry(BlockRole::kError, "error") +
         "\n";
}

namespace {

std::optional<int> ParseArgs(const std::vector<std::string>& args, DiagramRequest& request) {
  auto value = [&](size_t& i, const std::string& flag) -> std::optional<std::string> {
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "pallas-puzzles diagram: `%s` needs a value\n", flag.c_str());
      return std::nullopt;
    }
    return args[++i];
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::optional<std::string> v;
    if (a == "--file" || a == "--svg" || a == "--step" || a == "--call" || a == "--color") {
      if (!(v = value(i, a))) return kExitUsage;
    }
    if (a == "--file") {
      request.file = *v;
    } else if (a == "--svg") {
      request.svg = *v;
    } else if (a == "--step") {
      request.step = *v;
    } else if (a == "--call") {
      if (v->empty() || v->size() > 4 || v->find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(*v) < 1) {
        std::fprintf(stderr, "pallas-puzzles diagram: `--call` takes 1, 2, ...\n");
        return kExitUsage;
      }
      request.call = std::stoi(*v);
    } else if (a == "--color" || a.rfind("--color=", 0) == 0) {
      std::string mode = v ? *v : a.substr(8);
      if (mode != "auto" && mode != "always" && mode != "never") {
        std::fprintf(stderr, "pallas-puzzles diagram: `--color` is auto, always or never\n");
        return kExitUsage;
      }
      request.color = mode;
    } else if (a == "--all-steps") {
      request.all_steps = true;
    } else if (a == "--walk") {
      request.walk = true;
    } else if (a == "--workspace") {
      request.source = DiagramRequest::Source::kWorkspace;
    } else if (a == "--solution") {
      request.source = DiagramRequest::Source::kSolution;
    } else if (a == "--help" || a == "-h") {
      for (const Command& c : Commands()) {
        if (c.name == "diagram") std::printf("usage: pallas-puzzles %s\n", c.usage.data());
      }
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "pallas-puzzles diagram: unknown option `%s`\n", a.c_str());
      return kExitUsage;
    } else if (request.puzzle.empty()) {
      request.puzzle = a;
    } else {
      std::fputs("pallas-puzzles diagram: too many arguments\n", stderr);
      return kExitUsage;
    }
  }
  if (request.all_steps && (request.walk || !request.step.empty())) {
    std::fputs("pallas-puzzles diagram: --all-steps draws every step; drop --step and --walk\n",
               stderr);
    return kExitUsage;
  }
  if (request.walk && !request.svg.empty()) {
    std::fputs("pallas-puzzles diagram: --walk draws in the terminal, not into --svg\n", stderr);
    return kExitUsage;
  }
  return std::nullopt;
}

// The file the request draws; prints why not and returns an exit code when there is none.
std::optional<int> FileOf(CourseContext& ctx, const DiagramRequest& request, fs::path& file) {
  if (!request.file.empty()) {
    file = request.file;
    return std::nullopt;
  }
  const course::PuzzleEntry* p = ctx.Resolve(request.puzzle);
  if (!p) return kExitUsage;
  if (request.source == DiagramRequest::Source::kWorkspace) {
    if (!ctx.workspace) {
      std::fputs("pallas-puzzles diagram: no workspace here for --workspace\n", stderr);
      return kExitUsage;
    }
    file = ctx.FileOf(*p);
  } else {
    const course::PuzzleProgress* q = ctx.progress.Find(p->name());
    if (request.gate_solution && !(q && (q->solved || q->solution_shown))) {
      std::printf(
          "the solution's diagram shows its index maps, so it opens once %s passes (or after "
          "`solution`); `diagram` alone draws your own file\n",
          p->short_name().c_str());
      return kExitCheckFailed;
    }
    file = ctx.course.SolutionPath(*p);
  }
  return std::nullopt;
}

int Walk(const tpu::CallRecord& call, int64_t start, bool color) {
  auto recorded = static_cast<int64_t>(call.trace.steps.size());
  for (int64_t t = start; t < recorded; ++t) {
    Out(RenderStepText(call, t, color));
    if (t + 1 == recorded) {
      Out(recorded < call.trace.total_steps ? "(no more steps recorded)\n" : "(last step)\n");
      break;
    }
    Out("Enter: next step, q: quit > ");
    std::fflush(stdout);
    std::optional<std::string> line = ReadInputLine();
    if (!line) {
      Out("\n");
      break;
    }
    if (*line == "q" || *line == "quit") break;
    Out("\n");
  }
  Out(LegendText(color));
  return kExitOk;
}

}  // namespace

int DrawDiagram(CourseContext& ctx, const DiagramRequest& request) {
  fs::path file;
  if (auto exit = FileOf(ctx, request, file)) return *exit;
  course::RunOptions options = CourseRunOptions(false);
  options.emulator.lint = false;
  options.emulator.record_blocks = true;
  course::PuzzleRun run = course::RunFile(file, options);
  if (run.status == course::RunStatus::kSyntaxError || run.status == course::RunStatus::kIoError) {
    std::fputs(run.Diagnostics().c_str(), stderr);
    return run.exit_code();
  }
  if (run.calls.empty()) {
    std::fprintf(stderr, "pallas-puzzles diagram: %s runs no pallas_call%s%s\n",
                 file.string().c_str(),
                 run.error.empty() ? "" : "; it stopped with: ", run.error.c_str());
    return run.error.empty() ? kExitCheckFailed : run.exit_code();
  }
  if (static_cast<size_t>(request.call) > run.calls.size()) {
    std::fprintf(stderr, "pallas-puzzles diagram: --call %d, but %s makes %zu pallas_call%s\n",
                 request.call, file.string().c_str(), run.calls.size(),
                 run.calls.size() == 1 ? "" : "s");
    return kExitUsage;
  }
  const tpu::CallRecord& call = run.calls[static_cast<size_t>(request.call - 1)];
  if (call.trace.steps.empty()) {
    std::fprintf(stderr, "pallas-puzzles diagram: %s: the call ran no grid step\n",
                 call.name.c_str());
    return kExitCheckFailed;
  }
  // The default step: where the call failed, else the first.
  int64_t start = std::max<int64_t>(call.trace.failed_step, 0);
  if (!request.step.empty()) {
    course::StepChoice choice = course::ParseStep(call, request.step);
    if (!choice.error.empty()) {
      std::fprintf(stderr, "pallas-puzzles diagram: %s\n", choice.error.c_str());
      return kExitUsage;
    }
    start = choice.step;
  }
  std::string note;
  std::vector<int64_t> steps =
      request.all_steps ? course::AllSteps(call, &note) : std::vector<int64_t>{start};
  if (!request.svg.empty()) {
    std::ofstream out(request.svg, std::ios::binary);
    out << course::RenderSvg(call, steps, note);
    if (!out) {
      std::fprintf(stderr, "pallas-puzzles diagram: cannot write %s\n", request.svg.c_str());
      return kExitIo;
    }
    Out(fmt::format("wrote {} ({} of {})\n", request.svg,
                    steps.size() == 1 ? "1 step" : fmt::format("{} steps", steps.size()),
                    course::CallTitle(call)));
    return kExitOk;
  }
  bool color = request.color == "always" || (request.color == "auto" && UseColor(stdout));
  Out(Bold(course::CallTitle(call), color) + "\n");
  if (request.walk) return Walk(call, start, color);
  for (size_t i = 0; i < steps.size(); ++i)
    Out((i ? "\n" : "") + RenderStepText(call, steps[i], color));
  if (!note.empty()) Out(note + "\n");
  Out(LegendText(color));
  return kExitOk;
}

int DiagramWithArgs(CourseContext& ctx, const std::vector<std::string>& args,
                    DiagramRequest request) {
  if (auto exit = ParseArgs(args, request)) return *exit;
  return DrawDiagram(ctx, request);
}

int DiagramCommand(const std::vector<std::string>& args) {
  DiagramRequest request;
  if (auto exit = ParseArgs(args, request)) return *exit;
  CourseContext ctx{.color = UseColor(stdout)};
  if (request.file.empty()) {
    if (auto exit = ctx.Load(request.source == DiagramRequest::Source::kWorkspace)) return *exit;
  }
  return DrawDiagram(ctx, request);
}

int ExportDiagramsCommand(const std::vector<std::string>& args) {
  if (args.size() > 1 || (!args.empty() && args[0][0] == '-')) {
    std::fputs("usage: pallas-puzzles export-diagrams [DIR]\n", stderr);
    return args.size() == 1 && (args[0] == "--help" || args[0] == "-h") ? kExitOk : kExitUsage;
  }
  CourseContext ctx;
  if (auto exit = ctx.Load(false)) return *exit;
  fs::path dir = args.empty() ? ctx.course.root / "images" : fs::path(args[0]);
  std::error_code ec;
  fs::create_directories(dir, ec);
  int worst = kExitOk;
  for (const course::ChapterEntry& chapter : ctx.course.chapters) {
    for (const course::DiagramEntry& d : chapter.diagrams) {
      const course::PuzzleEntry* p = ctx.course.FindDiagramPuzzle(chapter, d);
      if (!p) {
        std::fprintf(stderr, "pallas-puzzles export-diagrams: %s: no puzzle `%s`\n",
                     d.image.c_str(), d.puzzle.c_str());
        worst = kExitUsage;
        continue;
      }
      int exit = kExitOk;
      if (d.command == "roofline") {
        std::vector<std::string> args = {p->name(), "--quiet", "--svg", (dir / d.image).string()};
        args.insert(args.end(), d.args.begin(), d.args.end());
        exit = RooflineCommand(args);
      } else {
        DiagramRequest request{.puzzle = p->name(), .svg = (dir / d.image).string()};
        exit = DiagramWithArgs(ctx, d.args, request);
      }
      if (exit != kExitOk) worst = exit;
    }
  }
  return worst;
}

}  // namespace pz::cli
