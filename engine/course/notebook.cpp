#include "course/notebook.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "course/puzzle_file.h"
#include "support/source.h"

namespace pz::course {
namespace {

using nlohmann::json;

// A cell's source as notebooks store it: lines, each but the last ending in "\n".
json SourceLines(std::string_view text) {
  json lines = json::array();
  std::vector<std::string_view> split = SplitLines(text);
  for (size_t i = 0; i < split.size(); ++i) {
    lines.push_back(std::string(split[i]) + (i + 1 < split.size() ? "\n" : ""));
  }
  return lines;
}

json CodeCell(const std::string& id, std::string_view text) {
  return {
      {"cell_type", "code"},        {"execution_count", nullptr}, {"id", id},
      {"metadata", json::object()}, {"outputs", json::array()},   {"source", SourceLines(text)}};
}

class Builder {
 public:
  Builder(const Course& course, NotebookExport& out) : course_(course), out_(out) {}

  // A markdown cell; image links to images/NAME become `attachment:NAME`, with the image
  // attached.
  void Markdown(const std::string& id, const std::string& text) {
    std::string rewritten;
    json attachments = json::object();
    size_t at = 0;
    while (true) {
      size_t link = text.find("](", at);
      size_t close = link == std::string::npos ? link : text.find(')', link);
      if (close == std::string::npos) break;
      std::string target = text.substr(link + 2, close - link - 2);
      size_t dir = target.rfind("images/");
      rewritten += text.substr(at, link + 2 - at);
      if (dir != std::string::npos) {
        std::string name = target.substr(dir + 7);
        std::optional<std::string> bytes = ReadFile(course_.ImagePath(name));
        if (bytes) {
          attachments[name] = {{"image/svg+xml", Base64(*bytes)}};
          target = "attachment:" + name;
        } else {
          out_.problems.push_back(fmt::format("images/{}: cannot be read", name));
        }
      }
      rewritten += target + ")";
      at = close + 1;
    }
    rewritten += text.substr(at);
    json cell = {{"cell_type", "markdown"},
                 {"id", id},
                 {"metadata", json::object()},
                 {"source", SourceLines(rewritten)}};
    if (!attachments.empty()) cell["attachments"] = attachments;
    cells_.push_back(std::move(cell));
  }

  // A markdown cell kept as written (no image attachments): links out of the notebook.
  void Link(const std::string& id, const std::string& text) {
    cells_.push_back({{"cell_type", "markdown"},
                      {"id", id},
                      {"metadata", json::object()},
                      {"source", SourceLines(text)}});
  }

  void Code(const std::string& id, std::string_view text) { cells_.push_back(CodeCell(id, text)); }

  json Finish() {
    return {{"cells", std::move(cells_)},
            {"metadata",
             {{"kernelspec",
               {{"display_name", "Python 3"}, {"language", "python"}, {"name", "python3"}}},
              {"language_info", {{"name", "python"}}}}},
            {"nbformat", 4},
            {"nbformat_minor", 5}};
  }

