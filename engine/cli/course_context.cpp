// The course actions shared by subcommands and the REPL.
#include "cli/course_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/report_json.h"
#include "cli/terminal.h"
#include "course/divergence.h"
#include "course/puzzle_file.h"
#include "support/source.h"

namespace pz::cli {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void PrintJson(const json& j) { Out(j.dump(2) + "\n"); }

std::vector<course::Hint> HintsOf(const CourseContext& ctx, const course::PuzzleEntry& p) {
  std::optional<std::string> text = ReadFile(ctx.course.HintsPath(p));
  return text ? course::ParseHints(*text) : std::vector<course::Hint>{};
}

// `path` relative to the working directory, for short messages; absolute when it is far away
// (three or more levels up) or unrelated.
std::string Relative(const fs::path& path) {
  std::error_code ec;
  fs::path rel = fs::relative(path, fs::current_path(ec), ec);
  std::string s = ec || rel.empty() ? path.string() : rel.string();
  return s.rfind("../../../", 0) == 0 ? path.string() : s;
}

}  // namespace

std::string CourseContext::Green(std::string_view s) const {
  return color ? fmt::format("\033[32m{}\033[0m", s) : std::string(s);
}
std::string CourseContext::Red(std::string_view s) const {
  return color ? fmt::format("\033[31m{}\033[0m", s) : std::string(s);
}
std::string CourseContext::Bold(std::string_view s) const {
  return color ? fmt::format("\033[1m{}\033[0m", s) : std::string(s);
}
std::string CourseContext::Dim(std::string_view s) const {
  return color ? fmt::format("\033[2m{}\033[0m", s) : std::string(s);
}

std::optional<int> CourseContext::Load(bool need_workspace) {
  std::error_code ec;
  fs::path here = fs::current_path(ec);
  workspace = course::FindWorkspace(here);
  fs::path root;
  if (workspace && !workspace->course_root.empty() &&
      fs::is_regular_file(workspace->course_root / "puzzles" / "course.json", ec)) {
    root = workspace->course_root;
  } else {
    root = course::FindCourseRoot(here);
  }
  if (root.empty()) {
    std::fputs(
        "pallas-puzzles: cannot find the course (puzzles/course.json); run inside the "
        "repository or set PALLAS_PUZZLES_COURSE to its path\n",
        stderr);
    return kExitIo;
  }
  course::CourseLoad load = course::LoadCourse(root);
  if (!load.ok()) {
    for (const std::string& e : load.errors) std::fprintf(stderr, "course: %s\n", e.c_str());
    if (load.course.Puzzles().empty()) return kExitIo;
  }
  course = std::move(load.course);
  if (!workspace) {
    if (need_workspace) {
      std::fputs(
          "pallas-puzzles: no workspace here; create one with `pallas-puzzles init` (it copies "
          "the puzzles into ./workspace)\n",
          stderr);
      return kExitUsage;
    }
    return std::nullopt;
  }
  course::ProgressLoad progress_load = course::LoadProgress(workspace->ProgressFile());
  if (progress_load.warning) {
    std::fprintf(stderr, "warning: %s\n", progress_load.warning->c_str());
  }
  progress = std::move(progress_load.progress);
  if (progress_load.warning) Save();
  return std::nullopt;
}

void CourseContext::Save() {
  if (!workspace) return;
  if (auto problem = course::SaveProgress(workspace->ProgressFile(), progress)) {
    std::fprintf(stderr, "warning: progress not saved: %s\n", problem->c_str());
  }
}

const course::PuzzleEntry* CourseContext::Current() const {
  if (const course::PuzzleEntry* p = course.Find(progress.current)) return p;
  // The first unsolved puzzle, else the first.
  std::vector<const course::PuzzleEntry*> all = course.Puzzles();
  for (const course::PuzzleEntry* p : all) {
    const course::PuzzleProgress* q = progress.Find(p->name());
    if (!q || !q->solved) return p;
  }
  return all.empty() ? nullptr : all.front();
}

