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
       "run [--semantics tpu|interpret] [--dma on_wait|eager] [--dump-ir] [--stats] "
       "[--timeline] [--lint] [--max-steps N] "
       "[--timeout S] [--max-array-gib G] [--dump-ast] FILE.py",
       "run a Python file with the engine, printing as Python would", RunCommand},
      {"help", "help", "show this help", HelpCommand},
      {"version", "version", "print the version", VersionCommand},
  };
  return kCommands;
}

std::string HelpText() {
  std::string text =
      "pallas-puzzles: learn to write TPU kernels with JAX Pallas, on any laptop\n\n"
      "usage: pallas-puzzles COMMAND [ARGS]\n\ncommands:\n";
  for (const Command& command : Commands()) {
    text += fmt::format("  {:<60} {}\n", command.usage, command.summary);
  }
  text +=
      "\nexit codes: 0 ok, 1 check failed, 64 usage error, 65 syntax error, 70 runtime error,\n"
      "            74 file not readable\n"
      "The puzzle course (init, list, check, hint, ...) arrives with the course runner.\n";
  return text;
}

int Dispatch(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(HelpText().c_str(), stdout);
    return kExitOk;
  }
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
