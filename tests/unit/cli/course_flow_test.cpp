// The learner's flow through the course on the small test course: `watch` moving on after a
// pass (and never hanging without a terminal), `reset` unmarking a puzzle and `reset --restore`
// bringing a backup back, `show` with the whole code cell and its pager, `edit`'s fallbacks,
// `check` naming a change of the current puzzle and taking `--cores`, aligned progress bars,
// `clear`, and notebooks exported from the workspace.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <memory>

#include "../scratch_dir.h"
#include "run_cli.h"

namespace {
using pz::testing::Read;
using pz::testing::Result;
namespace fs = std::filesystem;
using nlohmann::json;

void Write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

bool Has(const Result& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

class CourseFlow : public ::testing::Test {
 protected:
  // A copy of the test course in a directory of the test's own (suite, test and process in its
  // name), removed afterwards.
  void SetUp() override {
    scratch_ = std::make_unique<pz::testing::ScratchDir>();
    root_ = pz::testing::CopyTestCourse(*scratch_);
  }
  void TearDown() override { scratch_.reset(); }

  // Runs the CLI in the workspace (or `dir`) with `input` on standard input (nullopt: standard
  // input closed) and `env` (arguments of env(1): `-u NAME` first, then `NAME=value`); 60 s at
  // most, so that a hang fails
  // the test (exit 124) instead of stalling it.
  Result Run(const std::string& args, std::optional<std::string> input = "",
             const std::string& env = "", fs::path dir = {}) {
    if (dir.empty()) dir = root_ / "ws";
    fs::path in = root_ / ".stdin";
    Write(in, input.value_or(""));
    std::string command = "cd '" + dir.string() + "' && timeout 60 env -u PALLAS_PUZZLES_COURSE " +
                          env + " NO_COLOR=1 " + PZ_CLI_PATH + " " + args +
                          (input ? " <'" + in.string() + "'" : std::string(" <&-")) + " 2>&1";
    return pz::testing::RunShell(command);
  }

  void Init() { ASSERT_EQ(Run("init ws", "", "", root_).exit_code, 0); }

  fs::path Puzzle(const std::string& id) { return root_ / "ws" / "01_intro" / (id + ".py"); }
  void Solve(const std::string& id) {
    fs::copy_file(root_ / "solutions" / "01_intro" / (id + ".py"), Puzzle(id),
                  fs::copy_options::overwrite_existing);
  }
  std::string Starter(const std::string& id) {
    return Read(root_ / "puzzles" / "01_intro" / (id + ".py"));
  }
  json Progress() { return json::parse(Read(root_ / "ws" / "progress.json")); }
  bool Solved(const std::string& id) {
    json p = Progress()["puzzles"];
    std::string name = "01_intro/" + id;
    return p.contains(name) && p[name]["solved"].get<bool>();
  }
  std::vector<fs::path> Backups() {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(root_ / "ws" / ".backups", ec)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
    return files;
  }

  std::unique_ptr<pz::testing::ScratchDir> scratch_;
  fs::path root_;
};

// --- watch ------------------------------------------------------------------------------------

TEST_F(CourseFlow, WatchMovesOnToTheNextUnsolvedPuzzleOnceItPasses) {
  Init();
  Solve("01_double");
  // Without input no one can press `s`: watch moves on at once, checks 1.2, and stops.
  Result r = Run("watch 1.1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Has(r, "PASSED double")) << r.output;
  EXPECT_TRUE(Has(r, "1.1 passed: moving on to 1.2 Row blocks in 3 s")) << r.output;
  EXPECT_TRUE(Has(r, "checking 1.2 Row blocks")) << r.output;
  EXPECT_TRUE(Has(r, "stopped watching")) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << "no screen clearing without a terminal";
  EXPECT_EQ(Progress()["current"], "01_intro/02_row_blocks");
  EXPECT_TRUE(Solved("01_double"));
}

TEST_F(CourseFlow, WatchStaysOnTheSolvedPuzzleWithS) {
  Init();
  Solve("01_double");
  Result r = Run("watch 1.1", "s\n");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "staying on 1.1")) << r.output;
  EXPECT_TRUE(Has(r, "`n` moves on to the next unsolved puzzle")) << r.output;
  EXPECT_FALSE(Has(r, "checking 1.2")) << r.output;
  EXPECT_EQ(Progress()["current"], "01_intro/01_double");
}

TEST_F(CourseFlow, WatchKeysStopMoveOnAndExplainThemselves) {
  Init();
  Solve("01_double");
  Result stop = Run("watch 1.1", "q\n");
  EXPECT_FALSE(Has(stop, "checking 1.2")) << stop.output;
  EXPECT_TRUE(Has(stop, "stopped watching")) << stop.output;
  EXPECT_EQ(Progress()["current"], "01_intro/01_double");
  // `s`, then `n` on the staying puzzle, then `q` on the next one.
  Result next = Run("watch 1.1", "s\nn\nq\n");
  EXPECT_TRUE(Has(next, "staying on 1.1")) << next.output;
  EXPECT_TRUE(Has(next, "checking 1.2")) << next.output;
  EXPECT_EQ(Progress()["current"], "01_intro/02_row_blocks");
  // `n` on a failing puzzle, then an unknown key.
  Result unsolved = Run("watch 1.2", "n\nx\nq\n");
  EXPECT_TRUE(Has(unsolved, "`n` moves on once 1.2 passes")) << unsolved.output;
  EXPECT_TRUE(Has(unsolved, "keys: `q` or Enter stops watching")) << unsolved.output;
  EXPECT_TRUE(Has(unsolved, "stopped watching")) << unsolved.output;
}

TEST_F(CourseFlow, WatchNeverHangsOnAClosedStandardInput) {
  Init();
  Result r = Run("watch 1.2", std::nullopt);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Has(r, "save it to check again")) << r.output;
  EXPECT_TRUE(Has(r, "stopped watching")) << r.output;
}

