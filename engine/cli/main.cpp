// Entry point of `pallas-puzzles`: hands argv to the command table (cli/commands.h).
#include <string>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return pz::cli::Dispatch(args);
}
