// `pallas-puzzles export-notebooks`: writes one notebook per chapter (course/notebook.h) into a
// directory: the starters, the solutions (--solutions) or the learner's own files (--workspace,
// the workspace found from the working directory, as `diagram` and `roofline` find it).
#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "cli/course_context.h"
#include "course/notebook.h"

namespace pz::cli {
namespace fs = std::filesystem;

int ExportNotebooksCommand(const std::vector<std::string>& args) {
  constexpr const char* kUsage =
      "usage: pallas-puzzles export-notebooks [--solutions | --workspace] DIR";
  bool solutions = false;
  bool workspace = false;
  std::vector<std::string> positional;
  for (const std::string& a : args) {
    if (a == "--solutions") {
      solutions = true;
    } else if (a == "--workspace") {
      workspace = true;
    } else if (a == "--help" || a == "-h") {
      std::puts(kUsage);
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "pallas-puzzles export-notebooks: unknown option `%s`\n%s\n", a.c_str(),
                   kUsage);
      return kExitUsage;
    } else {
      positional.push_back(a);
    }
  }
  if (solutions && workspace) {
    std::fprintf(stderr,
                 "pallas-puzzles export-notebooks: `--solutions` exports the course's solutions "
                 "and `--workspace` your own files; choose one\n");
    return kExitUsage;
  }
  if (positional.size() != 1) {
    std::fprintf(
        stderr, "pallas-puzzles export-notebooks: %s\n%s\n",
        positional.empty() ? "missing the DIR to write the notebooks into" : "expected one DIR",
        kUsage);
    return kExitUsage;
  }
  CourseContext ctx;
  if (auto exit = ctx.Load(workspace)) return *exit;
  course::NotebookOptions options{.code = solutions   ? course::NotebookOptions::Code::kSolutions
                                          : workspace ? course::NotebookOptions::Code::kWorkspace
                                                      : course::NotebookOptions::Code::kStarters,
                                  .workspace = ctx.workspace ? &*ctx.workspace : nullptr};
  fs::path dir = positional[0];
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "pallas-puzzles export-notebooks: cannot create %s: %s\n",
                 dir.string().c_str(), ec.message().c_str());
    return kExitIo;
  }
  int exit = kExitOk;
  for (const course::ChapterEntry& chapter : ctx.course.chapters) {
    course::NotebookExport notebook = course::ExportNotebook(ctx.course, chapter, options);
    for (const std::string& problem : notebook.problems) {
      std::fprintf(stderr, "pallas-puzzles export-notebooks: %s\n", problem.c_str());
      exit = kExitIo;
    }
    for (const std::string& note : notebook.notes) {
      std::fprintf(stderr, "note: %s\n", note.c_str());
    }
    fs::path path = dir / notebook.file_name;
    std::ofstream out(path, std::ios::binary);
    out << notebook.text;
    if (!out) {
      std::fprintf(stderr, "pallas-puzzles export-notebooks: cannot write %s\n",
                   path.string().c_str());
      return kExitIo;
    }
    std::printf("wrote %s\n", path.string().c_str());
  }
  return exit;
}

}  // namespace pz::cli
