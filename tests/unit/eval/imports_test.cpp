// Unit tests of imports of `.py` files beside the program (eval/imports.cpp): what the golden
// runner cannot check (errors located in another file, tracebacks through imports, paths in
// reprs, a `jax.py` that must not shadow jax). Each test writes its files to a fresh folder.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../scratch_dir.h"

#include "eval/interpreter.h"
#include "lang/parser.h"

namespace pz::eval {
namespace {
namespace fs = std::filesystem;

struct FileRun {
  std::string output;    // everything print() wrote
  std::string error;     // the first error's message ("" on success)
  std::string location;  // "path:line:col" of the first error
  std::string rendered;  // the rendered diagnostic
};

// A fresh folder holding `files` (relative path, text); runs `main.py` from it.
class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<pz::testing::ScratchDir>();
    root_ = scratch_->path();
  }
  void TearDown() override { scratch_.reset(); }

  void Write(const std::string& path, const std::string& text) {
    fs::path full = root_ / path;
    fs::create_directories(full.parent_path());
    std::ofstream(full, std::ios::binary) << text;
  }

  FileRun Run(const std::string& main = "main.py") {
    FileRun result;
    SourceManager sources;
    std::optional<FileId> id = sources.Load((root_ / main).string());
    EXPECT_TRUE(id.has_value());
    DiagnosticSink sink;
    lang::Module module = lang::ParseModule(sources.Get(*id), *id, sink);
    EXPECT_FALSE(sink.HasErrors());
    InterpreterOptions options;
    options.output = [&](std::string_view text) { result.output += text; };
    Interpreter interp(sources, options);
    if (std::optional<Diagnostic> error = interp.RunModule(std::move(module))) {
      result.error = error->message;
      if (error->span) {
        const SourceFile& file = sources.Get(error->span->file);
        LineCol lc = file.Locate(error->span->begin);
        result.location =
            fmt::format("{}:{}:{}", fs::path(file.path()).filename().string(), lc.line, lc.col);
      }
      result.rendered = Render(*error, sources);
    }
    return result;
  }

  std::unique_ptr<pz::testing::ScratchDir> scratch_;
  fs::path root_;
};

TEST_F(ImportTest, ModuleReprNamesItsFile) {
  Write("helper.py", "x = 1\n");
  Write("main.py",
        "import helper\nprint(repr(helper) == f\"<module 'helper' from '{helper.__file__}'>\")\n"
        "print(helper.__file__.startswith('/'))\n");
  FileRun run = Run();
  EXPECT_EQ(run.output, "True\nTrue\n") << run.rendered;
}

TEST_F(ImportTest, ErrorInsideAModuleIsReportedThereWithATracebackThroughTheImport) {
  Write("helper.py", "def f():\n    return 1 / 0\n\nvalue = f()\n");
  Write("main.py", "print('start')\nimport helper\n");
  FileRun run = Run();
  EXPECT_EQ(run.output, "start\n");
  EXPECT_EQ(run.error, "ZeroDivisionError: division by zero");
  EXPECT_EQ(run.location, "helper.py:2:12");
  EXPECT_NE(run.rendered.find("main.py\", line 2, in <module>\n    import helper"),
            std::string::npos)
      << run.rendered;
  EXPECT_NE(run.rendered.find("helper.py\", line 4, in <module>"), std::string::npos)
      << run.rendered;
  EXPECT_NE(run.rendered.find("helper.py\", line 2, in f"), std::string::npos) << run.rendered;
}

TEST_F(ImportTest, ErrorInAFunctionOfAModuleCalledLaterPointsIntoTheModule) {
  Write("helper.py", "def f(d):\n    return d['missing']\n");
  Write("main.py", "import helper\nhelper.f({})\n");
  FileRun run = Run();
  EXPECT_EQ(run.error, "KeyError: 'missing'");
  EXPECT_EQ(run.location, "helper.py:2:12");
}

TEST_F(ImportTest, SyntaxErrorInAModuleIsReportedAtTheModulesLine) {
  Write("helper.py", "x = 1\ndef f(:\n    pass\n");
  Write("main.py", "import helper\n");
  FileRun run = Run();
  EXPECT_EQ(run.error.rfind("SyntaxError: ", 0), 0u) << run.error;
  EXPECT_EQ(run.location.substr(0, 12), "helper.py:2:") << run.location;
  EXPECT_NE(run.rendered.find("main.py\", line 1, in <module>"), std::string::npos) << run.rendered;
}

