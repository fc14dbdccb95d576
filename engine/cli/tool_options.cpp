// The options `roofline` and `tune` share (tool_options.h).
#include "cli/tool_options.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/course_context.h"
#include "tpu/tpu_info.h"

namespace pz::cli {
namespace fs = std::filesystem;

course::RooflineTarget ModelOptions::Target() const {
  return {.chip = tpu::FindChip(chip), .step_seconds = step_seconds};
}

void ModelOptions::Apply(tpu::EmulatorOptions& emulator) const {
  emulator.chip = chip;
  emulator.cores = cores;
}

bool ParseModelOption(const std::vector<std::string>& args, size_t& i, bool allow_all,
                      ModelOptions& out, std::string& error) {
  const std::string& a = args[i];
  bool has_value = i + 1 < args.size();
  if (a == "--workspace") {
    out.workspace = true;
  } else if (a == "--tpu") {
    if (!has_value) {
      error = allow_all ? "`--tpu` needs a TPU version, e.g. v5e, or `all`"
                        : "`--tpu` needs a TPU version, e.g. v5e";
      return true;
    }
    const std::string& v = args[++i];
    if (allow_all && v == "all") {
      out.every_chip = true;
    } else if (tpu::FindChip(v) != nullptr) {
      out.chip = v;
    } else {
      std::string versions;
      for (const tpu::ChipInfo& chip : tpu::ChipTable()) {
        versions += (versions.empty() ? "" : ", ") + std::string(chip.version);
      }
      error = fmt::format("`--tpu` is one of {}{}", versions, allow_all ? ", or `all`" : "");
    }
  } else if (a == "--cores") {
    std::string v = has_value ? args[++i] : "";
    if (v == "1" || v == "2") {
      out.cores = v == "2" ? 2 : 1;
    } else {
      error = "`--cores` is 1 or 2";
    }
  } else if (a == "--step-us") {
    std::string v = has_value ? args[++i] : "";
    char* end = nullptr;
    double us = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || us < 0) {
      error = "`--step-us` needs the cost of a grid step in microseconds";
    } else {
      out.step_seconds = us * 1e-6;
    }
  } else {
    return false;
  }
  return true;
}

std::optional<std::string> CheckModelOptions(const ModelOptions& options) {
  const tpu::ChipInfo* chip = tpu::FindChip(options.chip);
  if (options.cores > 1 && !chip->megacore) {
    return fmt::format(
        "`--cores 2` needs a megacore chip (v4 or v5p); a TPU {} runs a call on one TensorCore",
        chip->version);
  }
  return std::nullopt;
}

std::optional<int> ProgramOf(const std::string& command, const std::string& target, bool workspace,
                             fs::path& file) {
  std::error_code ec;
  if (!workspace && fs::is_regular_file(target, ec)) {
    file = target;
    return std::nullopt;
  }
  if (target.size() > 3 && target.substr(target.size() - 3) == ".py") {
    std::fprintf(stderr, "pallas-puzzles %s: cannot read %s\n", command.c_str(), target.c_str());
    return kExitIo;
  }
  CourseContext ctx;
  if (auto exit = ctx.Load(workspace)) return *exit;
  const course::PuzzleEntry* p = ctx.Resolve(target);
  if (p == nullptr) return kExitUsage;
  file = workspace ? ctx.FileOf(*p) : ctx.course.SolutionPath(*p);
  return std::nullopt;
}

}  // namespace pz::cli
