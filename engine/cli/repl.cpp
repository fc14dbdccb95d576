// The REPL (`pallas-puzzles` with no arguments): one command table that dispatches and
// generates `help`; readline with history and completion on a terminal, plain line input
// otherwise; the prompt shows the current puzzle and progress.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "cli/commands.h"
#include "cli/course_context.h"
#include "cli/diagram_command.h"
#include "cli/terminal.h"
#include "cli/watch.h"
#include "course/puzzle_file.h"
#include "support/source.h"

#ifdef PZ_HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

namespace pz::cli {
namespace fs = std::filesystem;

namespace {

// Maximum history lines kept in the workspace's .history.
constexpr int kHistoryLines = 1000;

struct Repl;

struct ReplCommand {
  std::string_view name;
  std::string_view args;  // e.g. "[puzzle]"
  std::string_view summary;
  // Returns false to leave the REPL.
  bool (*run)(Repl& repl, const std::vector<std::string>& args);
};

const std::vector<ReplCommand>& ReplCommands();

// Reads lines: readline on a terminal (when built with it), else unbuffered reads of standard
// input, so `watch` can share it.
class LineReader {
 public:
  explicit LineReader(fs::path history) : history_(std::move(history)) {
    tty_ = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
#ifdef PZ_HAVE_READLINE
    if (tty_) {
      using_history();
      read_history(history_.string().c_str());
    }
#endif
  }
  ~LineReader() {
#ifdef PZ_HAVE_READLINE
    if (tty_ && !history_.empty()) {
      write_history(history_.string().c_str());
      history_truncate_file(history_.string().c_str(), kHistoryLines);
    }
#endif
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  std::optional<std::string> Read(const std::string& prompt) {
#ifdef PZ_HAVE_READLINE
    if (tty_) {
      char* line = readline(prompt.c_str());
      if (line == nullptr) return std::nullopt;
      std::string text(line);
      std::free(line);
      if (!text.empty()) add_history(text.c_str());
      return text;
    }
#endif
    if (tty_) {
      std::fputs(prompt.c_str(), stdout);
      std::fflush(stdout);
    }
    return ReadInputLine();
  }

  bool tty() const { return tty_; }

 private:
  fs::path history_;
  bool tty_ = false;
};

struct Repl {
  CourseContext ctx;
  std::unique_ptr<LineReader> reader;

  const course::PuzzleEntry* Puzzle(const std::vector<std::string>& args) {
    return ctx.Resolve(args.empty() ? "" : args[0]);
  }

  std::string Prompt() const {
    const course::PuzzleEntry* p = ctx.Current();
    std::string where = p ? fmt::format("{} {}", p->short_name(), p->id) : "";
    std::string counts =
        fmt::format("{}/{}", ctx.progress.SolvedCount(), ctx.course.Puzzles().size());
    return fmt::format("{} {}> ", where, ctx.Dim("[" + counts + "]"));
  }

