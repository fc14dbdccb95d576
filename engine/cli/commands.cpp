// Command table and dispatch for `pallas-puzzles`.
#include "cli/commands.h"

#include <fmt/format.h>

#include <cstdio>

namespace pz::cli {
namespace {

int HelpCommand(const std::vector<std::string>&) {
  std::fputs(HelpText().c_str(), stdout);
  return kExitOk;
}

int VersionCommand(const std::vector<std::string>&) {
  std::puts("pallas-puzzles 0.1.0");
  return kExitOk;
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"run",
       "run [--backend tpu|cuda] [--emit-cuda] [--semantics tpu|interpret] [--dma on_wait|eager] "
       "[--cores 1|2] [--tpu VERSION] [--dump-ir] [--stats] "
       "[--timeline] [--lint] [--strict] [--max-steps N] "
       "[--timeout S] [--max-array-gib G] [--dump-ast] FILE.py",
       "run a Python file with the engine, printing as Python would", RunCommand},
      {"init", "init [DIR]", "create a workspace (default ./workspace) with the puzzles",
       InitCommand},
      {"list", "list [--json]", "chapters and puzzles with your progress", ListCommand},
      {"show", "show [--json] [PUZZLE]", "a puzzle's theory and your editable code", ShowCommand},
      {"check", "check [--json] [--backend tpu|cuda] [--cores 1|2] [PUZZLE]",
       "run a puzzle; explain what is wrong (exit 1 if so)", CheckCommand},
      {"watch", "watch [PUZZLE]",
       "check on every save; on a pass, move on to the next unsolved puzzle (`s` stays)",
       WatchCommand},
      {"hint", "hint [--json] [PUZZLE]", "the next hint level of a puzzle", HintCommand},
      {"hints", "hints [PUZZLE]", "the hints shown so far", HintsCommand},
      {"solution", "solution [--yes] [PUZZLE]",
       "the solution (after passing; --yes after the last hint)", SolutionCommand},
      {"progress", "progress [--json]", "solved puzzles per chapter", ProgressCommand},
      {"reset", "reset [--restore] [PUZZLE]",
       "restore the starter (yours is backed up; unmarks solved); --restore: your latest backup",
       ResetCommand},
      {"verify", "verify [--json] [--only PREFIX] [--jobs N] [COURSE_DIR]",
       "the course's CI gate: every solution passes, every starter fails helpfully, ...",
       VerifyCommand},
      {"export-notebooks", "export-notebooks [--solutions | --workspace] DIR",
       "one Jupyter notebook per chapter (starters, solutions, or your workspace's files), for "
       "Colab and real JAX",
       ExportNotebooksCommand},
      {"diagram",
       "diagram [PUZZLE] [--file F | --workspace] [--call N] [--step I,J] [--all-steps | "
       "--walk] [--svg FILE] [--color=auto|always|never]",
       "draw a pallas_call of the solution: its grid and the blocks in VMEM at each step",
       DiagramCommand},
      {"export-diagrams", "export-diagrams [DIR]",
       "regenerate the diagrams the chapters declare (default: the course's images/)",
       ExportDiagramsCommand},
      {"roofline",
       "roofline FILE|PUZZLE [--workspace] [--tpu VERSION|all] [--cores 1|2] [--step-us US] "
       "[--svg FILE] [--json] [--no-plot] | roofline --tpus",
       "each pallas_call's FLOPs, HBM bytes, intensity and time bound on a TPU generation",
       RooflineCommand},
      {"tune",
       "tune FILE|PUZZLE --param NAME=V1,V2,... [--param ...] [--shapes 'NAME=V,...;...'] "
       "[--tpu VERSION] [--cores 1|2] [--step-us US] [--out PREFIX] [--workspace]",
       "run a program for every combination of block sizes, rank them by the roofline, write "
       "a tuned table",
       TuneCommand},
      {"help", "help", "show this help", HelpCommand},
      {"version", "version", "print the version", VersionCommand},
  };
  return kCommands;
}

std::string HelpText() {
  std::string text =
      "pallas-puzzles: learn to write TPU kernels with JAX Pallas, on any laptop\n\n"
      "usage: pallas-puzzles              the interactive course (in a workspace)\n"
      "       pallas-puzzles COMMAND [ARGS]\n\ncommands:\n";
  // Usages wider than the column put their summary on the next line, in the column.
  constexpr size_t kColumn = 46;
  for (const Command& command : Commands()) {
    if (command.usage.size() <= kColumn) {
      text += fmt::format("  {:<{}} {}\n", command.usage, kColumn, command.summary);
    } else {
      text += fmt::format("  {}\n  {:<{}} {}\n", command.usage, "", kColumn, command.summary);
    }
  }
  text +=
      "\nexit codes: 0 ok, 1 check failed, 64 usage error, 65 syntax error, 70 runtime error,\n"
      "            74 file not readable\n"
      "A PUZZLE is `1.3`, `01_basics/03_reversed_blocks` or `reversed_blocks`; without one, the\n"
      "current puzzle.\n";
  return text;
}

int Dispatch(const std::vector<std::string>& args) {
  if (args.empty()) return ReplMain();
  std::string_view name = args[0];
  if (name == "--help" || name == "-h") name = "help";
  if (name == "--version") name = "version";
  for (const Command& command : Commands()) {
    if (command.name == name) {
      return command.run(std::vector<std::string>(args.begin() + 1, args.end()));
    }
  }
  std::fprintf(stderr, "pallas-puzzles: unknown command `%s`; run `pallas-puzzles help`\n",
               args[0].c_str());
  return kExitUsage;
}

}  // namespace pz::cli
