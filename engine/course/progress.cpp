#include "course/progress.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "course/manifest.h"
#include "support/source.h"

namespace pz::course {
namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kProgressVersion = 1;

const PuzzleProgress* Progress::Find(const std::string& name) const {
  auto it = puzzles.find(name);
  return it == puzzles.end() ? nullptr : &it->second;
}

int Progress::SolvedCount() const {
  int n = 0;
  for (const auto& [name, p] : puzzles) n += p.solved;
  return n;
}

std::string NowUtc() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

namespace {

Progress FromJson(const json& j) {
  if (!j.is_object()) throw std::runtime_error("not a JSON object");
  if (j.value("version", 0) != kProgressVersion) {
    throw std::runtime_error("unknown version");
  }
  Progress p;
  p.current = j.value("current", std::string());
  for (const auto& [name, entry] : j.at("puzzles").items()) {
    PuzzleProgress& q = p.puzzles[name];
    q.solved = entry.value("solved", false);
    q.hints_shown = std::max(0, entry.value("hints_shown", 0));
    q.solution_shown = entry.value("solution_shown", false);
    q.checks = std::max(0, entry.value("checks", 0));
    q.solved_at = entry.value("solved_at", std::string());
  }
  return p;
}

json ToJson(const Progress& p) {
  json puzzles = json::object();
  for (const auto& [name, q] : p.puzzles) {
    json entry = {{"solved", q.solved},
                  {"hints_shown", q.hints_shown},
                  {"solution_shown", q.solution_shown},
                  {"checks", q.checks}};
    if (!q.solved_at.empty()) entry["solved_at"] = q.solved_at;
    puzzles[name] = entry;
  }
  return {{"version", kProgressVersion}, {"current", p.current}, {"puzzles", puzzles}};
}

}  // namespace

ProgressLoad LoadProgress(const fs::path& file) {
  ProgressLoad load;
  std::error_code ec;
  if (!fs::exists(file, ec)) return load;
  std::optional<std::string> text = ReadFile(file);
  std::string problem;
  if (!text) {
    problem = "cannot be read";
  } else {
    try {
      load.progress = FromJson(json::parse(*text));
      return load;
    } catch (const std::exception& e) {
      problem = fmt::format("is corrupt ({})", e.what());
    }
  }
  fs::path backup = file;
  backup += ".corrupt-" + NowUtc();
  fs::copy_file(file, backup, fs::copy_options::overwrite_existing, ec);
  load.progress = Progress{};
  load.warning = ec ? fmt::format("{} {}; starting with fresh progress", file.string(), problem)
                    : fmt::format("{} {}; kept it as {} and started with fresh progress",
                                  file.string(), problem, backup.string());
  return load;
}

std::optional<std::string> SaveProgress(const fs::path& file, const Progress& progress) {
  fs::path temporary = file;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return fmt::format("cannot write {}", temporary.string());
    out << ToJson(progress).dump(2) << "\n";
    out.flush();
    if (!out) return fmt::format("cannot write {}", temporary.string());
  }
  std::error_code ec;
  fs::rename(temporary, file, ec);
  if (ec) {
    fs::remove(temporary, ec);
    return fmt::format("cannot replace {}", file.string());
  }
  return std::nullopt;
}

}  // namespace pz::course
