#include "course/manifest.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "support/source.h"

namespace pz::course {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// "01_constant_add" -> "constant_add"; ids without a numeric prefix stay as they are.
std::string WithoutNumber(const std::string& id) {
  size_t i = 0;
  while (i < id.size() && std::isdigit(static_cast<unsigned char>(id[i]))) ++i;
  return i > 0 && i < id.size() && id[i] == '_' ? id.substr(i + 1) : id;
}

std::optional<int> ParseNumber(std::string_view text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  int n = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::optional<json> ReadJson(const fs::path& path, const std::string& shown,
                             std::vector<std::string>& errors) {
  std::optional<std::string> text = ReadFile(path);
  if (!text) {
    errors.push_back(fmt::format("{}: cannot be read", shown));
    return std::nullopt;
  }
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    errors.push_back(fmt::format("{}: not valid JSON: {}", shown, e.what()));
    return std::nullopt;
  }
}

std::string StringField(const json& object, const char* key, const std::string& where,
                        std::vector<std::string>& errors, bool required = true) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) {
    if (required || it != object.end()) {
      errors.push_back(fmt::format("{}: `{}` must be a string", where, key));
    }
    return "";
  }
  return it->get<std::string>();
}

bool ValidId(const std::string& id) {
  if (id.empty()) return false;
  for (char c : id) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

// The chapter's optional `diagrams` list (puzzles/README.md).
void ReadDiagrams(const json& data, const std::string& shown, ChapterEntry& chapter,
                  std::vector<std::string>& errors) {
  auto diagrams = data.find("diagrams");
  if (diagrams == data.end()) return;
  if (!diagrams->is_array()) {
    errors.push_back(shown + ": `diagrams` must be a list");
    return;
  }
  for (const json& d : *diagrams) {
    std::string where = fmt::format("{}: diagram {}", shown, chapter.diagrams.size() + 1);
    if (!d.is_object()) {
      errors.push_back(where + ": must be an object");
      continue;
    }
    DiagramEntry entry{.image = StringField(d, "image", where, errors),
                       .puzzle = StringField(d, "puzzle", where, errors)};
    auto command = d.find("command");
    if (command != d.end()) {
      if (!command->is_string() ||
          (command->get<std::string>() != "diagram" && command->get<std::string>() != "roofline")) {
        errors.push_back(where + ": `command` is \"diagram\" (the default) or \"roofline\"");
      } else {
        entry.command = command->get<std::string>();
      }
    }
    auto args = d.find("args");
    if (args != d.end()) {
      bool ok = args->is_array();
      for (const json& a : ok ? *args : json::array()) {
        ok &= a.is_string();
        if (a.is_string()) entry.args.push_back(a.get<std::string>());
      }
      if (!ok) errors.push_back(where + ": `args` must be a list of strings");
    }
    if (entry.image.find('/') != std::string::npos || entry.image.size() < 5 ||
        entry.image.substr(entry.image.size() - 4) != ".svg") {
      errors.push_back(where + ": `image` must be a file name ending in .svg");
      continue;
    }
    chapter.diagrams.push_back(std::move(entry));
  }
}

// Whether every character of `text` is a letter, a digit or one of `extra`.
bool OnlyNameCharacters(const std::string& text, std::string_view extra) {
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && extra.find(c) == std::string_view::npos) {
      return false;
    }
  }
  return !text.empty();
}

// The optional `jax_version`, `repository` and `branch` of course.json (puzzles/README.md).
void ReadPublication(const json& data, Course& course, std::vector<std::string>& errors) {
  const std::string where = "puzzles/course.json";
  if (data.contains("jax_version")) {
    std::string version = StringField(data, "jax_version", where, errors);
    if (!version.empty() && (!OnlyNameCharacters(version, ".") ||
                             !std::isdigit(static_cast<unsigned char>(version[0])))) {
      errors.push_back(where + ": `jax_version` must be a release such as \"0.10.2\"");
    } else {
      course.jax_version = version;
    }
  }
  if (data.contains("repository")) {
    std::string repository = StringField(data, "repository", where, errors);
    size_t slash = repository.find('/');
    if (slash == std::string::npos || !OnlyNameCharacters(repository.substr(0, slash), "-") ||
        !OnlyNameCharacters(repository.substr(slash + 1), "._-")) {
      errors.push_back(where + ": `repository` must be a GitHub repository as \"owner/name\"");
    } else {
      course.repository = repository;
      course.branch = "main";
    }
  }
  if (data.contains("branch")) {
    std::string branch = StringField(data, "branch", where, errors);
    if (!data.contains("repository")) {
      errors.push_back(where + ": `branch` is the branch of `repository`, which is missing");
    } else if (!OnlyNameCharacters(branch, "._/-") || branch.find("..") != std::string::npos) {
      errors.push_back(where + ": `branch` must be a branch name such as \"main\"");
    } else if (!course.repository.empty()) {
      course.branch = branch;
    }
  }
}

}  // namespace

