#include "course/puzzle_file.h"

#include <fmt/format.h>

#include <algorithm>

namespace pz::course {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsBegin(std::string_view line) { return Trim(line) == "# YOUR CODE BEGIN"; }
bool IsEnd(std::string_view line) { return Trim(line) == "# YOUR CODE END"; }

// Drops blank lines at both ends, keeping the first kept line's indentation.
std::string TrimBlankLines(const std::string& text) {
  size_t end = text.find_last_not_of("\n \t\r");
  if (end == std::string::npos) return "";
  size_t start = 0;
  while (true) {
    size_t newline = text.find('\n', start);
    if (newline == std::string::npos || newline > end) break;
    if (!Trim(std::string_view(text).substr(start, newline - start)).empty()) break;
    start = newline + 1;
  }
  return text.substr(start, end + 1 - start);
}

}  // namespace

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<Cell> SplitCells(std::string_view source) {
  std::vector<Cell> cells;
  Cell current{.kind = Cell::Kind::kCode, .first_line = 1};
  auto flush = [&] {
    if (Trim(current.text).find_first_not_of('\n') != std::string_view::npos) {
      current.text = TrimBlankLines(current.text);
      cells.push_back(current);
    }
  };
  std::vector<std::string_view> lines = SplitLines(source);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.rfind("# %%", 0) == 0) {
      flush();
      bool markdown = line.find("[markdown]") != std::string_view::npos;
      current = Cell{.kind = markdown ? Cell::Kind::kMarkdown : Cell::Kind::kCode,
                     .first_line = static_cast<int>(i) + 2};
      continue;
    }
    if (current.kind == Cell::Kind::kMarkdown) {
      std::string_view text = line;
      if (text.rfind("# ", 0) == 0) {
        text.remove_prefix(2);
      } else if (text == "#") {
        text = "";
      }
      current.text += std::string(text) + "\n";
    } else {
      current.text += std::string(line) + "\n";
    }
  }
  flush();
  return cells;
}

bool InRegion(const std::vector<Region>& regions, int line) {
  return std::any_of(regions.begin(), regions.end(),
                     [line](const Region& r) { return line > r.begin_line && line < r.end_line; });
}

RegionScan FindRegions(std::string_view source) {
  RegionScan scan;
  std::vector<std::string_view> lines = SplitLines(source);
  int open = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    int line = static_cast<int>(i) + 1;
    if (IsBegin(lines[i])) {
      if (open) {
        scan.errors.push_back(fmt::format(
            "line {}: `# YOUR CODE BEGIN` inside the region opened at line {}", line, open));
      }
      open = line;
    } else if (IsEnd(lines[i])) {
      if (!open) {
        scan.errors.push_back(fmt::format("line {}: `# YOUR CODE END` without a BEGIN", line));
      } else {
        scan.regions.push_back({.begin_line = open, .end_line = line});
        open = 0;
      }
    }
  }
  if (open) {
    scan.errors.push_back(fmt::format("line {}: `# YOUR CODE BEGIN` is never closed", open));
  }
  return scan;
}

std::vector<EditableCell> EditableCells(std::string_view source) {
  std::vector<std::string_view> lines = SplitLines(source);
  std::vector<Region> regions = FindRegions(source).regions;
  std::vector<EditableCell> cells;
  auto blank = [&](int line) { return Trim(lines[static_cast<size_t>(line - 1)]).empty(); };
  // One cell: lines [first, last] (1-based); before the first marker, a code cell.
  auto add = [&](int first, int last, bool code) {
    while (first <= last && blank(first)) ++first;
    while (last >= first && blank(last)) --last;
    if (!code || first > last) return;
    EditableCell cell{.first_line = first, .last_line = last};
    for (const Region& r : regions) {
      if (r.begin_line >= first && r.begin_line <= last) cell.regions.push_back(r);
    }
    if (!cell.regions.empty()) cells.push_back(std::move(cell));
  };
  int first = 1;
  bool code = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("# %%", 0) != 0) continue;
    int marker = static_cast<int>(i) + 1;
    add(first, marker - 1, code);
    first = marker + 1;
    code = lines[i].find("[markdown]") == std::string_view::npos;
  }
  add(first, static_cast<int>(lines.size()), code);
  return cells;
}

