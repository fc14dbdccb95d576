// Entry point of `pallas-puzzles`: hands argv to the command table (cli/commands.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "support/large_stack.h"

int main(int argc, char** argv) {
  // A closed standard stream becomes /dev/null, so that no file opened later (an inotify
  // descriptor, a pipe) takes its number and is read or written as if it were the stream.
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      int null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
      if (null >= 0 && null != fd) {
        dup2(null, fd);
        close(null);
      }
    }
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  // Everything runs on a large stack: evaluation recurses per Python call, and tearing down a
  // deeply nested structure a program built recurses in the destructors.
  int exit_code = 0;
  pz::RunOnLargeStack([&] { exit_code = pz::cli::Dispatch(args); });
  return exit_code;
}