  bool Confirm(const std::string& question) {
    std::optional<std::string> answer = reader->Read(question + " [y/N] ");
    if (!reader->tty() && answer) std::printf("%s [y/N] %s\n", question.c_str(), answer->c_str());
    return answer && (*answer == "y" || *answer == "Y" || *answer == "yes");
  }
};

// Moves the current puzzle by `delta` in course order.
bool Step(Repl& r, int delta) {
  std::vector<const course::PuzzleEntry*> all = r.ctx.course.Puzzles();
  const course::PuzzleEntry* current = r.ctx.Current();
  auto it = std::find(all.begin(), all.end(), current);
  int at = static_cast<int>(it - all.begin()) + delta;
  if (at < 0 || at >= static_cast<int>(all.size())) {
    std::printf("%s\n", delta > 0 ? "this is the last puzzle" : "this is the first puzzle");
    return true;
  }
  const course::PuzzleEntry* next = all[static_cast<size_t>(at)];
  if (delta > 0 && next->number == 1 && current) {
    if (const course::ChapterEntry* done = r.ctx.course.FindChapter(current->chapter)) {
      if (auto summary = ReadFile(r.ctx.course.SummaryPath(*done))) {
        std::printf("%s\n", summary->c_str());
      }
    }
  }
  GotoAction(r.ctx, *next);
  return true;
}

bool Edit(Repl& r, const std::vector<std::string>& args) {
  const course::PuzzleEntry* p = r.Puzzle(args);
  if (!p) return true;
  fs::path file = r.ctx.FileOf(*p);
  std::optional<std::string> editor = FindEditor();
  if (!editor) {
    std::printf(
        "no editor found: set $VISUAL or $EDITOR (none of `editor`, `nano`, `vi` is on PATH); "
        "the file is %s\n",
        file.string().c_str());
    return true;
  }
  std::string quoted = "'";
  for (char c : file.string()) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  std::fflush(stdout);
  int status = std::system((*editor + " " + quoted).c_str());
  if (status == -1 || !WIFEXITED(status)) {
    std::printf("the editor `%s` could not be run\n", editor->c_str());
  } else if (WEXITSTATUS(status) == 127) {
    std::printf("the editor `%s` was not found; set $VISUAL or $EDITOR\n", editor->c_str());
  } else if (WEXITSTATUS(status) != 0) {
    std::printf("the editor `%s` exited with status %d\n", editor->c_str(), WEXITSTATUS(status));
  }
  return true;
}

// `check [--cores 1|2] [puzzle]`.
bool Check(Repl& r, const std::vector<std::string>& args) {
  std::vector<std::string> puzzle;
  int cores = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--cores" || args[i].rfind("--cores=", 0) == 0) {
      std::string value =
          args[i] == "--cores" ? (i + 1 < args.size() ? args[++i] : "") : args[i].substr(8);
      std::optional<int> parsed = ParseCores("check", value);
      if (!parsed) return true;
      cores = *parsed;
    } else if (args[i].rfind("--", 0) == 0 || !puzzle.empty()) {
      std::printf("`check` takes `--cores 1|2` and a puzzle; `help` shows its usage\n");
      return true;
    } else {
      puzzle.push_back(args[i]);
    }
  }
  if (const course::PuzzleEntry* p = r.Puzzle(puzzle)) {
    r.ctx.cores = cores;
    CheckAction(r.ctx, *p);
    r.ctx.cores = 1;
  }
  return true;
}

// `reset [--restore] [puzzle]`.
bool Reset(Repl& r, const std::vector<std::string>& args) {
  std::vector<std::string> puzzle;
  bool restore = false;
  for (const std::string& a : args) {
    if (a == "--restore") {
      restore = true;
    } else if (a.rfind("--", 0) == 0 || !puzzle.empty()) {
      std::printf("`reset` takes `--restore` and a puzzle; `help` shows its usage\n");
      return true;
    } else {
      puzzle.push_back(a);
    }
  }
  if (const course::PuzzleEntry* p = r.Puzzle(puzzle)) {
    r.ctx.restore = restore;
    ResetAction(r.ctx, *p);
    r.ctx.restore = false;
  }
  return true;
}

bool Help(Repl&, const std::vector<std::string>&) {
  std::puts("commands (a puzzle is `1.3`, `01_basics/03_...` or its name; default: the current):");
  auto usage = [](const ReplCommand& c) {
    return std::string(c.name) + (c.args.empty() ? "" : " " + std::string(c.args));
  };
  size_t width = 0;
  for (const ReplCommand& c : ReplCommands()) width = std::max(width, usage(c).size());
  for (const ReplCommand& c : ReplCommands()) {
    std::printf("  %-*s %s\n", static_cast<int>(width), usage(c).c_str(),
                std::string(c.summary).c_str());
  }
  return true;
}

template <int (*Action)(CourseContext&, const course::PuzzleEntry&)>
bool OnPuzzle(Repl& r, const std::vector<std::string>& args) {
  if (const course::PuzzleEntry* p = r.Puzzle(args)) Action(r.ctx, *p);
  return true;
}

bool Solution(Repl& r, const std::vector<std::string>& args) {
  const course::PuzzleEntry* p = r.Puzzle(args);
  if (!p) return true;
  r.ctx.confirmed = false;
  if (SolutionAction(r.ctx, *p) == kExitCheckFailed) {
    const course::PuzzleProgress* q = r.ctx.progress.Find(p->name());
    std::optional<std::string> hints = ReadFile(r.ctx.course.HintsPath(*p));
    size_t levels = hints ? course::ParseHints(*hints).size() : 0;
    if (q && q->hints_shown >= static_cast<int>(levels) && r.Confirm("show it anyway?")) {
      r.ctx.confirmed = true;
      SolutionAction(r.ctx, *p);
      r.ctx.confirmed = false;
    }
  }
  return true;
}

const std::vector<ReplCommand>& ReplCommands() {
  static const std::vector<ReplCommand> kCommands = {
      {"list", "", "chapters and puzzles, ✓ solved, > current",
       [](Repl& r, const std::vector<std::string>&) {
         ListAction(r.ctx);
         return true;
       }},
      {"show", "[puzzle]", "the theory and your editable code", OnPuzzle<ShowAction>},
      {"edit", "[puzzle]", "open the puzzle in $VISUAL, $EDITOR, editor, nano or vi", Edit},
      {"check", "[--cores 1|2] [puzzle]", "run the puzzle and explain what is wrong", Check},
      {"watch", "[puzzle]", "check on every save, then on to the next unsolved; `q` stops",
       OnPuzzle<WatchAction>},
      {"hint", "[puzzle]", "the next hint level", OnPuzzle<HintAction>},
      {"hints", "[puzzle]", "the hints shown so far", OnPuzzle<HintsShownAction>},
      {"solution", "[puzzle]", "the solution (after passing, or after the last hint)", Solution},
      {"next", "", "go to the next puzzle",
       [](Repl& r, const std::vector<std::string>&) { return Step(r, 1); }},
      {"prev", "", "go to the previous puzzle",
       [](Repl& r, const std::vector<std::string>&) { return Step(r, -1); }},
      {"goto", "puzzle", "go to a puzzle",
       [](Repl& r, const std::vector<std::string>& args) {
         if (args.empty()) {
           std::puts("goto needs a puzzle, e.g. `goto 1.3`");
         } else if (const course::PuzzleEntry* p = r.Puzzle(args)) {
           GotoAction(r.ctx, *p);
         }
         return true;
       }},
      {"reset", "[--restore] [puzzle]",
       "restore the starter (yours is backed up); --restore brings your latest backup back", Reset},
      {"progress", "", "solved puzzles per chapter",
       [](Repl& r, const std::vector<std::string>&) {
         ProgressAction(r.ctx);
         return true;
       }},
      {"run", "FILE", "run any Python file with the engine",
       [](Repl& r, const std::vector<std::string>& args) {
         if (args.empty()) {
           std::puts("run needs a file, e.g. `run scratch.py`");
         } else {
           RunFileAction(r.ctx, args[0]);
         }
         return true;
       }},
      {"diagram", "[puzzle] [options...]",
       "draw your pallas_call step by step (--walk, --step I,J, --solution, ...)",
       [](Repl& r, const std::vector<std::string>& args) {
         DiagramWithArgs(r.ctx, args,
                         DiagramRequest{.source = DiagramRequest::Source::kWorkspace,
                                        .color = r.ctx.color ? "always" : "never",
                                        .gate_solution = true});
         std::fflush(stdout);
         return true;
       }},
      {"clear", "", "clear the screen",
       [](Repl&, const std::vector<std::string>&) {
         ClearScreen();
         return true;
       }},
      {"help", "", "this list", Help},
      {"quit", "", "leave (progress is saved as you go)",
       [](Repl&, const std::vector<std::string>&) { return false; }},
  };
  return kCommands;
}

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

#ifdef PZ_HAVE_READLINE
// readline's completion callbacks take no user data; this points at the running REPL's course
// while it reads a line.
const course::Course* completion_course = nullptr;

char* CompletionCandidate(const char* text, int state) {
  static std::vector<std::string> matches;
  static size_t next = 0;
  if (state == 0) {
    matches.clear();
    next = 0;
    std::string prefix(text);
    bool first_word =
        rl_point == static_cast<int>(std::strlen(text)) ||
        std::string(rl_line_buffer, static_cast<size_t>(rl_point)).find_first_not_of(' ') ==
            static_cast<size_t>(rl_point) - prefix.size();
    if (first_word) {
      for (const ReplCommand& c : ReplCommands()) {
        if (c.name.substr(0, prefix.size()) == prefix) matches.emplace_back(c.name);
      }
    } else if (completion_course) {
      for (const course::PuzzleEntry* p : completion_course->Puzzles()) {
        for (const std::string& name : {p->name(), p->id, p->short_name()}) {
          if (name.rfind(prefix, 0) == 0) matches.push_back(name);
        }
      }
    }
  }
  if (next >= matches.size()) return nullptr;
  return strdup(matches[next++].c_str());
}

char** Complete(const char* text, int, int) {
  rl_attempted_completion_over = 1;
  return rl_completion_matches(text, CompletionCandidate);
}
#endif

}  // namespace