std::string PuzzleEntry::short_name() const { return fmt::format("{}.{}", chapter_number, number); }

std::vector<const PuzzleEntry*> Course::Puzzles() const {
  std::vector<const PuzzleEntry*> all;
  for (const ChapterEntry& c : chapters) {
    for (const PuzzleEntry& p : c.puzzles) all.push_back(&p);
  }
  return all;
}

const ChapterEntry* Course::FindChapter(std::string_view id) const {
  for (const ChapterEntry& c : chapters) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

const PuzzleEntry* Course::Find(std::string_view raw) const {
  std::string name(raw);
  while (!name.empty() && (name.back() == '/' || name.back() == ' ')) name.pop_back();
  if (name.size() > 3 && name.substr(name.size() - 3) == ".py") name.resize(name.size() - 3);
  // "1.1", "01/01", "1/1": chapter and puzzle numbers.
  for (char sep : {'.', '/'}) {
    size_t at = name.find(sep);
    if (at == std::string::npos) continue;
    std::optional<int> c = ParseNumber(std::string_view(name).substr(0, at));
    std::optional<int> p = ParseNumber(std::string_view(name).substr(at + 1));
    if (c && p && *c >= 1 && *c <= static_cast<int>(chapters.size())) {
      const ChapterEntry& chapter = chapters[static_cast<size_t>(*c - 1)];
      if (*p >= 1 && *p <= static_cast<int>(chapter.puzzles.size())) {
        return &chapter.puzzles[static_cast<size_t>(*p - 1)];
      }
      return nullptr;
    }
  }
  // A full name, "chapter/puzzle" with either part partial, or a puzzle id with or without
  // its number; unique matches only.
  const PuzzleEntry* found = nullptr;
  int matches = 0;
  for (const PuzzleEntry* p : Puzzles()) {
    bool match = false;
    size_t slash = name.find('/');
    if (slash != std::string::npos) {
      std::string c = name.substr(0, slash), id = name.substr(slash + 1);
      match = (p->chapter == c || WithoutNumber(p->chapter) == c) &&
              (p->id == id || WithoutNumber(p->id) == id);
    } else {
      match = p->id == name || WithoutNumber(p->id) == name;
    }
    if (match) {
      found = p;
      ++matches;
    }
  }
  return matches == 1 ? found : nullptr;
}

const PuzzleEntry* Course::FindDiagramPuzzle(const ChapterEntry& chapter,
                                             const DiagramEntry& diagram) const {
  for (const PuzzleEntry& p : chapter.puzzles) {
    if (p.id == diagram.puzzle) return &p;
  }
  return Find(diagram.puzzle);
}

fs::path Course::StarterPath(const PuzzleEntry& p) const {
  return root / "puzzles" / p.chapter / (p.id + ".py");
}
fs::path Course::SolutionPath(const PuzzleEntry& p) const {
  return root / "solutions" / p.chapter / (p.id + ".py");
}
fs::path Course::HintsPath(const PuzzleEntry& p) const {
  return root / "hints" / p.chapter / (p.id + ".md");
}
fs::path Course::IntroPath(const ChapterEntry& c) const {
  return root / "puzzles" / c.id / "intro.md";
}
fs::path Course::SummaryPath(const ChapterEntry& c) const {
  return root / "puzzles" / c.id / "summary.md";
}
fs::path Course::ImagePath(const std::string& image) const { return root / "images" / image; }
fs::path Course::HarnessPath() const { return root / "puzzles" / "pallas_check.py"; }

CourseLoad LoadCourse(const fs::path& root) {
  CourseLoad load;
  load.course.root = root;
  std::vector<std::string>& errors = load.errors;
  std::optional<json> course =
      ReadJson(root / "puzzles" / "course.json", "puzzles/course.json", errors);
  if (!course) return load;
  if (!course->is_object()) {
    errors.push_back("puzzles/course.json: must be a JSON object");
    return load;
  }
  load.course.title = StringField(*course, "title", "puzzles/course.json", errors);
  ReadPublication(*course, load.course, errors);
  auto chapters = course->find("chapters");
  if (chapters == course->end() || !chapters->is_array()) {
    errors.push_back("puzzles/course.json: `chapters` must be a list of chapter folder names");
    return load;
  }
  for (const json& entry : *chapters) {
    if (!entry.is_string() || !ValidId(entry.get<std::string>())) {
      errors.push_back(
          fmt::format("puzzles/course.json: chapter {} is not a folder name", entry.dump()));
      continue;
    }
    ChapterEntry chapter{.id = entry.get<std::string>()};
    if (load.course.FindChapter(chapter.id)) {
      errors.push_back(
          fmt::format("puzzles/course.json: chapter `{}` is listed twice", chapter.id));
      continue;
    }
    std::string shown = "puzzles/" + chapter.id + "/chapter.json";
    std::optional<json> data =
        ReadJson(root / "puzzles" / chapter.id / "chapter.json", shown, errors);
    int chapter_number = static_cast<int>(load.course.chapters.size()) + 1;
    if (data && !data->is_object()) {
      errors.push_back(shown + ": must be a JSON object");
      data.reset();
    }
    if (data) {
      chapter.title = StringField(*data, "title", shown, errors);
      auto puzzles = data->find("puzzles");
      if (puzzles == data->end() || !puzzles->is_array()) {
        errors.push_back(shown + ": `puzzles` must be a list");
      } else {
        for (const json& p : *puzzles) {
          std::string where = fmt::format("{}: puzzle {}", shown, chapter.puzzles.size() + 1);
          if (!p.is_object()) {
            errors.push_back(where + ": must be an object");
            continue;
          }
          PuzzleEntry puzzle{
              .chapter = chapter.id,
              .id = StringField(p, "id", where, errors),
              .title = StringField(p, "title", where, errors),
              .starter_fails_with = StringField(p, "starter_fails_with", where, errors, false),
              .chapter_number = chapter_number,
              .number = static_cast<int>(chapter.puzzles.size()) + 1};
          if (!ValidId(puzzle.id)) {
            errors.push_back(where + ": `id` must be a file name without `.py`");
            continue;
          }
          auto images = p.find("images");
          if (images != p.end()) {
            if (!images->is_array()) {
              errors.push_back(where + ": `images` must be a list of file names");
            } else {
              for (const json& image : *images) {
                if (image.is_string()) {
                  puzzle.images.push_back(image.get<std::string>());
                } else {
                  errors.push_back(where + ": `images` must be a list of file names");
                }
              }
            }
          }
          for (const PuzzleEntry& other : chapter.puzzles) {
            if (other.id == puzzle.id) {
              errors.push_back(fmt::format("{}: `{}` is listed twice", shown, puzzle.id));
            }
          }
          chapter.puzzles.push_back(std::move(puzzle));
        }
      }
    }
    if (data) ReadDiagrams(*data, shown, chapter, errors);
    load.course.chapters.push_back(std::move(chapter));
  }
  return load;
}

fs::path FindCourseRoot(const fs::path& start) {
  auto has_course = [](const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "puzzles" / "course.json", ec);
  };
  if (const char* env = std::getenv("PALLAS_PUZZLES_COURSE"); env && *env) {
    return has_course(env) ? fs::path(env) : fs::path();
  }
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  while (!ec && !dir.empty()) {
    if (has_course(dir)) return dir;
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
#ifdef PZ_SOURCE_DIR
  if (has_course(PZ_SOURCE_DIR)) return fs::path(PZ_SOURCE_DIR);
#endif
  return {};
}

}  // namespace pz::course