const course::PuzzleEntry* CourseContext::NextUnsolved(const course::PuzzleEntry& p) const {
  std::vector<const course::PuzzleEntry*> all = course.Puzzles();
  auto at = std::find(all.begin(), all.end(), &p);
  size_t start = at == all.end() ? 0 : static_cast<size_t>(at - all.begin()) + 1;
  for (size_t k = 0; k < all.size(); ++k) {
    const course::PuzzleEntry* q = all[(start + k) % all.size()];
    const course::PuzzleProgress* state = progress.Find(q->name());
    if (q != &p && (!state || !state->solved)) return q;
  }
  return nullptr;
}

const course::PuzzleEntry* CourseContext::Resolve(const std::string& name) const {
  if (name.empty()) return Current();
  const course::PuzzleEntry* p = course.Find(name);
  if (!p) {
    std::fprintf(stderr,
                 "pallas-puzzles: no puzzle `%s`; names look like `1.3`, `01_basics/03_...` "
                 "or the puzzle's name (`list` shows them)\n",
                 name.c_str());
  }
  return p;
}

fs::path CourseContext::FileOf(const course::PuzzleEntry& p) const {
  return workspace ? workspace->PuzzlePath(p) : course.StarterPath(p);
}

course::RunOptions CourseRunOptions(bool color) {
  course::RunOptions options;
  options.emulator.lint = true;
  options.color = color;
  return options;
}

std::optional<int> ParseCores(const std::string& command, std::string_view value) {
  if (value == "1" || value == "2") return value[0] - '0';
  std::fprintf(stderr,
               "pallas-puzzles %s: `--cores` is 1 (the default) or 2 (a megacore chip: TPU v4 or "
               "v5p; the leading \"parallel\" grid axes are split across the two TensorCores)\n",
               command.c_str());
  return std::nullopt;
}

namespace {

// Column widths that line up every chapter and puzzle of the course, whatever their names.
struct Columns {
  size_t chapter = 0;  // the longest chapter id
  size_t count = 1;    // digits of the largest chapter's puzzle count
  size_t short_name = 0;
  size_t puzzle = 0;  // the longest puzzle id
};

Columns ColumnsOf(const course::Course& course) {
  Columns w;
  for (const course::ChapterEntry& c : course.chapters) {
    w.chapter = std::max(w.chapter, c.id.size());
    w.count = std::max(w.count, std::to_string(c.puzzles.size()).size());
    for (const course::PuzzleEntry& p : c.puzzles) {
      w.short_name = std::max(w.short_name, p.short_name().size());
      w.puzzle = std::max(w.puzzle, p.id.size());
    }
  }
  return w;
}

// "01_basics   [#####...............]  3/15": the chapter's id padded to the column, then its
// solved puzzles as a bar and a count.
std::string ChapterBar(const CourseContext& ctx, const course::ChapterEntry& c, const Columns& w) {
  constexpr int kBarWidth = 20;
  int solved = 0;
  for (const course::PuzzleEntry& p : c.puzzles) {
    const course::PuzzleProgress* q = ctx.progress.Find(p.name());
    solved += q && q->solved;
  }
  int n = static_cast<int>(c.puzzles.size());
  int filled = n ? solved * kBarWidth / n : 0;
  return fmt::format("{} [{}{}] {:>{}}/{:<{}}", ctx.Bold(fmt::format("{:<{}}", c.id, w.chapter)),
                     ctx.Green(std::string(static_cast<size_t>(filled), '#')),
                     std::string(static_cast<size_t>(kBarWidth - filled), '.'), solved, w.count, n,
                     w.count);
}

}  // namespace

