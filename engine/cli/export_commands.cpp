// `pallas-puzzles export-notebooks`: writes one notebook per chapter (course/notebook.h) into a
// directory, starters or (--solutions) solutions.
#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "cli/course_context.h"
#include "course/notebook.h"

namespace pz::cli {
namespace fs = std::filesystem;

int ExportNotebooksCommand(const std::vector<std::string>& args) {
  bool solutions = false;
  std::vector<std::string> positional;
  for (const std::string& a : args) {
    if (a == "--solutions") {
      solutions = true;
    } else if (a == "--help" || a == "-h") {
      std::puts("usage: pallas-puzzles export-notebooks [--solutions] DIR");
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "pallas-puzzles export-notebooks: unknown option `%s`\n", a.c_str());
      return kExitUsage;
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 1) {
    std::fputs("usage: pallas-puzzles export-notebooks [--solutions] DIR\n", stderr);
    return kExitUsage;
  }
  CourseContext ctx;
  if (auto exit = ctx.Load(false)) return *exit;
  fs::path dir = positional[0];
  std::error_code ec;
  fs::create_directories(dir, ec);
  int exit = kExitOk;
  for (const course::ChapterEntry& chapter : ctx.course.chapters) {
    course::NotebookExport notebook = course::ExportNotebook(ctx.course, chapter, solutions);
    for (const std::string& problem : notebook.problems) {
      std::fprintf(stderr, "pallas-puzzles export-notebooks: %s\n", problem.c_str());
      exit = kExitIo;
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
