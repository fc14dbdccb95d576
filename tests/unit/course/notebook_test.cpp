// Notebook export on the small test course: the notebook is deterministic, nbformat 4.5 shaped
// (ids, no outputs), starts with the setup cell, carries images as attachments and hints as
// collapsible sections, exports the solutions with --solutions and a learner's workspace with
// --workspace, installs the course's JAX release and links to Colab when the manifest says where
// the course is published.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include <memory>

#include "../scratch_dir.h"
#include "course/manifest.h"
#include "course/notebook.h"
#include "course/workspace.h"
#include "support/source.h"

namespace pz::course {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

class Notebook : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<pz::testing::ScratchDir>();
    root_ = pz::testing::CopyTestCourse(*scratch_);
    CourseLoad load = LoadCourse(root_);
    ASSERT_TRUE(load.ok());
    course_ = load.course;
  }
  void TearDown() override { scratch_.reset(); }

  NotebookExport Export(bool solutions) {
    return ExportNotebook(
        course_, course_.chapters.at(0),
        {.code = solutions ? NotebookOptions::Code::kSolutions : NotebookOptions::Code::kStarters});
  }
  static std::string Source(const json& cell) {
    std::string text;
    for (const json& line : cell["source"]) text += line.get<std::string>();
    return text;
  }

  std::unique_ptr<pz::testing::ScratchDir> scratch_;
  fs::path root_;
  Course course_;
};

TEST_F(Notebook, ExportIsByteIdenticalOnReexport) {
  NotebookExport a = Export(false), b = Export(false);
  EXPECT_TRUE(a.problems.empty());
  EXPECT_EQ(a.file_name, "01_intro.ipynb");
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.text.back(), '\n');
  EXPECT_EQ(a.text.find("execution_count\": 1"), std::string::npos);
}

TEST_F(Notebook, IsNbformat45WithUniqueIdsAndNoOutputs) {
  json nb = json::parse(Export(false).text);
  EXPECT_EQ(nb["nbformat"], 4);
  EXPECT_EQ(nb["nbformat_minor"], 5);
  EXPECT_EQ(nb["metadata"]["kernelspec"]["name"], "python3");
  std::set<std::string> ids;
  std::regex id_pattern("^[a-zA-Z0-9-_]{1,64}$");
  for (const json& cell : nb["cells"]) {
    std::string id = cell["id"];
    EXPECT_TRUE(std::regex_match(id, id_pattern)) << id;
    EXPECT_TRUE(ids.insert(id).second) << "duplicate id " << id;
    if (cell["cell_type"] == "code") {
      EXPECT_EQ(cell["outputs"], json::array());
      EXPECT_TRUE(cell["execution_count"].is_null());
    }
  }
}

TEST_F(Notebook, ChapterIntroThenSetupThenPuzzlesThenSummary) {
  json nb = json::parse(Export(false).text);
  const json& cells = nb["cells"];
  ASSERT_GE(cells.size(), 4u);
  EXPECT_EQ(cells[0]["id"], "intro");
  EXPECT_EQ(cells[0]["cell_type"], "markdown");
  EXPECT_EQ(cells[1]["id"], "setup");
  EXPECT_EQ(cells[1]["cell_type"], "code");
  std::string setup = Source(cells[1]);
  EXPECT_NE(setup.find("\"google.colab\" in sys.modules"), std::string::npos);
  EXPECT_NE(setup.find("\"pip\", \"install\", \"-q\", \"jax\""), std::string::npos);
  EXPECT_NE(setup.find("open(\"pallas_check.py\", \"w\")"), std::string::npos);
  std::string harness = *ReadFile(root_ / "puzzles" / "pallas_check.py");
  EXPECT_NE(setup.find("r'''" + harness + "'''"), std::string::npos);
  EXPECT_EQ(cells[2]["id"], "p01-c00");
  EXPECT_EQ(cells.back()["id"], "summary");
  // The markdown prefix "# " is gone from theory cells.
  EXPECT_EQ(Source(cells[2]).rfind("# ", 0), 0u);
  EXPECT_EQ(Source(cells[2]).find("\n# #"), std::string::npos);
}