int ReplMain() {
  Repl repl;
  repl.ctx.color = UseColor(stdout);
  if (auto exit = repl.ctx.Load(false)) return *exit;
  if (!repl.ctx.workspace) {
    LineReader asker("");
    std::printf(
        "there is no workspace here; pallas-puzzles keeps your copies of the puzzles "
        "and your progress in one\n");
    std::optional<std::string> answer = asker.Read("create ./workspace now? [Y/n] ");
    if (!answer || !(answer->empty() || *answer == "y" || *answer == "Y" || *answer == "yes")) {
      std::printf("\nnothing created; `pallas-puzzles init [DIR]` creates a workspace\n");
      return kExitOk;
    }
    course::InitReport report = course::InitWorkspace(repl.ctx.course, "workspace");
    if (report.error) {
      std::fprintf(stderr, "pallas-puzzles: %s\n", report.error->c_str());
      return kExitIo;
    }
    std::printf("created ./workspace (%zu files); your edits go there\n", report.created.size());
    if (auto exit = repl.ctx.Load(true)) return *exit;
  }
  repl.reader = std::make_unique<LineReader>(repl.ctx.workspace->HistoryFile());
#ifdef PZ_HAVE_READLINE
  completion_course = &repl.ctx.course;
  rl_attempted_completion_function = Complete;
#endif
  std::printf("%s — %d of %zu puzzles solved. `help` lists the commands.\n",
              repl.ctx.Bold(repl.ctx.course.title).c_str(), repl.ctx.progress.SolvedCount(),
              repl.ctx.course.Puzzles().size());
  if (const course::PuzzleEntry* p = repl.ctx.Current()) GotoAction(repl.ctx, *p);
  while (true) {
    std::fflush(stdout);
    std::optional<std::string> line = repl.reader->Read(repl.Prompt());
    if (!line) break;
    std::vector<std::string> words = Words(*line);
    if (words.empty()) continue;
    if (!repl.reader->tty()) {
      std::printf("> %s\n", line->c_str());
      std::fflush(stdout);
    }
    std::string name = words[0];
    if (name == "exit" || name == "q") name = "quit";
    if (name == "?") name = "help";
    const ReplCommand* command = nullptr;
    for (const ReplCommand& c : ReplCommands()) {
      if (c.name == name) command = &c;
    }
    if (!command) {
      std::string shown = words[0].size() > 40 ? words[0].substr(0, 40) + "..." : words[0];
      std::printf("unknown command `%s`; `help` lists the commands\n", shown.c_str());
      continue;
    }
    // One word per argument in the usage ("[--cores 1|2]" is two), any number after "...".
    size_t allowed = Words(std::string(command->args)).size();
    if (command->args.find("...") != std::string_view::npos) allowed = words.size();
    if (words.size() - 1 > allowed) {
      std::printf("`%s` takes %s; `help` shows its usage\n", name.c_str(),
                  allowed == 0   ? "no arguments"
                  : allowed == 1 ? "one argument"
                                 : fmt::format("at most {} arguments", allowed).c_str());
      continue;
    }
    if (!command->run(repl, std::vector<std::string>(words.begin() + 1, words.end()))) break;
  }
#ifdef PZ_HAVE_READLINE
  completion_course = nullptr;
#endif
  std::printf("bye — progress saved in %s\n", repl.ctx.workspace->ProgressFile().string().c_str());
  return kExitOk;
}

}  // namespace pz::cli
