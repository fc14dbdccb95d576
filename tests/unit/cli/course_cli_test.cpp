// Drives the course commands of `pallas-puzzles` (subcommands and the REPL through standard
// input) on the small course in tests/course/testcourse, pinning exit codes, key output and the
// --json schemas.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include <memory>

#include "../scratch_dir.h"
#include "run_cli.h"

namespace {
using pz::testing::Read;
using pz::testing::Result;
namespace fs = std::filesystem;
using nlohmann::json;

void Write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

class CourseCli : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<pz::testing::ScratchDir>();
    root_ = pz::testing::CopyTestCourse(*scratch_);
  }
  void TearDown() override { scratch_.reset(); }

  // Runs the CLI in `dir` (default: the course root) with `input` on standard input.
  Result Run(const std::string& args, const std::string& input = "", fs::path dir = {}) {
    if (dir.empty()) dir = root_;
    fs::path in = root_ / ".stdin";
    Write(in, input);
    std::string command = "cd '" + dir.string() + "' && env -u PALLAS_PUZZLES_COURSE NO_COLOR=1 " +
                          PZ_CLI_PATH + " " + args + " <'" + in.string() + "' 2>&1";
    return pz::testing::RunShell(command);
  }

  Result InWorkspace(const std::string& args, const std::string& input = "") {
    return Run(args, input, root_ / "ws");
  }

  void Init() { ASSERT_EQ(Run("init ws").exit_code, 0); }

  void Solve(const std::string& id) {
    fs::copy_file(root_ / "solutions" / "01_intro" / (id + ".py"),
                  root_ / "ws" / "01_intro" / (id + ".py"), fs::copy_options::overwrite_existing);
  }

  json Progress() { return json::parse(Read(root_ / "ws" / "progress.json")); }

  std::unique_ptr<pz::testing::ScratchDir> scratch_;
  fs::path root_;
};

bool Has(const Result& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

TEST_F(CourseCli, ListsThePuzzlesWithoutAWorkspace) {
  Result r = Run("list");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "01_intro [....................] 0/2  Intro: a first kernel")) << r.output;
  EXPECT_TRUE(Has(r, "1.2")) << r.output;
  EXPECT_TRUE(Has(r, "0 of 2 solved")) << r.output;
}

TEST_F(CourseCli, InitCopiesStartersAndNeverOverwrites) {
  Result first = Run("init ws");
  EXPECT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(fs::exists(root_ / "ws" / "01_intro" / "01_double.py"));
  EXPECT_TRUE(fs::exists(root_ / "ws" / "01_intro" / "pallas_check.py"));
  EXPECT_TRUE(fs::exists(root_ / "ws" / "progress.json"));
  Write(root_ / "ws" / "01_intro" / "01_double.py", "# mine\n");
  Result again = Run("init ws");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_TRUE(Has(again, "0 files created")) << again.output;
  EXPECT_EQ(Read(root_ / "ws" / "01_intro" / "01_double.py"), "# mine\n");
}

TEST_F(CourseCli, FailingCheckExplainsTheBlocksAndExitsOne) {
  Init();
  Result r = InWorkspace("check 1.1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Has(r, "FAILED double")) << r.output;
  EXPECT_TRUE(Has(r, "never")) << r.output;
  EXPECT_TRUE(Has(r, "not solved yet")) << r.output;
  Result moved = InWorkspace("check row_blocks");
  EXPECT_EQ(moved.exit_code, 1);
  EXPECT_TRUE(Has(moved, "(0, 0) has (1, 0)'s")) << moved.output;
}

TEST_F(CourseCli, PassingCheckIsSavedInProgress) {
  Init();
  Solve("01_double");
  Result r = InWorkspace("check 01_intro/01_double");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "PASSED double")) << r.output;
  json p = Progress();
  EXPECT_TRUE(p["puzzles"]["01_intro/01_double"]["solved"].get<bool>());
  EXPECT_EQ(p["puzzles"]["01_intro/01_double"]["checks"], 1);
  Result list = InWorkspace("list");
  EXPECT_TRUE(Has(list, "1 of 2 solved")) << list.output;
}

