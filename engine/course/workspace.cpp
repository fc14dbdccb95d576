#include "course/workspace.h"

#include <fmt/format.h>

#include <cctype>
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

namespace {

constexpr std::string_view kBackupSuffix = ".py";

// The order of a backup's name after `<id>-`: its time ("2026-05-01T10-30-00Z"), then its
// number (1 when it has none); nullopt for a file that is not a backup.
std::optional<std::pair<std::string, int>> BackupKey(std::string_view rest) {
  if (rest.size() <= kBackupSuffix.size() ||
      rest.substr(rest.size() - kBackupSuffix.size()) != kBackupSuffix) {
    return std::nullopt;
  }
  rest.remove_suffix(kBackupSuffix.size());
  size_t zone = rest.find('Z');
  if (zone == std::string_view::npos || rest.empty() ||
      !std::isdigit(static_cast<unsigned char>(rest[0])))
    return std::nullopt;
  int number = 1;
  if (zone + 1 < rest.size()) {
    std::string_view tail = rest.substr(zone + 1);
    if (tail.size() < 2 || tail[0] != '-') return std::nullopt;
    number = 0;
    for (char c : tail.substr(1)) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || number > 100000) return std::nullopt;
      number = number * 10 + (c - '0');
    }
  }
  return std::pair(std::string(rest.substr(0, zone + 1)), number);
}

// Copies the learner's file of `puzzle` to a new backup name; empty path and no error when the
// file does not exist.
std::optional<std::string> BackUp(const Workspace& workspace, const PuzzleEntry& puzzle,
                                  fs::path* backup) {
  std::error_code ec;
  fs::path file = workspace.PuzzlePath(puzzle);
  if (!fs::exists(file, ec)) return std::nullopt;
  std::string stamp = NowUtc();
  for (char& c : stamp) {
    if (c == ':') c = '-';
  }
  fs::path dir = workspace.BackupDir() / puzzle.chapter;
  fs::path saved = dir / (puzzle.id + "-" + stamp + ".py");
  for (int n = 2; fs::exists(saved, ec); ++n) {
    saved = dir / fmt::format("{}-{}-{}.py", puzzle.id, stamp, n);
  }
  fs::create_directories(dir, ec);
  if (!ec) fs::copy_file(file, saved, ec);
  if (ec) return fmt::format("cannot back up {}: {}", file.string(), ec.message());
  if (backup) *backup = saved;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ResetPuzzle(const Course& course, const Workspace& workspace,
                                       const PuzzleEntry& puzzle, fs::path* backup) {
  if (auto problem = BackUp(workspace, puzzle, backup)) return problem;
  std::error_code ec;
  fs::path file = workspace.PuzzlePath(puzzle);
  fs::create_directories(file.parent_path(), ec);
  fs::copy_file(course.StarterPath(puzzle), file, fs::copy_options::overwrite_existing, ec);
  if (ec) return fmt::format("cannot restore {}: {}", file.string(), ec.message());
  return std::nullopt;
}

std::optional<fs::path> LatestBackup(const Workspace& workspace, const PuzzleEntry& puzzle) {
  std::error_code ec;
  std::optional<fs::path> latest;
  std::pair<std::string, int> latest_key;
  std::string prefix = puzzle.id + "-";
  for (fs::directory_iterator it(workspace.BackupDir() / puzzle.chapter, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !it->is_regular_file(ec)) continue;
    std::optional<std::pair<std::string, int>> key = BackupKey(name.substr(prefix.size()));
    if (key && (!latest || *key > latest_key)) {
      latest = it->path();
      latest_key = *key;
    }
  }
  return latest;
}

RestoreReport RestoreBackup(const Course& course, const Workspace& workspace,
                            const PuzzleEntry& puzzle, const fs::path& backup) {
  RestoreReport report;
  fs::path file = workspace.PuzzlePath(puzzle);
  std::optional<std::string> restored = ReadFile(backup);
  if (!restored) {
    report.error = fmt::format("cannot read the backup {}", backup.string());
    return report;
  }
  std::optional<std::string> current = ReadFile(file);
  if (current && *current != *restored && current != ReadFile(course.StarterPath(puzzle))) {
    if (auto problem = BackUp(workspace, puzzle, &report.saved)) {
      report.error = *problem;
      return report;
    }
  }
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  fs::copy_file(backup, file, fs::copy_options::overwrite_existing, ec);
  if (ec) report.error = fmt::format("cannot restore {}: {}", file.string(), ec.message());
  return report;
}

}  // namespace pz::course