 private:
  const Course& course_;
  NotebookExport& out_;
  json cells_ = json::array();
};

// A Python literal of `text`: a raw triple-quoted string when that can hold it, else an escaped
// one.
std::string PythonString(const std::string& text) {
  bool raw_ok = text.find("'''") == std::string::npos && (text.empty() || text.back() != '\\');
  if (raw_ok) return "r'''" + text + "'''";
  std::string escaped;
  for (char c : text) {
    if (c == '\\' || c == '\'') escaped += '\\';
    escaped += c;
  }
  return "'''" + escaped + "'''";
}

// The first code cell: JAX (the course's release when it names one), then pallas_check.py.
std::string SetupCell(const std::string& harness, const std::string& jax_version) {
  std::string install;
  if (jax_version.empty()) {
    install =
        "# Run this cell first. On Colab it installs JAX; everywhere it writes pallas_check.py,\n"
        "# the small `check` helper every puzzle imports (`from pallas_check import check`).\n"
        "import importlib\n"
        "import subprocess\n"
        "import sys\n"
        "\n"
        "if \"google.colab\" in sys.modules:\n"
        "    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"-q\", \"jax\"], "
        "check=True)\n";
  } else {
    // The installed release is read from the package metadata, not by importing jax, so that
    // pip can still replace it in this kernel.
    install = fmt::format(
        "# Run this cell first. It installs JAX {0}, the release this course is verified against\n"
        "# (on Colab it replaces the preinstalled JAX), and writes pallas_check.py, the small\n"
        "# `check` helper every puzzle imports (`from pallas_check import check`).\n"
        "import importlib\n"
        "import importlib.metadata\n"
        "import subprocess\n"
        "import sys\n"
        "\n"
        "JAX_VERSION = \"{0}\"\n"
        "try:\n"
        "    installed_jax = importlib.metadata.version(\"jax\")\n"
        "except importlib.metadata.PackageNotFoundError:\n"
        "    installed_jax = None\n"
        "if installed_jax != JAX_VERSION and (\"google.colab\" in sys.modules or installed_jax is "
        "None):\n"
        "    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"-q\", "
        "f\"jax=={{JAX_VERSION}}\"],\n"
        "                   check=True)\n"
        "    importlib.invalidate_caches()\n"
        "    if \"jax\" in sys.modules:\n"
        "        print(f\"installed JAX {{JAX_VERSION}}; restart the runtime (Runtime > Restart "
        "session) \"\n"
        "              \"and run this cell again\")\n"
        "elif installed_jax != JAX_VERSION:\n"
        "    print(f\"note: this course is verified against JAX {{JAX_VERSION}} and this kernel "
        "has \"\n"
        "          f\"{{installed_jax}}; `pip install jax=={{JAX_VERSION}}` installs it\")\n",
        jax_version);
  }
  return install +
         "\n"
         "PALLAS_CHECK_SOURCE = " +
         PythonString(harness) +
         "\n"
         "with open(\"pallas_check.py\", \"w\") as f:\n"
         "    f.write(PALLAS_CHECK_SOURCE)\n"
         "importlib.invalidate_caches()\n"
         "sys.modules.pop(\"pallas_check\", None)";
}

std::string HintsMarkdown(const std::vector<Hint>& hints) {
  std::string text;
  for (const Hint& hint : hints) {
    if (!text.empty()) text += "\n\n";
    text +=
        fmt::format("<details><summary>{}</summary>\n\n{}\n\n</details>", hint.title, hint.body);
  }
  return text;
}

}  // namespace

std::string Base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 |
                 uint8_t(bytes[i + 2]);
    for (int s : {18, 12, 6, 0}) out += kDigits[(v >> s) & 63];
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += rest == 2 ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string ColabUrl(const Course& course, const std::string& file_name, bool solutions) {
  if (course.repository.empty()) return "";
  return fmt::format("https://colab.research.google.com/github/{}/blob/{}/notebooks/{}{}",
                     course.repository, course.branch, solutions ? "solutions/" : "", file_name);
}

NotebookExport ExportNotebook(const Course& course, const ChapterEntry& chapter,
                              const NotebookOptions& options) {
  using Code = NotebookOptions::Code;
  NotebookExport out{.file_name = chapter.id + ".ipynb"};
  Builder nb(course, out);
  if (options.code != Code::kWorkspace) {
    std::string url = ColabUrl(course, out.file_name, options.code == Code::kSolutions);
    if (!url.empty()) {
      nb.Link("colab",
              "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](" +
                  url + ")");
    }
  }
  if (std::optional<std::string> intro = ReadFile(course.IntroPath(chapter))) {
    nb.Markdown("intro", *intro);
  } else {
    out.problems.push_back(fmt::format("puzzles/{}/intro.md: cannot be read", chapter.id));
  }
  std::optional<std::string> harness = ReadFile(course.HarnessPath());
  if (!harness) out.problems.push_back("puzzles/pallas_check.py: cannot be read");
  nb.Code("setup", SetupCell(harness.value_or(""), course.jax_version));
  for (const PuzzleEntry& p : chapter.puzzles) {
    std::string prefix = fmt::format("p{:02}", p.number);
    std::optional<std::string> text;
    if (options.code == Code::kWorkspace && options.workspace != nullptr) {
      text = ReadFile(options.workspace->PuzzlePath(p));
      if (!text) {
        out.notes.push_back(fmt::format("{} is not in the workspace: exported its starter",
                                        options.workspace->PuzzlePath(p).string()));
      }
    }
    bool solutions = options.code == Code::kSolutions;
    if (!text) text = ReadFile(solutions ? course.SolutionPath(p) : course.StarterPath(p));
    if (!text) {
      out.problems.push_back(fmt::format("{}/{}/{}.py: cannot be read",
                                         solutions ? "solutions" : "puzzles", p.chapter, p.id));
      continue;
    }
    int index = 0;
    for (const Cell& cell : SplitCells(*text)) {
      std::string id = fmt::format("{}-c{:02}", prefix, index++);
      if (cell.kind == Cell::Kind::kMarkdown) {
        nb.Markdown(id, cell.text);
      } else {
        nb.Code(id, cell.text);
      }
    }
    if (std::optional<std::string> hints = ReadFile(course.HintsPath(p))) {
      std::vector<Hint> parsed = ParseHints(*hints);
      if (!parsed.empty()) nb.Markdown(prefix + "-hints", HintsMarkdown(parsed));
    }
  }
  if (std::optional<std::string> summary = ReadFile(course.SummaryPath(chapter))) {
    nb.Markdown("summary", *summary);
  }
  out.text = nb.Finish().dump(1) + "\n";
  return out;
}

}  // namespace pz::course