// `check --backend cuda` runs the puzzle's calls as generated CUDA (here on the host device) and
// keeps no progress: measurements are the emulator's.
TEST_F(CourseCli, CheckOnTheCudaBackendKeepsNoProgress) {
  Init();
  Solve("01_double");
  Result r = InWorkspace("check --backend cuda 01_intro/01_double");
  // Without a driver and without the host device, the backend's own error.
  if (r.exit_code == 70) {
    EXPECT_TRUE(Has(r, "the CUDA backend needs an NVIDIA GPU")) << r.output;
  }
  setenv("PZ_CUDA_DEVICE", "host", 1);
  Result on_host = InWorkspace("check --backend cuda 01_intro/01_double");
  unsetenv("PZ_CUDA_DEVICE");
  EXPECT_EQ(on_host.exit_code, 0) << on_host.output;
  EXPECT_TRUE(Has(on_host, "PASSED double")) << on_host.output;
  EXPECT_TRUE(Has(on_host, "passed on the CUDA backend")) << on_host.output;
  EXPECT_FALSE(Progress()["puzzles"].contains("01_intro/01_double"));
  EXPECT_EQ(InWorkspace("check --backend gpu 1.1").exit_code, 64);
}

TEST_F(CourseCli, CheckJsonSchema) {
  Init();
  Result r = InWorkspace("check --json 1.1");
  EXPECT_EQ(r.exit_code, 1);
  json j = json::parse(r.output);
  EXPECT_EQ(j["puzzle"], "01_intro/01_double");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["exit_code"], 1);
  ASSERT_EQ(j["checks"].size(), 1u);
  EXPECT_EQ(j["checks"][0]["name"], "double");
  EXPECT_EQ(j["checks"][0]["passed"], false);
  EXPECT_TRUE(j["output"].get<std::string>().find("FAILED") != std::string::npos);
  EXPECT_TRUE(j.contains("diagnostics") && j.contains("error"));
  // The check's report as values: the starter never stores, so element 0 is garbage (NaN).
  const json& check = j["checks"][0];
  EXPECT_EQ(check["status"], "FAILED");
  EXPECT_EQ(check["values"], true);
  EXPECT_EQ(check["summary"], "16 of 16 elements differ (atol 1e-05, rtol 1e-05)");
  EXPECT_EQ(check["first_mismatch"]["index"], json::array({0}));
  EXPECT_EQ(check["first_mismatch"]["expected"], "0");
  EXPECT_EQ(check["first_mismatch"]["got"], "nan");
  EXPECT_EQ(check["at"]["line"], 24);
  EXPECT_TRUE(check["at"]["file"].get<std::string>().ends_with("01_double.py"));
  // The warnings as values, located.
  ASSERT_FALSE(j["problems"].empty()) << j.dump(2);
  const json& problem = j["problems"][0];
  EXPECT_EQ(problem["severity"], "warning");
  EXPECT_FALSE(problem["message"].get<std::string>().empty());
  EXPECT_TRUE(problem["at"].is_object()) << problem.dump(2);
}

TEST_F(CourseCli, ListAndProgressJsonSchemas) {
  Init();
  json list = json::parse(InWorkspace("list --json").output);
  EXPECT_EQ(list["course"], "Test Course");
  EXPECT_EQ(list["total"], 2);
  EXPECT_EQ(list["solved"], 0);
  json puzzle = list["chapters"][0]["puzzles"][0];
  for (const char* key : {"name", "short", "title", "solved", "hints_shown", "current"}) {
    EXPECT_TRUE(puzzle.contains(key)) << key;
  }
  EXPECT_EQ(puzzle["short"], "1.1");
  EXPECT_EQ(puzzle["current"], true);
  json progress = json::parse(InWorkspace("progress --json").output);
  EXPECT_EQ(progress["total"], 2);
  EXPECT_EQ(progress["current"], "01_intro/01_double");
}