int ListAction(CourseContext& ctx) {
  const course::PuzzleEntry* current = ctx.Current();
  int total = static_cast<int>(ctx.course.Puzzles().size());
  if (ctx.json) {
    json chapters = json::array();
    for (const course::ChapterEntry& c : ctx.course.chapters) {
      json puzzles = json::array();
      for (const course::PuzzleEntry& p : c.puzzles) {
        const course::PuzzleProgress* q = ctx.progress.Find(p.name());
        puzzles.push_back({{"name", p.name()},
                           {"short", p.short_name()},
                           {"title", p.title},
                           {"solved", q && q->solved},
                           {"hints_shown", q ? q->hints_shown : 0},
                           {"current", &p == current}});
      }
      chapters.push_back({{"id", c.id}, {"title", c.title}, {"puzzles", puzzles}});
    }
    PrintJson({{"course", ctx.course.title},
               {"solved", ctx.progress.SolvedCount()},
               {"total", total},
               {"chapters", chapters}});
    return kExitOk;
  }
  Columns w = ColumnsOf(ctx.course);
  for (const course::ChapterEntry& c : ctx.course.chapters) {
    Out(ChapterBar(ctx, c, w) + "  " + ctx.Bold(c.title) + "\n");
    for (const course::PuzzleEntry& p : c.puzzles) {
      const course::PuzzleProgress* q = ctx.progress.Find(p.name());
      std::string mark = q && q->solved ? ctx.Green("✓") : " ";
      std::string arrow = &p == current ? ">" : " ";
      Out(fmt::format(" {} {} {:<{}}  {:<{}}  {}\n", arrow, mark, p.short_name(), w.short_name,
                      p.id, w.puzzle, p.title));
    }
  }
  Out(fmt::format("{} of {} solved\n", ctx.progress.SolvedCount(), total));
  return kExitOk;
}

void GotoAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  ctx.progress.current = p.name();
  ctx.Save();
  Out(fmt::format("{} {}  {}\n", ctx.Bold(p.short_name()), ctx.Bold(p.title),
                  ctx.Dim("(" + Relative(ctx.FileOf(p)) + ")")));
  Out(ctx.Dim("`show` reads the puzzle, `edit` opens it, `check` runs it") + "\n");
}

int ShowAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  fs::path file = ctx.FileOf(p);
  std::optional<std::string> text = ReadFile(file);
  if (!text) {
    std::fprintf(stderr, "pallas-puzzles: cannot read %s (`reset %s` restores it)\n",
                 file.string().c_str(), p.short_name().c_str());
    return kExitIo;
  }
  if (ctx.json) {
    json cells = json::array();
    for (const course::Cell& cell : course::SplitCells(*text)) {
      cells.push_back({{"kind", cell.kind == course::Cell::Kind::kMarkdown ? "markdown" : "code"},
                       {"line", cell.first_line},
                       {"text", cell.text}});
    }
    PrintJson({{"name", p.name()}, {"title", p.title}, {"file", file.string()}, {"cells", cells}});
    return kExitOk;
  }
  std::string shown;
  const course::ChapterEntry* chapter = ctx.course.FindChapter(p.chapter);
  if (p.number == 1 && chapter) {
    if (std::optional<std::string> intro = ReadFile(ctx.course.IntroPath(*chapter))) {
      shown += *intro + "\n";
    }
  }
  for (const course::Cell& cell : course::SplitCells(*text)) {
    if (cell.kind != course::Cell::Kind::kMarkdown) continue;
    for (std::string_view line : course::SplitLines(cell.text)) {
      shown += line.rfind('#', 0) == 0 ? ctx.Bold(line) : std::string(line);
      size_t image = line.find("](");
      if (line.find("![") != std::string_view::npos && image != std::string_view::npos) {
        for (const std::string& name :
             course::ImageReferences("# %% [markdown]\n# " + std::string(line))) {
          shown += "\n" + ctx.Dim("  diagram: " + ctx.course.ImagePath(name).string());
        }
      }
      shown += "\n";
    }
    shown += "\n";
  }
  // Each code cell that holds an editable region, whole, its region's lines marked.
  std::vector<std::string_view> lines = course::SplitLines(*text);
  for (const course::EditableCell& cell : course::EditableCells(*text)) {
    shown += ctx.Bold(fmt::format("your code: {}, lines {}-{}", Relative(file), cell.first_line,
                                  cell.last_line)) +
             "\n";
    shown += ctx.Dim(
                 "you edit the lines marked ▌, between `# YOUR CODE BEGIN` and "
                 "`# YOUR CODE END`; the rest is the puzzle's") +
             "\n";
    for (int line = cell.first_line; line <= cell.last_line; ++line) {
      bool editable = false;
      for (const course::Region& r : cell.regions) {
        editable |= line > r.begin_line && line < r.end_line;
      }
      std::string gutter = fmt::format("{:>4} {}", line, editable ? "▌" : "│");
      std::string_view code = lines[static_cast<size_t>(line - 1)];
      shown += (editable ? ctx.Green(gutter) : ctx.Dim(gutter)) +
               (code.empty() ? "" : " " + std::string(code)) + "\n";
    }
    shown += "\n";
  }
  Page(shown);
  return kExitOk;
}

int CheckAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  fs::path file = ctx.FileOf(p);
  const course::PuzzleEntry* was_current = ctx.Current();
  course::RunOptions options = CourseRunOptions(ctx.color);
  options.emulator.cores = ctx.cores;
  if (ctx.cuda) {
    if (std::optional<std::string> error = UseCudaBackend(options.emulator)) {
      std::fprintf(stderr, "pallas-puzzles check: %s\n", error->c_str());
      return kExitRuntime;
    }
  }
  if (!ctx.json) {
    Out(ctx.Dim(fmt::format("checking {} {} ({})", p.short_name(), p.title, Relative(file))) +
        "\n");
    // The check lines come coloured from their reports (RunOptions::color).
    options.output = [](std::string_view text) {
      Out(std::string(text));
      std::fflush(stdout);
    };
  }
  course::PuzzleRun run = course::RunFile(file, options);
  std::fflush(stdout);
  // A failed check: where the kernel first parts from the solution's, on the emulated TPU.
  std::optional<course::Divergence> divergence;
  if (run.status == course::RunStatus::kFailed) {
    std::error_code ec;
    fs::path solution = ctx.course.SolutionPath(p);
    if (fs::is_regular_file(solution, ec)) {
      divergence = course::FindDivergence(file, solution, CourseRunOptions(false));
    }
  }
  // Progress counts checks on the emulated TPU only: another backend skips its measurements.
  bool became_current = false;
  if (ctx.workspace && !ctx.cuda) {
    became_current = was_current != &p;
    course::PuzzleProgress& q = ctx.progress.Of(p.name());
    ++q.checks;
    if (run.passed() && !q.solved) {
      q.solved = true;
      q.solved_at = course::NowUtc();
    }
    ctx.progress.current = p.name();
    ctx.Save();
  }
  if (ctx.json) {
    json findings = RunFindingsJson(run);
    PrintJson({{"puzzle", p.name()},
               {"status", std::string(course::StatusName(run.status))},
               {"passed", run.passed()},
               {"exit_code", run.exit_code()},
               {"became_current", became_current},
               {"checks", findings["checks"]},
               {"problems", findings["problems"]},
               {"error", run.error},
               {"output", run.output},
               {"diagnostics", run.Diagnostics()},
               {"divergence", divergence ? json{{"summary", divergence->summary},
                                                {"lines", divergence->lines},
                                                {"patterns", divergence->patterns}}
                                         : json(nullptr)}});
    return run.exit_code();
  }
  if (divergence) Out(course::FormatDivergence(*divergence));
  std::fputs(run.Diagnostics(ctx.color).c_str(), stderr);
  std::fflush(stderr);
  if (run.passed() && ctx.cuda) {
    Out(ctx.Green(fmt::format("✓ {} {} passed on the CUDA backend", p.short_name(), p.title)));
    Out(ctx.Dim("  (outputs only: progress counts checks on the emulated TPU, without "
                "`--backend cuda`)") +
        "\n");
  } else if (run.passed()) {
    Out(ctx.Green(fmt::format("✓ {} {} passed", p.short_name(), p.title)));
    Out(ctx.Dim("  (`next` goes on, `solution` shows the reference solution)") + "\n");
  } else {
    std::string why = run.status == course::RunStatus::kNoChecks
                          ? "the file never calls check(...)"
                          : std::string(course::StatusName(run.status));
    Out(ctx.Red(fmt::format("✗ {} {} not solved yet: {}", p.short_name(), p.title, why)));
    Out(ctx.Dim("  (`hint` gives a hint)") + "\n");
  }
  if (became_current) {
    Out(ctx.Dim(fmt::format("current puzzle is now {} {}", p.short_name(), p.title)) + "\n");
  }
  return run.exit_code();
}

int HintAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  std::vector<course::Hint> hints = HintsOf(ctx, p);
  if (hints.empty()) {
    std::fprintf(stderr, "pallas-puzzles: %s has no hints\n", p.name().c_str());
    return kExitIo;
  }
  course::PuzzleProgress& q = ctx.progress.Of(p.name());
  int level = std::min<int>(q.hints_shown + 1, static_cast<int>(hints.size()));
  q.hints_shown = std::max(q.hints_shown, level);
  ctx.Save();
  const course::Hint& hint = hints[static_cast<size_t>(level - 1)];
  if (ctx.json) {
    PrintJson({{"puzzle", p.name()},
               {"level", level},
               {"levels", hints.size()},
               {"title", hint.title},
               {"text", hint.body}});
    return kExitOk;
  }
  Out(ctx.Bold(fmt::format("hint {} of {} — {}", level, hints.size(), hint.title)) + "\n");
  Out(hint.body + "\n");
  if (level == static_cast<int>(hints.size())) {
    Out(ctx.Dim("that was the last hint; `solution` shows the solution if you are stuck") + "\n");
  } else {
    Out(ctx.Dim("`hint` again for the next level") + "\n");
  }
  return kExitOk;
}

int HintsShownAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  std::vector<course::Hint> hints = HintsOf(ctx, p);
  const course::PuzzleProgress* q = ctx.progress.Find(p.name());
  int shown = q ? std::min<int>(q->hints_shown, static_cast<int>(hints.size())) : 0;
  if (shown == 0) {
    Out("no hints shown yet for " + p.short_name() + "; `hint` shows the first\n");
    return kExitOk;
  }
  for (int i = 0; i < shown; ++i) {
    const course::Hint& hint = hints[static_cast<size_t>(i)];
    Out(ctx.Bold(fmt::format("hint {} of {} — {}", i + 1, hints.size(), hint.title)) + "\n");
    Out(hint.body + "\n\n");
  }
  return kExitOk;
}

int SolutionAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  std::vector<course::Hint> hints = HintsOf(ctx, p);
  course::PuzzleProgress& q = ctx.progress.Of(p.name());
  bool after_hints = q.hints_shown >= static_cast<int>(hints.size());
  if (!q.solved && !(after_hints && ctx.confirmed)) {
    if (!after_hints) {
      Out(
          fmt::format("the solution opens once {} passes, or after its last hint ({} of {} "
                      "shown); try `hint`\n",
                      p.short_name(), q.hints_shown, hints.size()));
    } else {
      Out("the solution opens once the puzzle passes; confirm to see it anyway\n");
    }
    return kExitCheckFailed;
  }
  std::optional<std::string> text = ReadFile(ctx.course.SolutionPath(p));
  if (!text) {
    std::fprintf(stderr, "pallas-puzzles: cannot read the solution of %s\n", p.name().c_str());
    return kExitIo;
  }
  q.solution_shown = true;
  ctx.Save();
  course::RegionScan scan = course::FindRegions(*text);
  Out(ctx.Bold("solution of " + p.short_name() + " " + p.title) + "\n");
  for (const course::Region& r : scan.regions) {
    Out(ctx.Dim(fmt::format("lines {}-{}:", r.begin_line + 1, r.end_line - 1)) + "\n");
    Out(course::RegionText(*text, r));
  }
  return kExitOk;
}

