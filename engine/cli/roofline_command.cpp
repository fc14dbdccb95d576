// `pallas-puzzles roofline FILE|PUZZLE`: runs a program (a file, or a puzzle's solution) on the
// emulator with its counters on and prints the roofline of every pallas_call on a TPU generation
// (course/roofline.h): FLOPs of the MXU and the VPU, HBM bytes, arithmetic intensity against the
// ridge point, what bounds the call, a lower bound on its time, VMEM against the generation's,
// and a plot (text, or SVG with --svg); --json prints the numbers instead.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cli/course_context.h"
#include "cli/terminal.h"
#include "cli/tool_options.h"
#include "course/roofline.h"

namespace pz::cli {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kRooflineUsage =
    "roofline FILE|PUZZLE [--workspace] [--tpu VERSION|all] [--cores 1|2] [--step-us US] "
    "[--svg FILE] [--json] [--no-plot] | roofline --tpus";

int RooflineUsage(const std::string& message) {
  std::fprintf(stderr, "pallas-puzzles roofline: %s\nusage: pallas-puzzles %s\n", message.c_str(),
               std::string(kRooflineUsage).c_str());
  return kExitUsage;
}

}  // namespace

std::optional<int> ParseChipOption(const std::string& command, const std::string& value,
                                   tpu::EmulatorOptions& emulator) {
  if (tpu::FindChip(value) == nullptr) {
    std::string versions;
    for (const tpu::ChipInfo& chip : tpu::ChipTable()) {
      versions += (versions.empty() ? "" : ", ") + std::string(chip.version);
    }
    std::fprintf(stderr, "pallas-puzzles %s: `--tpu` is one of %s\n", command.c_str(),
                 versions.c_str());
    return kExitUsage;
  }
  emulator.chip = value;
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

int RooflineCommand(const std::vector<std::string>& args) {
  std::string target, svg;
  bool workspace = false, json = false, plot = true, every_chip = false, quiet = false;
  tpu::EmulatorOptions emulator;
  emulator.chip = "v5e";
  course::RooflineTarget model;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (a == "--workspace") {
      workspace = true;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--no-plot") {
      plot = false;
    } else if (a == "--quiet") {  // with --svg: only the file (export-diagrams)
      quiet = true;
    } else if (a == "--tpus") {
      Out(course::ChipTableText());
      return kExitOk;
    } else if (a == "--tpu") {
      std::optional<std::string> v = value();
      if (!v) return RooflineUsage("`--tpu` needs a TPU version, e.g. v5e, or `all`");
      if (*v == "all") {
        every_chip = true;
      } else if (auto exit = ParseChipOption("roofline", *v, emulator)) {
        return *exit;
      }
    } else if (a == "--cores") {
      std::optional<std::string> v = value();
      if (v != "1" && v != "2") return RooflineUsage("`--cores` is 1 or 2");
      emulator.cores = *v == "2" ? 2 : 1;
    } else if (a == "--step-us") {
      std::optional<std::string> v = value();
      char* end = nullptr;
      double us = v ? std::strtod(v->c_str(), &end) : -1;
      if (!v || end == v->c_str() || *end != '\0' || us < 0) {
        return RooflineUsage("`--step-us` needs the cost of a grid step in microseconds");
      }
      model.step_seconds = us * 1e-6;
    } else if (a == "--svg") {
      std::optional<std::string> v = value();
      if (!v) return RooflineUsage("`--svg` needs a file name");
      svg = *v;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: pallas-puzzles %s\n", std::string(kRooflineUsage).c_str());
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      return RooflineUsage(fmt::format("unknown option `{}`", a));
    } else if (target.empty()) {
      target = a;
    } else {
      return RooflineUsage("expected one FILE or PUZZLE");
    }
  }
  if (target.empty()) return RooflineUsage("missing FILE or PUZZLE");
  model.chip = tpu::FindChip(emulator.chip);
  if (emulator.cores > 1 && !model.chip->megacore) {
    return RooflineUsage(fmt::format(
        "`--cores 2` needs a megacore chip (v4 or v5p); a TPU {} runs a call on one TensorCore",
        model.chip->version));
  }

  fs::path file;
  if (auto exit = ProgramOf("roofline", target, workspace, file)) return *exit;
  course::RunOptions options = CourseRunOptions(false);
  options.emulator.lint = false;
  options.emulator.chip = emulator.chip;
  options.emulator.cores = emulator.cores;
  options.emulator.stats = true;
  options.stats_in_diagnostics = false;
  SourceManager sources;
  course::PuzzleRun run = course::RunFile(file, options, &sources);
  if (run.status == course::RunStatus::kSyntaxError ||
      run.status == course::RunStatus::kTraceError ||
      run.status == course::RunStatus::kRuntimeError || run.status == course::RunStatus::kIoError) {
    std::fputs(run.diagnostics.c_str(), stderr);
    std::fprintf(stderr, "pallas-puzzles roofline: %s did not run to the end; no roofline\n",
                 file.string().c_str());
    return run.exit_code();
  }
  std::vector<course::CallRoofline> calls = course::Roofline(run.stats, sources, model);
  if (run.status == course::RunStatus::kFailed) {
    std::fprintf(stderr,
                 "pallas-puzzles roofline: note: a check of %s failed; these are the numbers of "
                 "a kernel that computes something else\n",
                 file.string().c_str());
  }
  if (!svg.empty()) {
    std::ofstream out(svg, std::ios::binary);
    out << course::RooflineSvg(
        calls, model,
        fmt::format("Roofline of {} on TPU {}", file.filename().string(), model.chip->version));
    if (!out) {
      std::fprintf(stderr, "pallas-puzzles roofline: cannot write %s\n", svg.c_str());
      return kExitIo;
    }
  }
  if (quiet) {
    if (!svg.empty()) Out(fmt::format("wrote {}\n", svg));
    return kExitOk;
  }
  if (every_chip) {
    Out(course::GenerationsText(run.stats, sources, model.step_seconds));
    return kExitOk;
  }
  if (json) {
    Out(course::RooflineJson(calls, model));
    return kExitOk;
  }
  Out(course::RooflineText(calls, model));
  if (plot && !calls.empty()) Out("\n" + course::RooflinePlotText(calls, model));
  if (!svg.empty()) Out(fmt::format("wrote {}\n", svg));
  return kExitOk;
}

}  // namespace pz::cli