TEST_F(CourseCli, HintsComeLevelByLevelAndTheSolutionWaits) {
  Init();
  Result locked = InWorkspace("solution 1.1");
  EXPECT_EQ(locked.exit_code, 1);
  EXPECT_TRUE(Has(locked, "0 of 2 shown")) << locked.output;
  json first = json::parse(InWorkspace("hint --json 1.1").output);
  EXPECT_EQ(first["level"], 1);
  EXPECT_EQ(first["levels"], 2);
  EXPECT_EQ(first["title"], "Hint 1: reading");
  Result second = InWorkspace("hint 1.1");
  EXPECT_TRUE(Has(second, "hint 2 of 2")) << second.output;
  EXPECT_TRUE(Has(second, "last hint")) << second.output;
  Result shown = InWorkspace("hints 1.1");
  EXPECT_TRUE(Has(shown, "Hint 1: reading") && Has(shown, "Hint 2: writing")) << shown.output;
  EXPECT_EQ(InWorkspace("solution 1.1").exit_code, 1);
  Result forced = InWorkspace("solution --yes 1.1");
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_TRUE(Has(forced, "o_ref[...] = x_ref[...] * 2.0")) << forced.output;
  EXPECT_EQ(Progress()["puzzles"]["01_intro/01_double"]["hints_shown"], 2);
}

TEST_F(CourseCli, ResetKeepsABackup) {
  Init();
  Solve("01_double");
  Result r = InWorkspace("reset 1.1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Read(root_ / "ws" / "01_intro" / "01_double.py"),
            Read(root_ / "puzzles" / "01_intro" / "01_double.py"));
  int backups = 0;
  for (const auto& e : fs::recursive_directory_iterator(root_ / "ws" / ".backups")) {
    backups += e.is_regular_file() &&
               Read(e.path()) == Read(root_ / "solutions" / "01_intro" / "01_double.py");
  }
  EXPECT_EQ(backups, 1);
}

TEST_F(CourseCli, CorruptProgressIsBackedUpAndRebuilt) {
  Init();
  Write(root_ / "ws" / "progress.json", "{not json");
  Result r = InWorkspace("list");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "corrupt")) << r.output;
  EXPECT_NO_THROW(Progress());
  bool backup = false;
  for (const auto& e : fs::directory_iterator(root_ / "ws")) {
    backup |= e.path().filename().string().rfind("progress.json.corrupt-", 0) == 0;
  }
  EXPECT_TRUE(backup);
}