int ProgressAction(CourseContext& ctx) {
  std::vector<const course::PuzzleEntry*> all = ctx.course.Puzzles();
  if (ctx.json) {
    json puzzles = json::object();
    for (const auto& [name, q] : ctx.progress.puzzles) {
      puzzles[name] = {{"solved", q.solved},
                       {"hints_shown", q.hints_shown},
                       {"solution_shown", q.solution_shown},
                       {"checks", q.checks}};
    }
    PrintJson({{"solved", ctx.progress.SolvedCount()},
               {"total", all.size()},
               {"current", ctx.Current() ? ctx.Current()->name() : ""},
               {"puzzles", puzzles}});
    return kExitOk;
  }
  Columns w = ColumnsOf(ctx.course);
  for (const course::ChapterEntry& c : ctx.course.chapters) {
    Out(ChapterBar(ctx, c, w) + "  " + c.title + "\n");
  }
  Out(fmt::format("{} of {} puzzles solved\n", ctx.progress.SolvedCount(), all.size()));
  return kExitOk;
}

namespace {

// `reset --restore`: the latest backup back in the learner's file.
int RestoreAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  std::optional<fs::path> backup = course::LatestBackup(*ctx.workspace, p);
  if (!backup) {
    std::fprintf(stderr,
                 "pallas-puzzles: no backup of %s to restore; `reset %s` keeps one each time it "
                 "restores the starter\n",
                 p.short_name().c_str(), p.short_name().c_str());
    return kExitUsage;
  }
  course::RestoreReport report = course::RestoreBackup(ctx.course, *ctx.workspace, p, *backup);
  if (report.error) {
    std::fprintf(stderr, "pallas-puzzles: %s\n", report.error->c_str());
    return kExitIo;
  }
  Out(fmt::format(
      "restored your version of {} from {}{}\n", p.short_name(), Relative(*backup),
      report.saved.empty() ? "" : "; the file it replaced is saved as " + Relative(report.saved)));
  return kExitOk;
}

}  // namespace

int ResetAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  if (!ctx.workspace) {
    std::fputs("pallas-puzzles: no workspace; `pallas-puzzles init` creates one\n", stderr);
    return kExitUsage;
  }
  if (ctx.restore) return RestoreAction(ctx, p);
  fs::path backup;
  if (auto problem = course::ResetPuzzle(ctx.course, *ctx.workspace, p, &backup)) {
    std::fprintf(stderr, "pallas-puzzles: %s\n", problem->c_str());
    return kExitIo;
  }
  auto q = ctx.progress.puzzles.find(p.name());
  bool was_solved = q != ctx.progress.puzzles.end() && q->second.solved;
  if (was_solved) {
    q->second.solved = false;
    q->second.solved_at.clear();
    ctx.Save();
  }
  Out(fmt::format("restored the starter of {}{}\n", p.short_name(),
                  backup.empty() ? ""
                                 : "; your version is saved as " + Relative(backup) +
                                       " (`reset --restore` brings it back)"));
  if (was_solved) Out(fmt::format("{} is no longer marked solved\n", p.short_name()));
  return kExitOk;
}

int RunFileAction(CourseContext& ctx, const std::string& file) {
  course::RunOptions options = CourseRunOptions(ctx.color);
  options.output = [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  };
  course::PuzzleRun run = course::RunFile(file, options);
  std::fputs(run.Diagnostics(ctx.color).c_str(), stderr);
  if (run.status == course::RunStatus::kNoChecks) return kExitOk;
  return run.exit_code();
}

}  // namespace pz::cli