TEST_F(Notebook, ImagesAreAttachedAndReferencedAsAttachments) {
  json nb = json::parse(Export(false).text);
  int attached = 0;
  for (const json& cell : nb["cells"]) {
    if (!cell.contains("attachments")) continue;
    ++attached;
    EXPECT_EQ(cell["cell_type"], "markdown");
    std::string text = Source(cell);
    EXPECT_NE(text.find("](attachment:test_blocks.svg)"), std::string::npos);
    EXPECT_EQ(text.find("images/"), std::string::npos);
    std::string svg = *ReadFile(root_ / "images" / "test_blocks.svg");
    EXPECT_EQ(cell["attachments"]["test_blocks.svg"]["image/svg+xml"], Base64(svg));
  }
  EXPECT_EQ(attached, 1);
}

TEST_F(Notebook, HintsFollowEachPuzzleAsCollapsibleSections) {
  json nb = json::parse(Export(false).text);
  std::vector<std::string> hint_cells;
  for (const json& cell : nb["cells"]) {
    std::string id = cell["id"];
    if (id.size() > 6 && id.substr(id.size() - 6) == "-hints") hint_cells.push_back(Source(cell));
  }
  ASSERT_EQ(hint_cells.size(), 2u);
  EXPECT_EQ(hint_cells[0].rfind("<details><summary>Hint 1", 0), 0u);
  EXPECT_NE(hint_cells[0].find("</summary>\n\n"), std::string::npos);
  EXPECT_NE(hint_cells[0].find("<details><summary>Hint 2"), std::string::npos);
  EXPECT_NE(hint_cells[0].find("</details>"), std::string::npos);
}

TEST_F(Notebook, SolutionsExportTheSolvedCode) {
  std::string starter = Export(false).text, solution = Export(true).text;
  EXPECT_EQ(starter.find("o_ref[...] = x_ref[...] * 2.0"), std::string::npos);
  EXPECT_NE(solution.find("o_ref[...] = x_ref[...] * 2.0"), std::string::npos);
}

TEST_F(Notebook, MissingFilesAreReportedNotFatal) {
  fs::remove(root_ / "images" / "test_blocks.svg");
  NotebookExport out = Export(false);
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0], "images/test_blocks.svg: cannot be read");
  EXPECT_NE(out.text.find("../../images/test_blocks.svg"), std::string::npos);
}

// The test course's manifest with `extra` fields ("\"jax_version\": \"0.10.2\", ...").
CourseLoad WithManifest(const fs::path& root, const std::string& extra) {
  std::ofstream(root / "puzzles" / "course.json")
      << R"({"title": "Test Course", "chapters": ["01_intro"])" << (extra.empty() ? "" : ", ")
      << extra << "}";
  return LoadCourse(root);
}

TEST_F(Notebook, SetupCellInstallsTheCoursesJaxRelease) {
  CourseLoad load = WithManifest(root_, R"("jax_version": "0.10.2")");
  ASSERT_TRUE(load.ok()) << load.errors[0];
  EXPECT_EQ(load.course.jax_version, "0.10.2");
  json nb = json::parse(ExportNotebook(load.course, load.course.chapters.at(0)).text);
  std::string setup = Source(nb["cells"][1]);
  for (const char* text :
       {"It installs JAX 0.10.2, the release this course is verified against",
        "JAX_VERSION = \"0.10.2\"\n", "importlib.metadata.version(\"jax\")",
        "if installed_jax != JAX_VERSION and (\"google.colab\" in sys.modules or installed_jax is "
        "None):",
        "\"pip\", \"install\", \"-q\", f\"jax=={JAX_VERSION}\"]",
        "open(\"pallas_check.py\", \"w\")"}) {
    EXPECT_NE(setup.find(text), std::string::npos) << "missing `" << text << "` in:\n" << setup;
  }
  // Without a release in the manifest, Colab gets the latest JAX.
  json unpinned = json::parse(Export(false).text);
  EXPECT_EQ(Source(unpinned["cells"][1]).find("JAX_VERSION"), std::string::npos);
}

