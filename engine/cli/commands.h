// The one command table of the CLI: every subcommand with its usage line and summary, used both
// to dispatch and to generate `help`. Exit codes follow DESIGN.md §6.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pz::tpu {
struct EmulatorOptions;
}  // namespace pz::tpu

namespace pz::cli {

// Process exit codes (sysexits-style, as documented in the README).
enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,
  kExitUsage = 64,
  kExitSyntax = 65,   // syntax or trace error in the user's program
  kExitRuntime = 70,  // runtime or emulation error
  kExitIo = 74,       // a file could not be read or written
};

struct Command {
  std::string_view name;
  std::string_view usage;    // e.g. "run [options] FILE.py"
  std::string_view summary;  // one line
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& Commands();
// The help text generated from the command table.
std::string HelpText();
// Dispatches argv (without the program name) to a command; returns the exit code.
int Dispatch(const std::vector<std::string>& args);

// Subcommand entry points.
int RunCommand(const std::vector<std::string>& args);
int InitCommand(const std::vector<std::string>& args);
int ListCommand(const std::vector<std::string>& args);
int ShowCommand(const std::vector<std::string>& args);
int CheckCommand(const std::vector<std::string>& args);
int HintCommand(const std::vector<std::string>& args);
int HintsCommand(const std::vector<std::string>& args);
int SolutionCommand(const std::vector<std::string>& args);
int ProgressCommand(const std::vector<std::string>& args);
int ResetCommand(const std::vector<std::string>& args);
int WatchCommand(const std::vector<std::string>& args);
int VerifyCommand(const std::vector<std::string>& args);
int ExportNotebooksCommand(const std::vector<std::string>& args);
int DiagramCommand(const std::vector<std::string>& args);
int ExportDiagramsCommand(const std::vector<std::string>& args);
int RooflineCommand(const std::vector<std::string>& args);
int TuneCommand(const std::vector<std::string>& args);
// `--backend cuda`: runs every pallas_call on the first CUDA GPU (or, with the environment's
// PZ_CUDA_DEVICE=host, the generated CUDA on CPU threads); the device's error when there is none.
std::optional<std::string> UseCudaBackend(tpu::EmulatorOptions& emulator);
// The interactive course (no arguments).
int ReplMain();

}  // namespace pz::cli
