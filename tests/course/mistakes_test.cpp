// Classic learner mistakes (tests/course/mistakes/<chapter>/<puzzle>__<mistake>.py) must fail
// their checks, and the engine's output must contain the explanation the file names in its
// `# explains: TEXT` header line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "course/manifest.h"
#include "course/runner.h"
#include "support/source.h"

namespace {
namespace fs = std::filesystem;

std::vector<std::string> MistakeFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(PZ_MISTAKES_DIR, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Mistake : public ::testing::TestWithParam<std::string> {};

TEST_P(Mistake, FailsWithTheIntendedExplanation) {
  std::optional<std::string> text = pz::ReadFile(GetParam());
  ASSERT_TRUE(text);
  std::string explains;
  size_t at = text->find("# explains: ");
  ASSERT_NE(at, std::string::npos) << "no `# explains:` line";
  explains = text->substr(at + 12, text->find('\n', at) - at - 12);
  ASSERT_FALSE(explains.empty());
  ASSERT_NE(text->find("# mistake: "), std::string::npos) << "no `# mistake:` line";

  pz::course::RunOptions options;
  options.emulator.lint = true;
  // Puzzle files import pallas_check; it is built in, so no path setup is needed.
  pz::course::PuzzleRun run = pz::course::RunFile(GetParam(), options);
  EXPECT_FALSE(run.passed()) << "the mistake passes its checks";
  std::string everything = run.output + run.diagnostics;
  EXPECT_NE(everything.find(explains), std::string::npos) << "expected `" << explains << "` in:\n"
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

INSTANTIATE_TEST_SUITE_P(Course, Mistake, ::testing::ValuesIn(MistakeFiles()), TestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Mistake);

}  // namespace
