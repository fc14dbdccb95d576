// Entry point of `pallas-puzzles`: hands argv to the command table (cli/commands.h).
#include <fcntl.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cerrno>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "support/large_stack.h"

namespace {

// Programs make and drop arrays of megabytes all the time. By default glibc hands blocks of
// 128 KiB and more straight from the kernel (mmap) and gives the top of its heap back once a
// little of it is free, so most new arrays start on fresh pages that the kernel must zero on first
// touch. Blocks up to 32 MiB (glibc's largest threshold) now come from the heap, which keeps what
// is freed for the next ones. `verify --jobs 1` of the course: 108K page faults and 0.2-0.3 s of
// system time before, 12K and 0.05 s after. The price: memory freed by a run goes back to the
// system when the process ends, not before.
void KeepFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 16 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  KeepFreedMemory();
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
