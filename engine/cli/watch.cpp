#include "cli/watch.h"

#include <poll.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "cli/commands.h"

namespace pz::cli {
namespace fs = std::filesystem;

namespace {

// Polling interval when inotify is unavailable, and the settle time after a change (editors
// write a file in several steps).
constexpr int kPollMilliseconds = 300;
constexpr auto kSettle = std::chrono::milliseconds(120);

struct Stamp {
  fs::file_time_type time{};
  uintmax_t size = 0;
  bool exists = false;
  bool operator==(const Stamp&) const = default;
};

Stamp StampOf(const fs::path& file) {
  std::error_code ec;
  Stamp s;
  s.time = fs::last_write_time(file, ec);
  if (ec) return s;
  s.size = fs::file_size(file, ec);
  s.exists = !ec;
  return s;
}

// Puts a terminal in non-canonical mode (a single key is readable) for the object's life.
class RawKeys {
 public:
  RawKeys() {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    active_ = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  ~RawKeys() {
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  RawKeys(const RawKeys&) = delete;
  RawKeys& operator=(const RawKeys&) = delete;

 private:
  termios saved_{};
  bool active_ = false;
};

}  // namespace

int WatchAction(CourseContext& ctx, const course::PuzzleEntry& p) {
  fs::path file = ctx.FileOf(p);
  int inotify = -1;
#ifdef __linux__
  inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify >= 0) {
    // The directory, not the file: editors often save by writing a new file and renaming it.
    std::string dir = file.parent_path().empty() ? "." : file.parent_path().string();
    if (inotify_add_watch(inotify, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
      close(inotify);
      inotify = -1;
    }
  }
#endif
  auto banner = [&] {
    std::printf("%s\n", ctx.Dim("watching " + file.string() +
                                " — save it to check again; press Enter (or any key) to stop")
                            .c_str());
    std::fflush(stdout);
  };
  int last = CheckAction(ctx, p);
  banner();
  RawKeys keys;
  Stamp stamp = StampOf(file);
  while (true) {
    pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN, .revents = 0},
                     {.fd = inotify, .events = POLLIN, .revents = 0}};
    int ready = poll(fds, inotify >= 0 ? 2 : 1, kPollMilliseconds);
    if (ready < 0) break;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      // A key on a terminal; a whole line when input is piped (later lines stay unread for the
      // REPL); end of input also stops.
      char c = 0;
      bool tty = isatty(STDIN_FILENO);
      while (read(STDIN_FILENO, &c, 1) == 1 && !tty && c != '\n') {
      }
      break;
    }
    if (inotify >= 0 && (fds[1].revents & POLLIN)) {
      char events[4096];
      while (read(inotify, events, sizeof events) > 0) {
      }
    }
    Stamp now = StampOf(file);
    if (now == stamp || !now.exists) continue;
    std::this_thread::sleep_for(kSettle);
    stamp = StampOf(file);
    last = CheckAction(ctx, p);
    banner();
  }
  if (inotify >= 0) close(inotify);
  std::printf("stopped watching\n");
  return last;
}

}  // namespace pz::cli