TEST_F(CourseCli, UnwritableProgressIsAWarningNotACrash) {
  Init();
  // A directory where the temporary file must go makes every save fail, even for root.
  fs::create_directory(root_ / "ws" / "progress.json.tmp");
  Solve("01_double");
  Result r = InWorkspace("check 1.1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Has(r, "warning: progress not saved")) << r.output;
}

TEST_F(CourseCli, ExitCodesForBadPuzzlesAndFiles) {
  Init();
  EXPECT_EQ(InWorkspace("check 9.9").exit_code, 64);
  EXPECT_EQ(InWorkspace("check --bogus").exit_code, 64);
  Write(root_ / "ws" / "01_intro" / "01_double.py", "def broken(:\n");
  EXPECT_EQ(InWorkspace("check 1.1").exit_code, 65);
  Write(root_ / "ws" / "01_intro" / "01_double.py", "from pallas_check import check\nx = 1 / 0\n");
  EXPECT_EQ(InWorkspace("check 1.1").exit_code, 70);
  fs::remove(root_ / "ws" / "01_intro" / "01_double.py");
  EXPECT_EQ(InWorkspace("check 1.1").exit_code, 74);
  EXPECT_EQ(Run("hint 1.1", "", root_ / "puzzles").exit_code, 64);  // no workspace
}

TEST_F(CourseCli, VerifyPassesTheTestCourseAndCatchesADriftedSolution) {
  Result ok = Run("verify");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_TRUE(Has(ok, "2 passed, 0 failed")) << ok.output;
  Write(root_ / "solutions" / "01_intro" / "02_row_blocks.py",
        Read(root_ / "solutions" / "01_intro" / "02_row_blocks.py") + "print('extra')\n");
  fs::remove(root_ / "hints" / "01_intro" / "01_double.md");
  Result bad = Run("verify --json");
  EXPECT_EQ(bad.exit_code, 1);
  json j = json::parse(bad.output);
  EXPECT_EQ(j["failed"], 2);
  EXPECT_EQ(j["puzzles"][1]["items"][2]["name"], "regions");
  EXPECT_EQ(j["puzzles"][1]["items"][2]["ok"], false);
  EXPECT_EQ(j["puzzles"][0]["items"][3]["name"], "hints");
  EXPECT_EQ(j["puzzles"][0]["items"][3]["ok"], false);
}

TEST_F(CourseCli, VerifyInWorkerProcessesPrintsWhatOneProcessPrints) {
  Result one = Run("verify --jobs 1");
  Result two = Run("verify --jobs 2");
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(one.output, two.output);  // rows in the course's order, whichever ends first
  // A failure found in a worker process (the runs of the files are spread over them) reaches the
  // report with its detail, beside one the parent finds.
  fs::remove(root_ / "hints" / "01_intro" / "01_double.md");
  Write(root_ / "solutions" / "01_intro" / "02_row_blocks.py",
        Read(root_ / "solutions" / "01_intro" / "02_row_blocks.py") +
            "raise ValueError('broken on purpose')\n");
  Result bad = Run("verify --jobs 2");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(Has(bad, "hints: missing hints/01_intro/01_double.md")) << bad.output;
  EXPECT_TRUE(Has(bad, "broken on purpose")) << bad.output;
  EXPECT_EQ(bad.output, Run("verify --jobs 1").output);
  EXPECT_EQ(Run("verify --jobs 0").exit_code, 64);
}

TEST_F(CourseCli, VerifyReportsAWorkerKilledMidRunAndFinishesTheRest) {
  // The second solution spins for seconds (lines past its editable regions, which verify also
  // reports), so once the first row is out, a worker is in the middle of it. Every worker is
  // then killed: that run fails with the signal, whatever was not handed out yet goes to a new
  // worker, and every row is still reported.
  fs::path solution = root_ / "solutions" / "01_intro" / "02_row_blocks.py";
  Write(solution, Read(solution) + "spin = 0\nfor i in range(30000000):\n    spin += i\n");
  std::string out = (root_ / "verify.out").string();
  std::string command =
      "cd '" + root_.string() + "' && { env -u PALLAS_PUZZLES_COURSE NO_COLOR=1 " + PZ_CLI_PATH +
      " verify --jobs 2 >'" + out +
      "' 2>&1 & v=$!; tries=0; "
      "until grep -q '01_intro/01_double' '" +
      out +
      "' || [ $tries -ge 1200 ]; do "
      "sleep 0.05; tries=$((tries + 1)); done; "
      "for p in /proc/[0-9]*; do "
      "[ \"$(cut -d' ' -f4 \"$p/stat\" 2>/dev/null)\" = \"$v\" ] && kill -9 \"${p#/proc/}\"; "
      "done; wait $v; echo \"exit $?\" >>'" +
      out + "'; }";
  pz::testing::RunShell(command);
  std::string text = Read(root_ / "verify.out");
  EXPECT_NE(text.find("ok    01_intro/01_double"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL  01_intro/02_row_blocks"), std::string::npos) << text;
  EXPECT_NE(text.find("solution: verifying it crashed (signal 9)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 passed, 1 failed"), std::string::npos) << text;
  EXPECT_NE(text.find("exit 1"), std::string::npos) << text;
}

TEST_F(CourseCli, VerifyCatchesAStarterThatPasses) {
  fs::copy_file(root_ / "solutions" / "01_intro" / "01_double.py",
                root_ / "puzzles" / "01_intro" / "01_double.py",
                fs::copy_options::overwrite_existing);
  Result r = Run("verify");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Has(r, "passes its checks unsolved")) << r.output;
}

TEST_F(CourseCli, ReplRunsEveryCommandFromStandardInput) {
  Init();
  Result r = InWorkspace("",
                         "help\nlist\nshow\nhint\nhints\ncheck\nbogus\nnext\nprev\ngoto 1.2\n"
                         "progress\nsolution\nreset\nrun 01_intro/01_double.py\nwatch\n\nquit\n");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* text :
       {"commands (a puzzle is", "  watch [puzzle]", "0/2  Intro: a first kernel",
        "# Double a vector", "diagram: ", "your code: ", "hint 1 of 2", "FAILED double",
        "unknown command `bogus`", "1.2 Row blocks", "1.1 Double a vector", "[", "0/2",
        "the solution opens once", "restored the starter of 1.2", "watching ", "stopped watching",
        "bye"}) {
    EXPECT_TRUE(Has(r, text)) << "missing `" << text << "` in:\n" << r.output;
  }
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos);
  EXPECT_EQ(Progress()["current"], "01_intro/02_row_blocks");
}

