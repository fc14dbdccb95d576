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

int RooflineCommand(const std::vector<std::string>& args) {
  std::string target, svg;
  bool json = false, plot = true, quiet = false;
  ModelOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    std::string error;
    if (ParseModelOption(args, i, /*allow_all=*/true, options, error)) {
      if (!error.empty()) return RooflineUsage(error);
    } else if (a == "--json") {
      json = true;
    } else if (a == "--no-plot") {
      plot = false;
    } else if (a == "--quiet") {  // with --svg: only the file (export-diagrams)
      quiet = true;
    } else if (a == "--tpus") {
      Out(course::ChipTableText());
      return kExitOk;
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
  if (std::optional<std::string> error = CheckModelOptions(options)) return RooflineUsage(*error);
  course::RooflineTarget model = options.Target();

  fs::path file;
  if (auto exit = ProgramOf("roofline", target, options.workspace, file)) return *exit;
  course::RunOptions run_options = CourseRunOptions(false);
  run_options.emulator.lint = false;
  options.Apply(run_options.emulator);
  run_options.emulator.stats = true;
  run_options.stats_in_diagnostics = false;
  course::PuzzleRun run = course::RunFile(file, run_options);
  const SourceManager& sources = *run.sources;
  if (run.status == course::RunStatus::kSyntaxError ||
      run.status == course::RunStatus::kTraceError ||
      run.status == course::RunStatus::kRuntimeError || run.status == course::RunStatus::kIoError) {
    std::fputs(run.Diagnostics().c_str(), stderr);
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
  if (options.every_chip) {
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