TEST_F(CourseFlow, WatchSaysWhenEveryPuzzleIsSolvedAndKeepsWatching) {
  Init();
  Solve("01_double");
  Solve("02_row_blocks");
  ASSERT_EQ(Run("check 1.1").exit_code, 0);
  Result r = Run("watch 1.2", "n\nq\n");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "every puzzle of the course is solved")) << r.output;
  EXPECT_TRUE(Has(r, "save it to check again, `n` moves on")) << r.output;
  EXPECT_FALSE(Has(r, "checking 1.1")) << r.output;
  EXPECT_EQ(Progress()["current"], "01_intro/02_row_blocks");
}

TEST_F(CourseFlow, ReplWatchReadsItsKeysAndLeavesTheNextLines) {
  Init();
  Solve("01_double");
  Result r = Run("", "watch 1.1\ns\n\nprogress\nquit\n");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "staying on 1.1")) << r.output;
  EXPECT_TRUE(Has(r, "stopped watching")) << r.output;
  EXPECT_TRUE(Has(r, "1 of 2 puzzles solved")) << r.output;
  EXPECT_TRUE(Has(r, "bye")) << r.output;
}

// --- reset ------------------------------------------------------------------------------------

TEST_F(CourseFlow, ResetUnmarksASolvedPuzzle) {
  Init();
  Solve("01_double");
  ASSERT_EQ(Run("check 1.1").exit_code, 0);
  ASSERT_TRUE(Solved("01_double"));
  Result r = Run("reset 1.1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "1.1 is no longer marked solved")) << r.output;
  EXPECT_TRUE(Has(r, "`reset --restore` brings it back")) << r.output;
  EXPECT_FALSE(Solved("01_double"));
  EXPECT_EQ(Read(Puzzle("01_double")), Starter("01_double"));
  // An unsolved puzzle says nothing about marks.
  EXPECT_FALSE(Has(Run("reset 1.2"), "no longer marked"));
}

TEST_F(CourseFlow, ResetRestoreBringsBackTheLatestBackup) {
  Init();
  Write(Puzzle("01_double"), "# first\n");
  ASSERT_EQ(Run("reset 1.1").exit_code, 0);
  Write(Puzzle("01_double"), "# second\n");
  ASSERT_EQ(Run("reset 1.1").exit_code, 0);
  // Two resets within one second keep two backups.
  EXPECT_EQ(Backups().size(), 2u);
  Result r = Run("reset --restore 1.1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "restored your version of 1.1 from .backups/01_intro/01_double-")) << r.output;
  EXPECT_FALSE(Has(r, "the file it replaced")) << "the starter needs no backup:\n" << r.output;
  EXPECT_EQ(Read(Puzzle("01_double")), "# second\n");
  // Work done since is kept: restoring over it saves it first, and restoring again swaps back.
  Write(Puzzle("01_double"), "# third\n");
  Result over = Run("reset 1.1 --restore");
  EXPECT_TRUE(Has(over, "the file it replaced is saved as")) << over.output;
  EXPECT_EQ(Read(Puzzle("01_double")), "# second\n");
  EXPECT_EQ(Run("reset --restore 1.1").exit_code, 0);
  EXPECT_EQ(Read(Puzzle("01_double")), "# third\n");
}

TEST_F(CourseFlow, ResetMistakesGetClearMessages) {
  Init();
  Result none = Run("reset --restore 1.2");
  EXPECT_EQ(none.exit_code, 64) << none.output;
  EXPECT_TRUE(Has(none, "no backup of 1.2 to restore")) << none.output;
  EXPECT_EQ(Run("reset --restor 1.2").exit_code, 64);
  EXPECT_EQ(Run("reset --restore", "", "", root_).exit_code, 64);  // no workspace
  Write(Puzzle("01_double"), "# mine\n");
  Result repl = Run("", "reset 1.1\nreset --restore\nreset --bogus\nreset 1.1 1.2\nquit\n");
  EXPECT_EQ(repl.exit_code, 0) << repl.output;
  EXPECT_TRUE(Has(repl, "restored the starter of 1.1")) << repl.output;
  EXPECT_TRUE(Has(repl, "restored your version of 1.1")) << repl.output;
  EXPECT_TRUE(Has(repl, "`reset` takes `--restore` and a puzzle")) << repl.output;
  EXPECT_EQ(Read(Puzzle("01_double")), "# mine\n");
}

// --- show -------------------------------------------------------------------------------------

TEST_F(CourseFlow, ShowPrintsTheWholeCodeCellWithItsEditableLinesMarked) {
  Init();
  // Not a terminal: no pager, whatever PAGER says.
  Result r = Run("show 1.1", "", "PAGER='sed s/^/PAGED:/'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* line :
       {"your code: 01_intro/01_double.py, lines 15-24\n",
        "  15 │ def double_kernel(x_ref, o_ref):\n", "  16 │     # YOUR CODE BEGIN\n",
        "  17 ▌     pass\n", "  18 │     # YOUR CODE END\n", "  19 │\n",
        "  24 │ check(actual, x * 2.0, name=\"double\")\n"}) {
    EXPECT_TRUE(Has(r, line)) << "missing `" << line << "` in:\n" << r.output;
  }
  EXPECT_FALSE(Has(r, "PAGED:")) << r.output;
  EXPECT_FALSE(Has(r, "import jax")) << "only cells with a region:\n" << r.output;
}

// Runs `command` on a terminal of `rows` rows (a pseudo-terminal from script(1)); nullopt where
// script is missing.
std::optional<std::string> OnTerminal(const std::string& command, int rows) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) return std::nullopt;
  std::string line = "stty rows " + std::to_string(rows) + " cols 100; " + command;
  std::string quoted = "'";
  for (char c : line) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  FILE* pipe = popen(("timeout 60 script -qec " + quoted + " /dev/null </dev/null").c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  pclose(pipe);
  return out;
}

TEST_F(CourseFlow, ShowPagesLongTextOnATerminal) {
  Init();
  std::string cli =
      "cd '" + (root_ / "ws").string() + "' && env -u PALLAS_PUZZLES_COURSE NO_COLOR=1 ";
  std::optional<std::string> paged =
      OnTerminal(cli + "PAGER='sed s/^/PAGED:/' " + PZ_CLI_PATH + " show 1.1", 10);
  if (!paged) GTEST_SKIP() << "script(1) is not installed";
  EXPECT_NE(paged->find("PAGED:  17 ▌     pass"), std::string::npos) << *paged;
  // Short enough for the terminal, or PAGER empty or `cat`: printed as it is.
  std::string tall = *OnTerminal(cli + "PAGER='sed s/^/PAGED:/' " + PZ_CLI_PATH + " show 1.1", 90);
  EXPECT_EQ(tall.find("PAGED:"), std::string::npos) << tall;
  EXPECT_NE(tall.find("  17 ▌     pass"), std::string::npos) << tall;
  for (const char* pager : {"PAGER=", "PAGER=cat"}) {
    std::string plain = *OnTerminal(cli + pager + " " + PZ_CLI_PATH + " show 1.1", 10);
    EXPECT_NE(plain.find("  17 ▌     pass"), std::string::npos) << pager << "\n" << plain;
  }
  // A pager that cannot start: the text anyway, with a note.
  std::string missing =
      *OnTerminal(cli + "PAGER=pz-no-such-pager " + PZ_CLI_PATH + " show 1.1", 10);
  EXPECT_NE(missing.find("the pager `pz-no-such-pager` could not be started"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("  17 ▌     pass"), std::string::npos) << missing;
}

// --- edit -------------------------------------------------------------------------------------

TEST_F(CourseFlow, EditFallsBackLikeGit) {
  Init();
  fs::path bin = root_ / "bin", log = root_ / "edited";
  fs::create_directories(bin);
  auto fake = [&](const std::string& name) {
    Write(bin / name, "#!/bin/sh\necho \"" + name + " $1\" >> '" + log.string() + "'\n");
    fs::permissions(bin / name, fs::perms::owner_all);
  };
  std::string env = "-u VISUAL -u EDITOR PATH='" + bin.string() + "'";
  Result none = Run("", "edit\nquit\n", env);
  EXPECT_TRUE(Has(none, "no editor found: set $VISUAL or $EDITOR")) << none.output;
  EXPECT_TRUE(Has(none, Puzzle("01_double").string())) << none.output;
  fake("vi");
  Run("", "edit\nquit\n", env);
  fake("nano");
  Run("", "edit 1.2\nquit\n", env);
  fake("editor");
  Run("", "edit\nquit\n", env);
  Run("", "edit\nquit\n", env + " EDITOR='" + (bin / "vi").string() + "'");
  Run("", "edit\nquit\n", env + " EDITOR=vi VISUAL=nano");
  EXPECT_EQ(Read(log), "vi " + Puzzle("01_double").string() + "\n" + "nano " +
                           Puzzle("02_row_blocks").string() + "\n" + "editor " +
                           Puzzle("01_double").string() + "\n" + "vi " +
                           Puzzle("01_double").string() + "\n" + "nano " +
                           Puzzle("01_double").string() + "\n");
  Result broken = Run("", "edit\nquit\n", env + " EDITOR=pz-no-such-editor");
  EXPECT_TRUE(Has(broken, "the editor `pz-no-such-editor` was not found")) << broken.output;
}

// --- check ------------------------------------------------------------------------------------

TEST_F(CourseFlow, CheckSaysWhenItChangesTheCurrentPuzzle) {
  Init();
  Result first = Run("check 1.1");
  EXPECT_FALSE(Has(first, "current puzzle is now")) << "1.1 was current:\n" << first.output;
  Result moved = Run("check 1.2");
  EXPECT_TRUE(Has(moved, "current puzzle is now 1.2 Row blocks")) << moved.output;
  EXPECT_FALSE(Has(Run("check 1.2"), "current puzzle is now"));
  EXPECT_EQ(json::parse(Run("check --json 1.1").output)["became_current"], true);
  EXPECT_EQ(json::parse(Run("check --json 1.1").output)["became_current"], false);
  Result repl = Run("", "check 1.2\nquit\n");
  EXPECT_TRUE(Has(repl, "current puzzle is now 1.2 Row blocks")) << repl.output;
}

TEST_F(CourseFlow, HelpNamesTheNewOptions) {
  Init();
  Result r = Run("help");
  EXPECT_TRUE(Has(r, "  check [--json] [--backend tpu|cuda] [--cores 1|2] [PUZZLE]\n" +
                         std::string(49, ' ') + "run a puzzle"))
      << r.output;
  EXPECT_TRUE(Has(r, "  reset [--restore] [PUZZLE]")) << r.output;
  EXPECT_TRUE(Has(r, "  watch [PUZZLE]")) << r.output;
  EXPECT_TRUE(Has(r, "  export-notebooks [--solutions | --workspace] DIR\n")) << r.output;
  Result repl = Run("", "help\nquit\n");
  for (const char* line : {"  check [--cores 1|2] [puzzle]", "  reset [--restore] [puzzle]",
                           "  clear ", "$VISUAL, $EDITOR, editor, nano or vi"}) {
    EXPECT_TRUE(Has(repl, line)) << "missing `" << line << "` in:\n" << repl.output;
  }
}

TEST_F(CourseFlow, CheckRunsOnTwoCoresWithCores2) {
  Init();
  Solve("01_double");
  Write(Puzzle("01_double"), Read(Puzzle("01_double")) +
                                 "from jax.experimental.pallas import tpu as pltpu\n"
                                 "print('cores', pltpu.get_tpu_info().num_cores)\n");
  EXPECT_TRUE(Has(Run("check 1.1"), "cores 1"));
  Result two = Run("check --cores 2 1.1");
  EXPECT_EQ(two.exit_code, 0) << two.output;
  EXPECT_TRUE(Has(two, "cores 2")) << two.output;
  EXPECT_TRUE(Has(Run("check --cores=2 1.1"), "cores 2"));
  Result bad = Run("check --cores 3 1.1");
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_TRUE(Has(bad, "`--cores` is 1 (the default) or 2")) << bad.output;
  EXPECT_EQ(Run("check --cores").exit_code, 64);
  EXPECT_EQ(Run("check --cores 2 --backend cuda 1.1").exit_code, 64);
  Result repl = Run("", "check --cores 2 1.1\ncheck --cores 7\ncheck 1.1 1.2\nquit\n");
  EXPECT_TRUE(Has(repl, "cores 2")) << repl.output;
  EXPECT_TRUE(Has(repl, "`--cores` is 1 (the default) or 2")) << repl.output;
  EXPECT_TRUE(Has(repl, "`check` takes `--cores 1|2` and a puzzle")) << repl.output;
}

// --- progress, list, clear --------------------------------------------------------------------

TEST_F(CourseFlow, ProgressBarsLineUpWhateverTheChapterNames) {
  // A second chapter with a much longer name (and the first puzzle again).
  fs::path chapter = root_ / "puzzles" / "02_a_chapter_with_a_long_name";
  fs::create_directories(chapter);
  for (const char* dir : {"solutions", "hints"}) {
    fs::create_directories(root_ / dir / chapter.filename());
  }
  fs::copy_file(root_ / "puzzles" / "01_intro" / "01_double.py", chapter / "01_double.py");
  Write(chapter / "chapter.json",
        R"({"title": "Long", "puzzles": [{"id": "01_double", "title": "Again", "images": []}]})");
  Write(root_ / "puzzles" / "course.json",
        R"({"title": "Test Course", "chapters": ["01_intro", "02_a_chapter_with_a_long_name"]})");
  Init();
  Solve("01_double");
  ASSERT_EQ(Run("check 1.1").exit_code, 0);
  for (const char* command : {"progress", "list"}) {
    Result r = Run(command);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::vector<size_t> bars, counts;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.find(" [") == std::string::npos) continue;
      bars.push_back(line.find(" ["));
      counts.push_back(line.find("/"));
    }
    ASSERT_EQ(bars.size(), 2u) << r.output;
    EXPECT_EQ(bars[0], bars[1]) << command << ":\n" << r.output;
    EXPECT_EQ(counts[0], counts[1]) << command << ":\n" << r.output;
    EXPECT_TRUE(Has(r, "01_intro                      [##########..........] 1/2  ")) << r.output;
  }
}