TEST_F(ImportTest, NonUtf8ModuleIsASyntaxError) {
  Write("helper.py", "x = 1\ns = '\xff'\n");
  Write("main.py", "import helper\n");
  FileRun run = Run();
  EXPECT_EQ(run.error.rfind("SyntaxError: Non-UTF-8 code starting with '\\xff'", 0), 0u)
      << run.error;
  EXPECT_EQ(run.location, "helper.py:2:6");
}

TEST_F(ImportTest, CircularFromImportOfAnUndefinedNameIsCPythonsImportError) {
  Write("a.py", "from b import g\n\ndef f():\n    return 1\n");
  Write("b.py", "from a import f\n\ndef g():\n    return 2\n");
  Write("main.py", "import a\n");
  FileRun run = Run();
  EXPECT_EQ(run.error.rfind("ImportError: cannot import name 'f' from partially initialized "
                            "module 'a' (most likely due to a circular import) (",
                            0),
            0u)
      << run.error;
  EXPECT_EQ(run.location, "b.py:1:15");
}

TEST_F(ImportTest, AFailedImportIsNotCachedAndRunsAgain) {
  Write("helper.py", "print('run')\nraise ValueError('boom')\n");
  Write("main.py",
        "for _ in range(2):\n    try:\n        import helper\n    except ValueError as e:\n"
        "        print(e)\n");
  FileRun run = Run();
  EXPECT_EQ(run.output, "run\nboom\nrun\nboom\n") << run.rendered;
}

TEST_F(ImportTest, BuiltinModulesWinOverFilesOfTheSameName) {
  Write("jax.py", "raise RuntimeError('the local jax.py ran')\n");
  Write("math.py", "raise RuntimeError('the local math.py ran')\n");
  Write(
      "main.py",
      "import jax\nimport jax.numpy as jnp\nimport math\nprint(math.sqrt(4), jnp.ones(2).shape)\n");
  FileRun run = Run();
  EXPECT_EQ(run.output, "2.0 (2,)\n") << run.rendered;
}

TEST_F(ImportTest, RelativeImportBeyondTheTopLevelPackageIsRejected) {
  Write("pkg/__init__.py", "");
  Write("pkg/sub.py", "from .. import secret\n");
  Write("main.py", "import pkg.sub\n");
  FileRun run = Run();
  EXPECT_EQ(run.error, "ImportError: attempted relative import beyond top-level package");
  EXPECT_EQ(run.location, "sub.py:1:1");
}

TEST_F(ImportTest, RelativeImportInATopLevelModuleHasNoParentPackage) {
  Write("helper.py", "from . import other\n");
  Write("main.py", "import helper\n");
  EXPECT_EQ(Run().error, "ImportError: attempted relative import with no known parent package");
}

TEST_F(ImportTest, FilesOutsideTheProgramsFolderAreNeverImported) {
  Write("outside.py", "print('outside ran')\n");
  Write("app/main.py", "import outside\n");
  std::error_code error;
  fs::create_symlink(root_ / "outside.py", root_ / "app" / "linked.py", error);
  FileRun run = Run("app/main.py");
  EXPECT_EQ(run.error, "ModuleNotFoundError: No module named 'outside'");
  if (!error) {
    Write("app/main.py", "import linked\n");
    EXPECT_EQ(Run("app/main.py").error, "ModuleNotFoundError: No module named 'linked'");
  }
}

TEST_F(ImportTest, ModuleNotFoundMentionsFilesBesideTheProgram) {
  Write("main.py", "import helpr\n");
  FileRun run = Run();
  EXPECT_EQ(run.error, "ModuleNotFoundError: No module named 'helpr'");
  EXPECT_NE(run.rendered.find("`.py` files and package folders beside the program"),
            std::string::npos)
      << run.rendered;
}

TEST_F(ImportTest, ModuleGlobalsAreSeparateFromTheMainPrograms) {
  Write("helper.py", "x = 'helper'\ndef get():\n    return x\ndef name():\n    return __name__\n");
  Write("main.py", "x = 'main'\nimport helper\nprint(helper.get(), x, helper.name(), __name__)\n");
  FileRun run = Run();
  EXPECT_EQ(run.output, "helper main helper __main__\n") << run.rendered;
}

TEST_F(ImportTest, ClassesDefinedInAModuleKnowTheirModule) {
  Write("shapes.py", "class Box:\n    def __init__(self, w):\n        self.w = w\n");
  Write("main.py", "from shapes import Box\nprint(Box.__module__, Box(3).w, Box)\n");
  FileRun run = Run();
  EXPECT_EQ(run.output, "shapes 3 <class 'shapes.Box'>\n") << run.rendered;
}

}  // namespace
}  // namespace pz::eval