std::string RegionText(std::string_view source, const Region& region) {
  std::vector<std::string_view> lines = SplitLines(source);
  std::string text;
  for (int i = region.begin_line; i < region.end_line - 1 && i < static_cast<int>(lines.size());
       ++i) {
    text += std::string(lines[static_cast<size_t>(i)]) + "\n";
  }
  return text;
}

std::optional<std::string> CompareOutsideRegions(std::string_view starter,
                                                 std::string_view solution) {
  RegionScan a = FindRegions(starter), b = FindRegions(solution);
  if (!a.errors.empty()) return "starter: " + a.errors[0];
  if (!b.errors.empty()) return "solution: " + b.errors[0];
  if (a.regions.size() != b.regions.size()) {
    return fmt::format("the starter has {} editable regions, the solution {}", a.regions.size(),
                       b.regions.size());
  }
  // The lines outside regions, each with its line number; a region collapses to its markers.
  auto outside = [](std::string_view source, const std::vector<Region>& regions) {
    std::vector<std::pair<int, std::string_view>> kept;
    std::vector<std::string_view> lines = SplitLines(source);
    size_t r = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      int line = static_cast<int>(i) + 1;
      while (r < regions.size() && line > regions[r].end_line) ++r;
      bool inside =
          r < regions.size() && line > regions[r].begin_line && line < regions[r].end_line;
      if (!inside) kept.emplace_back(line, lines[i]);
    }
    return kept;
  };
  auto x = outside(starter, a.regions), y = outside(solution, b.regions);
  size_t n = std::min(x.size(), y.size());
  for (size_t i = 0; i < n; ++i) {
    if (Trim(x[i].second) != Trim(y[i].second) ||
        x[i].second.substr(0, x[i].second.find_first_not_of(' ')) !=
            y[i].second.substr(0, y[i].second.find_first_not_of(' '))) {
      return fmt::format("starter line {} `{}` differs from solution line {} `{}`", x[i].first,
                         Trim(x[i].second), y[i].first, Trim(y[i].second));
    }
  }
  if (x.size() != y.size()) {
    return fmt::format("outside the editable regions the starter has {} lines, the solution {}",
                       x.size(), y.size());
  }
  return std::nullopt;
}

std::vector<std::string> ImageReferences(std::string_view source) {
  std::vector<std::string> images;
  for (const Cell& cell : SplitCells(source)) {
    if (cell.kind != Cell::Kind::kMarkdown) continue;
    std::string_view text = cell.text;
    size_t at = 0;
    while ((at = text.find("](", at)) != std::string_view::npos) {
      size_t close = text.find(')', at);
      if (close == std::string_view::npos) break;
      std::string_view target = text.substr(at + 2, close - at - 2);
      size_t dir = target.rfind("images/");
      if (dir != std::string_view::npos) {
        std::string name(target.substr(dir + 7));
        if (std::find(images.begin(), images.end(), name) == images.end()) {
          images.push_back(name);
        }
      }
      at = close;
    }
  }
  return images;
}

std::vector<Hint> ParseHints(std::string_view markdown) {
  std::vector<Hint> hints;
  bool in_code = false;
  for (std::string_view line : SplitLines(markdown)) {
    if (Trim(line).rfind("```", 0) == 0) in_code = !in_code;
    if (!in_code && line.rfind("## ", 0) == 0) {
      hints.push_back({.title = std::string(Trim(line.substr(3)))});
      continue;
    }
    if (!hints.empty()) hints.back().body += std::string(line) + "\n";
  }
  for (Hint& hint : hints) hint.body = TrimBlankLines(hint.body);
  return hints;
}

}  // namespace pz::course