TEST_F(Notebook, OpenInColabLinksToTheCommittedNotebook) {
  CourseLoad load = WithManifest(root_, R"("repository": "someone/course", "branch": "dev")");
  ASSERT_TRUE(load.ok()) << load.errors[0];
  const ChapterEntry& chapter = load.course.chapters.at(0);
  json starters = json::parse(ExportNotebook(load.course, chapter).text);
  EXPECT_EQ(starters["cells"][0]["id"], "colab");
  EXPECT_EQ(starters["cells"][0]["cell_type"], "markdown");
  EXPECT_EQ(Source(starters["cells"][0]),
            "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
            "(https://colab.research.google.com/github/someone/course/blob/dev/notebooks/"
            "01_intro.ipynb)");
  EXPECT_EQ(starters["cells"][1]["id"], "intro");
  json solutions = json::parse(
      ExportNotebook(load.course, chapter, {.code = NotebookOptions::Code::kSolutions}).text);
  EXPECT_NE(Source(solutions["cells"][0]).find("/blob/dev/notebooks/solutions/01_intro.ipynb)"),
            std::string::npos);
  // The branch defaults to main; a workspace's notebook has no link.
  CourseLoad main = WithManifest(root_, R"("repository": "someone/course")");
  EXPECT_EQ(ColabUrl(main.course, "01_intro.ipynb", false),
            "https://colab.research.google.com/github/someone/course/blob/main/notebooks/"
            "01_intro.ipynb");
  Workspace workspace{.dir = root_ / "ws"};
  json mine = json::parse(
      ExportNotebook(main.course, main.course.chapters.at(0),
                     {.code = NotebookOptions::Code::kWorkspace, .workspace = &workspace})
          .text);
  EXPECT_EQ(mine["cells"][0]["id"], "intro");
  EXPECT_EQ(ColabUrl(course_, "01_intro.ipynb", false), "");
}

TEST_F(Notebook, WorkspaceExportHoldsTheLearnersFiles) {
  Workspace workspace{.dir = root_ / "ws"};
  fs::create_directories(root_ / "ws" / "01_intro");
  std::ofstream(root_ / "ws" / "01_intro" / "01_double.py")
      << "# %%\ndef double_kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + x_ref[...]\n";
  NotebookExport out =
      ExportNotebook(course_, course_.chapters.at(0),
                     {.code = NotebookOptions::Code::kWorkspace, .workspace = &workspace});
  EXPECT_TRUE(out.problems.empty());
  EXPECT_NE(out.text.find("o_ref[...] = x_ref[...] + x_ref[...]"), std::string::npos);
  // A puzzle missing from the workspace comes from its starter, with a note.
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_NE(out.notes[0].find("02_row_blocks.py is not in the workspace: exported its starter"),
            std::string::npos)
      << out.notes[0];
  EXPECT_NE(out.text.find("def copy_kernel"), std::string::npos);
}

TEST_F(Notebook, ManifestPublicationFieldsAreChecked) {
  struct Case {
    const char* fields;
    const char* error;
  };
  for (const Case& c : {
           Case{R"("jax_version": "latest")", "`jax_version` must be a release such as"},
           Case{R"("jax_version": "0.10.2\"; import os")", "`jax_version` must be a release"},
           Case{R"("jax_version": 10)", "`jax_version` must be a string"},
           Case{R"("repository": "course")", "`repository` must be a GitHub repository as"},
           Case{R"("repository": "a/b/c")", "`repository` must be a GitHub repository as"},
           Case{R"("repository": "a/b c")", "`repository` must be a GitHub repository as"},
           Case{R"("branch": "dev")", "`branch` is the branch of `repository`, which is missing"},
           Case{R"("repository": "a/b", "branch": "x..y")", "`branch` must be a branch name"},
           Case{R"("repository": "a/b", "branch": "dev branch")", "`branch` must be a branch"},
       }) {
    CourseLoad load = WithManifest(root_, c.fields);
    ASSERT_EQ(load.errors.size(), 1u) << c.fields;
    EXPECT_NE(load.errors[0].find(c.error), std::string::npos) << load.errors[0];
    EXPECT_EQ(load.errors[0].rfind("puzzles/course.json: ", 0), 0u) << load.errors[0];
    EXPECT_TRUE(load.course.repository.empty() || load.course.branch == "main") << c.fields;
    EXPECT_FALSE(load.course.chapters.empty()) << "the rest of the course still loads";
  }
}

TEST(Base64, MatchesTheStandardAlphabetAndPadding) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64(std::string("\xff\xfe", 2)), "//4=");
}

}  // namespace
}  // namespace pz::course
