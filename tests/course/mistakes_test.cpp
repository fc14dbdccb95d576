// Classic learner mistakes must fail their checks with the intended explanation. Each
// tests/course/mistakes/<chapter>/<puzzle>__<mistake>.txt is an edit of the puzzle's solution:
//
//   mistake: one sentence describing the learner's mistake
//   explains: TEXT            (the engine's output or diagnostics must contain it)
//   --- replace
//   lines of the solution (they must occur exactly once)
//   --- with
//   the mistaken lines (possibly none)
//
// with as many replace/with pairs as needed. Because the mistake is applied to the current
// solution, a solution that changes under a mistake makes this test fail instead of leaving a
// stale copy behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "../unit/scratch_dir.h"
#include "course/divergence.h"
#include "course/puzzle_file.h"
#include "course/runner.h"
#include "support/source.h"

namespace {
namespace fs = std::filesystem;

std::vector<std::string> MistakeFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(PZ_MISTAKES_DIR, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".txt") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Mistake {
  std::string description, explains;
  std::vector<std::pair<std::string, std::string>> edits;  // replace, with
};

// Parses a mistake file; returns a problem description instead when it is malformed.
std::variant<Mistake, std::string> ParseMistake(const std::string& text) {
  Mistake m;
  std::string* block = nullptr;
  for (std::string_view line : pz::course::SplitLines(text)) {
    std::string with_newline = std::string(line) + "\n";
    if (line == "--- replace") {
      m.edits.emplace_back();
      block = &m.edits.back().first;
    } else if (line == "--- with") {
      if (m.edits.empty()) return "`--- with` before any `--- replace`";
      block = &m.edits.back().second;
    } else if (block != nullptr) {
      *block += with_newline;
    } else if (line.rfind("mistake: ", 0) == 0) {
      m.description = line.substr(9);
    } else if (line.rfind("explains: ", 0) == 0) {
      m.explains = line.substr(10);
    } else if (!line.empty()) {
      return "unexpected header line: " + std::string(line);
    }
  }
  if (m.description.empty() || m.explains.empty()) return "missing `mistake:` or `explains:`";
  if (m.edits.empty()) return "no `--- replace` edit";
  return m;
}

class LearnerMistake : public ::testing::TestWithParam<std::string> {};

TEST_P(LearnerMistake, FailsWithTheIntendedExplanation) {
  fs::path file(GetParam());
  std::optional<std::string> text = pz::ReadFile(file);
  ASSERT_TRUE(text);
  auto parsed = ParseMistake(*text);
  ASSERT_TRUE(std::holds_alternative<Mistake>(parsed)) << std::get<std::string>(parsed);
  const Mistake& mistake = std::get<Mistake>(parsed);

  std::string chapter = file.parent_path().filename().string();
  std::string puzzle = file.stem().string().substr(0, file.stem().string().find("__"));
  fs::path solution_path = fs::path(PZ_SOURCE_DIR) / "solutions" / chapter / (puzzle + ".py");
  std::optional<std::string> solution = pz::ReadFile(solution_path);
  ASSERT_TRUE(solution) << "no solution " << solution_path;
  std::string program = *solution;
  for (const auto& [old_text, new_text] : mistake.edits) {
    size_t at = program.find(old_text);
    ASSERT_NE(at, std::string::npos) << "the solution no longer contains:\n" << old_text;
    ASSERT_EQ(program.find(old_text, at + 1), std::string::npos)
        << "the replaced lines occur more than once in the solution:\n"
        << old_text;
    program.replace(at, old_text.size(), new_text);
  }
  pz::testing::ScratchDir scratch;
  fs::path run_path = scratch / (file.stem().string() + ".py");
  std::ofstream(run_path) << program;

  pz::course::RunOptions options;
  options.emulator.lint = true;
  pz::course::PuzzleRun run = pz::course::RunFile(run_path, options);
  // `check` adds where the kernel first parts from the solution's.
  std::optional<pz::course::Divergence> divergence =
      pz::course::FindDivergence(run_path, solution_path, options);
  EXPECT_FALSE(run.passed()) << "the mistake passes its checks: " << mistake.description;
  std::string everything = run.output + run.Diagnostics();
  if (divergence) everything += pz::course::FormatDivergence(*divergence);
  EXPECT_NE(everything.find(mistake.explains), std::string::npos)
      << "expected `" << mistake.explains << "` in:\n"
      << everything;
  EXPECT_EQ(everything.find("internal error"), std::string::npos) << everything;
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  fs::path p(info.param);
  std::string name = p.parent_path().filename().string() + "_" + p.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Course, LearnerMistake, ::testing::ValuesIn(MistakeFiles()), TestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LearnerMistake);

}  // namespace
