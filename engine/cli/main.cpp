// Entry point of `pallas-puzzles`: hands argv to the command table (cli/commands.h).
#include <string>
#include <vector>

#include "cli/commands.h"
#include "support/large_stack.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Everything runs on a large stack: evaluation recurses per Python call, and tearing down a
  // deeply nested structure a program built recurses in the destructors.
  int exit_code = 0;
  pz::RunOnLargeStack([&] { exit_code = pz::cli::Dispatch(args); });
  return exit_code;
}