TEST_F(CourseFlow, ClearIsAReplCommand) {
  Init();
  Result r = Run("", "clear\nhelp\nquit\n");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(Has(r, "unknown command")) << r.output;
  EXPECT_TRUE(Has(r, "  clear ")) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << "nothing to clear without a terminal";
}

// --- notebooks --------------------------------------------------------------------------------

TEST_F(CourseFlow, ExportNotebooksFromTheWorkspaceHoldsTheLearnersCode) {
  Init();
  Write(root_ / "puzzles" / "course.json",
        R"({"title": "Test Course", "chapters": ["01_intro"], "repository": "someone/course"})");
  Write(Puzzle("01_double"), Read(Puzzle("01_double")) + "# my own note\n");
  fs::remove(Puzzle("02_row_blocks"));
  Result r = Run("export-notebooks --workspace mine");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "note: ")) << r.output;
  EXPECT_TRUE(Has(r, "02_row_blocks.py is not in the workspace: exported its starter")) << r.output;
  std::string notebook = Read(root_ / "ws" / "mine" / "01_intro.ipynb");
  EXPECT_NE(notebook.find("# my own note"), std::string::npos);
  EXPECT_EQ(notebook.find("colab.research.google.com"), std::string::npos)
      << "a workspace's notebook is not the repository's";
  // The starters' export links to Colab.
  ASSERT_EQ(Run("export-notebooks starters").exit_code, 0);
  std::string starters = Read(root_ / "ws" / "starters" / "01_intro.ipynb");
  EXPECT_EQ(starters.find("# my own note"), std::string::npos);
  EXPECT_NE(starters.find("colab.research.google.com/github/someone/course/blob/main/notebooks/"
                          "01_intro.ipynb"),
            std::string::npos);
}

TEST_F(CourseFlow, ExportNotebooksMistakesGetClearMessages) {
  Init();
  Result both = Run("export-notebooks --workspace --solutions out");
  EXPECT_EQ(both.exit_code, 64);
  EXPECT_TRUE(Has(both, "choose one")) << both.output;
  Result no_dir = Run("export-notebooks --workspace");
  EXPECT_EQ(no_dir.exit_code, 64);
  EXPECT_TRUE(Has(no_dir, "missing the DIR")) << no_dir.output;
  Result outside = Run("export-notebooks --workspace out", "", "", root_ / "puzzles");
  EXPECT_EQ(outside.exit_code, 64);
  EXPECT_TRUE(Has(outside, "no workspace here")) << outside.output;
  EXPECT_FALSE(fs::exists(root_ / "puzzles" / "out"));
}

}  // namespace