TEST_F(CourseCli, ReplOutsideAWorkspaceOffersOne) {
  Result no = Run("", "n\n");
  EXPECT_EQ(no.exit_code, 0);
  EXPECT_TRUE(Has(no, "nothing created")) << no.output;
  EXPECT_FALSE(fs::exists(root_ / "workspace"));
  Result yes = Run("", "y\nquit\n");
  EXPECT_EQ(yes.exit_code, 0) << yes.output;
  EXPECT_TRUE(fs::exists(root_ / "workspace" / "progress.json"));
}

TEST_F(CourseCli, CheckExplainsNoneAndStructureMismatches) {
  Write(root_ / "checks.py",
        "import jax.numpy as jnp\nfrom pallas_check import check\nx = jnp.ones((2, 3))\n"
        "check(x, x, name='same')\ncheck(None, x, name='unfinished')\n"
        "check(x, (x, x), name='tree')\ncheck(x.T, x, name='transposed')\n"
        "check([x, None], [x, x], name='unfinished entry')\n");
  Result r = Run("run checks.py");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Has(r, "PASSED same: (2, 3) float32, max abs error 0")) << r.output;
  EXPECT_TRUE(Has(r, "FAILED unfinished: the result is None\n")) << r.output;
  EXPECT_TRUE(Has(r, "FAILED tree: the result has 1 array but the reference has 2")) << r.output;
  EXPECT_TRUE(Has(r, "FAILED transposed: shape (3, 2) but the reference has (2, 3)")) << r.output;
  EXPECT_TRUE(Has(r, "FAILED unfinished entry: output 1: the result is None")) << r.output;
}

TEST_F(CourseCli, CheckSavesFailsAKernelThatDoesTheWorkAnyway) {
  // Both kernels do the same arithmetic; the second only throws half of it away.
  Write(root_ / "saves.py",
        "import jax, jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
        "from pallas_check import check_saves\n"
        "def k(x_ref, o_ref):\n    o_ref[...] = x_ref[...] * 2.0\n"
        "def masked(x_ref, o_ref):\n"
        "    y = x_ref[...] * 2.0\n"
        "    o_ref[...] = jnp.where(pl.program_id(0) % 2 == 0, y, 0.0)\n"
        "x = jnp.ones((64,))\n"
        "spec = pl.BlockSpec((8,), lambda i: (i,))\n"
        "call = lambda f: pl.pallas_call(f, out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),\n"
        "    grid=(8,), in_specs=[spec], out_specs=spec)(x)\n"
        "check_saves(call(k), call(masked), at_least=0.4, name='skips odd blocks')\n");
  Result r = Run("run saves.py");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(Has(r, "FAILED skips odd blocks: ")) << r.output;
  EXPECT_TRUE(Has(r, "(at least 40% expected)\n  the arithmetic still runs")) << r.output;
}

}  // namespace
