#include "course/workspace.h"

#include <fmt/format.h>

#include <fstream>

#include "course/progress.h"
#include "support/source.h"

namespace pz::course {
namespace fs = std::filesystem;

namespace {

std::optional<Workspace> Open(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / ".pallas-puzzles", ec)) return std::nullopt;
  Workspace w{.dir = dir};
  if (std::optional<std::string> text = ReadFile(w.MarkerFile())) {
    std::string root = *text;
    while (!root.empty() && (root.back() == '\n' || root.back() == '\r')) root.pop_back();
    if (root.rfind("course=", 0) == 0) w.course_root = root.substr(7);
  }
  return w;
}

// Copies `from` to `to` unless `to` exists; records what it wrote.
bool CopyNew(const fs::path& from, const fs::path& to, const fs::path& base, InitReport& report) {
  std::error_code ec;
  if (fs::exists(to, ec)) {
    ++report.kept;
    return true;
  }
  fs::create_directories(to.parent_path(), ec);
  if (!fs::copy_file(from, to, ec) || ec) {
    report.error = fmt::format("cannot copy {} to {}: {}", from.string(), to.string(),
                               ec ? ec.message() : "unknown error");
    return false;
  }
  report.created.push_back(fs::relative(to, base, ec).string());
  return true;
}

}  // namespace

std::optional<Workspace> FindWorkspace(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  while (!ec && !dir.empty()) {
    if (auto w = Open(dir)) return w;
    if (auto w = Open(dir / "workspace")) return w;
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

InitReport InitWorkspace(const Course& course, const fs::path& dir) {
  InitReport report;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    report.error = fmt::format("cannot create {}: {}", dir.string(), ec.message());
    return report;
  }
  for (const ChapterEntry& chapter : course.chapters) {
    for (const PuzzleEntry& puzzle : chapter.puzzles) {
      if (!CopyNew(course.StarterPath(puzzle), dir / chapter.id / (puzzle.id + ".py"), dir,
                   report)) {
        return report;
      }
    }
    if (!CopyNew(course.HarnessPath(), dir / chapter.id / "pallas_check.py", dir, report)) {
      return report;
    }
  }
  Workspace w{.dir = dir, .course_root = fs::absolute(course.root, ec)};
  {
    std::ofstream marker(w.MarkerFile(), std::ios::trunc);
    marker << "course=" << w.course_root.string() << "\n";
    if (!marker) {
      report.error = fmt::format("cannot write {}", w.MarkerFile().string());
      return report;
    }
  }
  if (!fs::exists(w.ProgressFile(), ec)) {
    if (auto problem = SaveProgress(w.ProgressFile(), Progress{})) {
      report.error = *problem;
      return report;
    }
    report.created.push_back("progress.json");
  }
  return report;
}

std::optional<std::string> ResetPuzzle(const Course& course, const Workspace& workspace,
                                       const PuzzleEntry& puzzle, fs::path* backup) {
  std::error_code ec;
  fs::path file = workspace.PuzzlePath(puzzle);
  if (fs::exists(file, ec)) {
    std::string stamp = NowUtc();
    for (char& c : stamp) {
      if (c == ':') c = '-';
    }
    fs::path saved = workspace.BackupDir() / puzzle.chapter / (puzzle.id + "-" + stamp + ".py");
    fs::create_directories(saved.parent_path(), ec);
    if (!ec) fs::copy_file(file, saved, fs::copy_options::overwrite_existing, ec);
    if (ec) return fmt::format("cannot back up {}: {}", file.string(), ec.message());
    if (backup) *backup = saved;
  }
  fs::create_directories(file.parent_path(), ec);
  fs::copy_file(course.StarterPath(puzzle), file, fs::copy_options::overwrite_existing, ec);
  if (ec) return fmt::format("cannot restore {}: {}", file.string(), ec.message());
  return std::nullopt;
}

}  // namespace pz::course
