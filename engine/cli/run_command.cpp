// `pallas-puzzles run FILE.py`: parse and execute a script, print its output as Python would,
// and render diagnostics (syntax errors: exit 65; runtime errors and limits: exit 70).
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/terminal.h"
#include "course/runner.h"
#include "cuda/cuda_backend.h"
#include "eval/interpreter.h"
#include "lang/ast_printer.h"
#include "lang/parser.h"
#include "tpu/tpu_info.h"

namespace pz::cli {
namespace {

struct RunOptions {
  std::string file;
  bool dump_ast = false;
  bool cuda = false;       // --backend cuda
  bool emit_cuda = false;  // --emit-cuda
  bool strict = false;     // --strict
  eval::InterpreterOptions interpreter;
  tpu::EmulatorOptions emulator;
};

int UsageError(const std::string& message) {
  std::fprintf(stderr, "pallas-puzzles run: %s\nusage: pallas-puzzles %s\n", message.c_str(),
               std::string(Commands()[0].usage).c_str());
  return kExitUsage;
}

// Parses the options of `run`; returns an exit code on error.
std::optional<int> ParseRunOptions(const std::vector<std::string>& args, RunOptions& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const char* name) -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (arg == "--dump-ast") {
      options.dump_ast = true;
    } else if (arg == "--dump-ir") {
      options.emulator.dump_ir = true;
    } else if (arg == "--stats") {
      options.emulator.stats = true;
    } else if (arg == "--timeline") {  // implies --stats
      options.emulator.timeline = true;
      options.emulator.stats = true;
    } else if (arg == "--dma" || arg.rfind("--dma=", 0) == 0) {
      std::optional<std::string> text =
          arg == "--dma" ? value("--dma") : std::optional(arg.substr(6));
      if (text == "on_wait") {
        options.emulator.dma_mode = tpu::DmaMode::kOnWait;
      } else if (text == "eager") {
        options.emulator.dma_mode = tpu::DmaMode::kEager;
      } else {
        return UsageError("`--dma` is `on_wait` (the default) or `eager`");
      }
    } else if (arg == "--cores" || arg.rfind("--cores=", 0) == 0) {
      std::optional<std::string> text =
          arg == "--cores" ? value("--cores") : std::optional(arg.substr(8));
      if (text == "1") {
        options.emulator.cores = 1;
      } else if (text == "2") {
        options.emulator.cores = 2;
      } else {
        return UsageError(
            "`--cores` is 1 (the default) or 2 (a megacore chip: TPU v4 or v5p; the leading "
            "\"parallel\" grid axes are split across the two TensorCores)");
      }
    } else if (arg == "--tpu" || arg.rfind("--tpu=", 0) == 0) {
      std::optional<std::string> text =
          arg == "--tpu" ? value("--tpu") : std::optional(arg.substr(6));
      if (!text || tpu::FindChip(*text) == nullptr) {
        std::string versions;
        for (const tpu::ChipInfo& chip : tpu::ChipTable()) {
          versions += (versions.empty() ? "" : ", ") + std::string(chip.version);
        }
        return UsageError("`--tpu` names the emulated chip for pltpu.get_tpu_info(): one of " +
                          versions);
      }
      options.emulator.chip = *text;
    } else if (arg == "--backend" || arg.rfind("--backend=", 0) == 0) {
      std::optional<std::string> text =
          arg == "--backend" ? value("--backend") : std::optional(arg.substr(10));
      if (text == "tpu") {
        options.cuda = false;
      } else if (text == "cuda") {
        options.cuda = true;
      } else {
        return UsageError(
            "`--backend` is `tpu` (the emulated TPU, the default) or `cuda` (an NVIDIA GPU)");
      }
    } else if (arg == "--emit-cuda") {
      options.emit_cuda = true;
    } else if (arg == "--strict") {
      options.strict = true;
    } else if (arg == "--lint") {
      options.emulator.lint = true;
    } else if (arg == "--semantics" || arg.rfind("--semantics=", 0) == 0) {
      std::optional<std::string> text =
          arg == "--semantics" ? value("--semantics") : std::optional(arg.substr(12));
      if (text == "tpu") {
        options.emulator.semantics = tpu::Semantics::kTpu;
      } else if (text == "interpret") {
        options.emulator.semantics = tpu::Semantics::kInterpret;
      } else {
        return UsageError("`--semantics` is `tpu` (the default) or `interpret`");
      }
    } else if (arg == "--max-steps") {
      std::optional<std::string> text = value("--max-steps");
      int64_t steps = 0;
      if (!text ||
          std::from_chars(text->data(), text->data() + text->size(), steps).ec != std::errc{} ||
          steps < 0) {
        return UsageError("`--max-steps` needs a non-negative integer (0 = unlimited)");
      }
      options.interpreter.max_steps = steps;
    } else if (arg == "--timeout") {
      std::optional<std::string> text = value("--timeout");
      char* end = nullptr;
      double seconds = text ? std::strtod(text->c_str(), &end) : -1;
      if (!text || end == text->c_str() || *end != '\0' || seconds < 0) {
        return UsageError("`--timeout` needs a non-negative number of seconds (0 = unlimited)");
      }
      options.interpreter.timeout_seconds = seconds;
    } else if (arg == "--max-array-gib") {
      std::optional<std::string> text = value("--max-array-gib");
      char* end = nullptr;
      double gib = text ? std::strtod(text->c_str(), &end) : -1;
      if (!text || end == text->c_str() || *end != '\0' || gib <= 0 || gib > 1024) {
        return UsageError("`--max-array-gib` needs a positive number of GiB");
      }
      options.interpreter.max_array_bytes = static_cast<int64_t>(gib * (int64_t{1} << 30));
    } else if (arg == "--help" || arg == "-h") {
      std::printf("usage: pallas-puzzles %s\n", std::string(Commands()[0].usage).c_str());
      return kExitOk;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return UsageError(fmt::format("unknown option `{}`", arg));
    } else if (options.file.empty()) {
      options.file = arg;
    } else {
      return UsageError("expected exactly one FILE.py");
    }
  }
  if (options.file.empty()) return UsageError("missing FILE.py");
  if (options.emulator.cores > 1 && !options.emulator.chip.empty() &&
      !tpu::FindChip(options.emulator.chip)->megacore) {
    return UsageError("`--cores 2` needs a megacore chip (`--tpu v4` or `--tpu v5p`); TPU " +
                      options.emulator.chip + " runs one TensorCore per device");
  }
  if (options.cuda && options.emulator.semantics == tpu::Semantics::kInterpret) {
    return UsageError(
        "`--backend cuda` runs `tpu` semantics; `--semantics interpret` is the emulator's");
  }
  if (options.cuda && options.emulator.cores != 1) {
    return UsageError(
        "`--cores` is the emulated TPU's; `--backend cuda` spreads the grid over the GPU itself");
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> UseCudaBackend(tpu::EmulatorOptions& emulator) {
  // PZ_CUDA_DEVICE=host runs the generated CUDA on CPU threads (how the tests check it);
  // PZ_CUDA_DEVICE=host-sm80 runs there the forms an sm_80 GPU runs, with its thread counts.
  const char* target = std::getenv("PZ_CUDA_DEVICE");
  std::string_view name = target != nullptr ? target : "";
  bool host = name == "host" || name == "host-sm80";
  try {
    std::unique_ptr<cuda::Device> device =
        host ? cuda::OpenHostDevice(4, name == "host-sm80") : cuda::OpenGpuDevice();
    emulator.backend = std::make_shared<cuda::CudaBackend>(
        cuda::CudaOptions{.timing = emulator.stats, .warp_tile = cuda::WarpTileFromEnvironment()},
        std::move(device));
  } catch (const cuda::DeviceError& e) {
    return std::string(e.what());
  } catch (const std::invalid_argument& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

// `--dump-ast`: parses and prints the syntax tree without running anything.
int DumpAst(const std::string& path) {
  SourceManager sources;
  std::optional<FileId> file = sources.Load(path);
  if (!file) {
    std::fprintf(stderr, "pallas-puzzles run: cannot read `%s`\n", path.c_str());
    return kExitIo;
  }
  DiagnosticSink sink;
  lang::Module module = lang::ParseModule(sources.Get(*file), *file, sink);
  for (const Diagnostic& diagnostic : sink.diagnostics()) {
    std::fputs(Render(diagnostic, sources, {.color = UseColor(stderr)}).c_str(), stderr);
  }
  if (sink.HasErrors()) return kExitSyntax;
  std::fputs(lang::PrintAst(module, sources).c_str(), stdout);
  return kExitOk;
}

int RunCommand(const std::vector<std::string>& args) {
  RunOptions options;
  if (std::optional<int> exit = ParseRunOptions(args, options)) return *exit;
  if (options.dump_ast) return DumpAst(options.file);
  cuda::WarpTile warps;
  if (options.cuda || options.emit_cuda) {
    try {
      warps = cuda::WarpTileFromEnvironment();
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "pallas-puzzles run: %s\n", e.what());
      return kExitUsage;
    }
  }
  if (options.cuda) {
    std::optional<std::string> error = UseCudaBackend(options.emulator);
    if (error) {
      std::fprintf(stderr, "pallas-puzzles run: %s\n", error->c_str());
      return kExitRuntime;
    }
  }
  // --emit-cuda: the kernels of every call, printed as one translation unit on stdout (the
  // program's own output goes to stderr then). With --backend cuda, planned for the device the
  // calls run on (its shared memory), so the unit is the one it compiled.
  std::vector<cuda::EmittedKernel> kernels;
  if (options.emit_cuda) {
    const auto* device = dynamic_cast<const cuda::CudaBackend*>(options.emulator.backend.get());
    int64_t budget = cuda::SharedBudget(device ? &device->device_info() : nullptr);
    // The warnings the CUDA backend would give where the calls run on the emulator (which does
    // not see those hazards); with --backend cuda the calls give them themselves.
    bool on_cuda = options.cuda;
    options.emulator.on_trace =
        [&kernels, budget, warps, on_cuda](
            const kernel::KernelProgram& program, const kernel::GridMapping& mapping,
            const kernel::CallOperands& operands, const kernel::RunOptions& run) {
          cuda::PlannedCall plan = cuda::PlanCall(program, mapping, operands, run,
                                                  static_cast<int>(kernels.size()), budget, warps);
          kernels.push_back(std::move(plan.kernel));
          if (on_cuda) return std::vector<kernel::CallWarning>{};
          for (kernel::CallWarning& w : plan.warnings) {
            w.notes.push_back(
                "the emulator ran this call; `--backend cuda` on a machine with an "
                "NVIDIA GPU runs it the way this warning describes");
          }
          return std::move(plan.warnings);
        };
  }
  FILE* program_out = options.emit_cuda ? stderr : stdout;
  course::PuzzleRun run =
      course::RunFile(options.file, {.emulator = options.emulator,
                                     .interpreter = options.interpreter,
                                     .output =
                                         [program_out](std::string_view text) {
                                           std::fwrite(text.data(), 1, text.size(), program_out);
                                         },
                                     .strict = options.strict});
  if (options.emit_cuda) {
    std::vector<const cuda::EmittedKernel*> list;
    for (const cuda::EmittedKernel& k : kernels) list.push_back(&k);
    std::string unit = cuda::AssembleUnit(list);
    std::fwrite(unit.data(), 1, unit.size(), stdout);
  }
  std::fflush(stdout);
  if (run.status == course::RunStatus::kIoError) {
    std::fprintf(stderr, "pallas-puzzles run: cannot read `%s`\n", options.file.c_str());
    return kExitIo;
  }
  std::fputs(run.Diagnostics(UseColor(stderr)).c_str(), stderr);
  // A program without checks that ran to the end succeeded.
  return run.status == course::RunStatus::kNoChecks ? kExitOk : run.exit_code();
}

}  // namespace pz::cli
