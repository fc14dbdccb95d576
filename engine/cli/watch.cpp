#include "cli/watch.h"

#include <fmt/format.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/inotify.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "cli/commands.h"
#include "cli/terminal.h"

namespace pz::cli {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Polling interval when inotify is unavailable, and the settle time after a change (editors
// write a file in several steps).
constexpr int kPollMilliseconds = 300;
constexpr auto kSettle = std::chrono::milliseconds(120);
// How long a passing check stays on screen before watch moves on: time to read it and press `s`.
constexpr int kMoveOnMilliseconds = 3000;

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

// One file, watched through inotify on its directory where available (editors often save by
// writing a new file and renaming it), else by comparing its time and size.
class FileWatch {
 public:
  explicit FileWatch(fs::path file) : file_(std::move(file)), stamp_(StampOf(file_)) {
#ifdef __linux__
    fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    std::string dir = file_.parent_path().empty() ? "." : file_.parent_path().string();
    if (fd_ >= 0 &&
        inotify_add_watch(fd_, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
      close(fd_);
      fd_ = -1;
    }
#endif
  }
  ~FileWatch() {
    if (fd_ >= 0) close(fd_);
  }
  FileWatch(const FileWatch&) = delete;
  FileWatch& operator=(const FileWatch&) = delete;

  // The inotify descriptor to poll, or -1 when polling the file itself.
  int fd() const { return fd_; }

  // Drains pending events; true when the file changed since the last time it said so (after
  // letting the writer finish).
  bool Changed() {
    if (fd_ >= 0) {
      char events[4096];
      while (read(fd_, events, sizeof events) > 0) {
      }
    }
    Stamp now = StampOf(file_);
    if (now == stamp_ || !now.exists) return false;
    std::this_thread::sleep_for(kSettle);
    stamp_ = StampOf(file_);
    return true;
  }

 private:
  fs::path file_;
  Stamp stamp_;
  int fd_ = -1;
};

enum class Event {
  kTimeout,  // the wait's time ran out
  kChanged,  // the watched file was saved
  kStop,     // `q`, Enter, Escape or Ctrl-D
  kEnd,      // standard input ended (or is closed): no key will come
  kStay,     // `s`
  kNext,     // `n`
  kOther,    // any other key
};

Event KeyEvent(char c) {
  switch (c) {
    case 'q':
    case 'Q':
    case '\n':
    case '\r':
    case '\x1b':
    case '\x04':
      return Event::kStop;
    case 's':
    case 'S':
      return Event::kStay;
    case 'n':
    case 'N':
      return Event::kNext;
    default:
      return Event::kOther;
  }
}

// A key from a terminal; from anything else a whole line (an empty one is Enter), so that the
// lines after it stay unread for the REPL.
Event ReadKey() {
  if (isatty(STDIN_FILENO)) {
    char c = 0;
    return read(STDIN_FILENO, &c, 1) == 1 ? KeyEvent(c) : Event::kEnd;
  }
  std::optional<std::string> line = ReadInputLine();
  if (!line) return Event::kEnd;
  std::string key = *line;
  while (!key.empty() && (key.back() == ' ' || key.back() == '\r')) key.pop_back();
  while (!key.empty() && key.front() == ' ') key.erase(key.begin());
  if (key.empty()) return Event::kStop;
  return key.size() == 1 ? KeyEvent(key[0]) : Event::kOther;
}

// Waits for a key, a save of `watch`'s file (when given), or `timeout_ms` (negative: no limit).
Event Wait(FileWatch* watch, int timeout_ms) {
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    int wait = kPollMilliseconds;
    if (timeout_ms >= 0) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return Event::kTimeout;
      wait = static_cast<int>(std::min<int64_t>(wait, left));
    }
    pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN, .revents = 0},
                     {.fd = watch != nullptr ? watch->fd() : -1, .events = POLLIN, .revents = 0}};
    int ready = poll(fds, 2, wait);
    if (ready < 0 && errno != EINTR) return Event::kEnd;
    if (fds[0].revents & POLLNVAL) return Event::kEnd;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) return ReadKey();
    if (watch != nullptr && watch->Changed()) return Event::kChanged;
  }
}

}  // namespace

int WatchAction(CourseContext& ctx, const course::PuzzleEntry& first) {
  RawKeys keys;
  const course::PuzzleEntry* p = &first;
  int last = kExitOk;
  bool ended = false;  // standard input ended: nothing more to wait for
  auto say = [&](const std::string& text) {
    Out(text + "\n");
    std::fflush(stdout);
  };
  auto legend = [&] {
    say(
        ctx.Dim("keys: `q` or Enter stops watching, `n` moves on to the next unsolved puzzle "
                "once this one passes, `s` stays on a solved puzzle"));
  };
  while (p != nullptr) {
    FileWatch watch(ctx.FileOf(*p));
    const course::PuzzleEntry* next = nullptr;  // where to go once this puzzle is left
    bool stay = false;                          // the learner keeps the solved puzzle
    bool stop = false;
    ClearScreen();
    last = CheckAction(ctx, *p);
    while (!stop && next == nullptr) {
      bool passed = last == kExitOk;
      if (passed && !stay) {
        const course::PuzzleEntry* after = ctx.NextUnsolved(*p);
        if (after == nullptr) {
          // Nowhere to go: keep watching this one.
          say(ctx.Green("every puzzle of the course is solved; well done"));
          stay = true;
          continue;
        }
        say(fmt::format("{} passed: moving on to {} {} in {} s ({})", ctx.Green(p->short_name()),
                        after->short_name(), after->title, kMoveOnMilliseconds / 1000,
                        ctx.Dim("`s` stays on " + p->short_name() + ", `n` goes now, `q` stops")));
        // Without input there is no one to press `s`: move on at once.
        Event event = ended ? Event::kEnd : Wait(nullptr, kMoveOnMilliseconds);
        switch (event) {
          case Event::kEnd:
            ended = true;
            next = after;
            break;
          case Event::kTimeout:
          case Event::kNext:
          case Event::kChanged:
            next = after;
            break;
          case Event::kStay:
            stay = true;
            say(fmt::format("staying on {}", p->short_name()));
            break;
          case Event::kStop:
            stop = true;
            break;
          case Event::kOther:
            legend();
            break;
        }
        continue;
      }
      say(ctx.Dim(fmt::format("watching {} — {}", ctx.FileOf(*p).string(),
                              passed ? "save it to check again, `n` moves on to the next "
                                       "unsolved puzzle, `q` or Enter stops"
                                     : "save it to check again; `q` or Enter stops")));
      if (ended) break;
      Event event = Wait(&watch, -1);
      switch (event) {
        case Event::kChanged:
          ClearScreen();
          last = CheckAction(ctx, *p);
          break;
        case Event::kNext:
          if (passed) {
            next = ctx.NextUnsolved(*p);
            if (next == nullptr) say(ctx.Green("every puzzle of the course is solved; well done"));
          } else {
            say(fmt::format("`n` moves on once {} passes", p->short_name()));
          }
          break;
        case Event::kEnd:
          ended = true;
          stop = true;
          break;
        case Event::kStop:
          stop = true;
          break;
        case Event::kStay:
        case Event::kOther:
        case Event::kTimeout:
          legend();
          break;
      }
    }
    if (next == nullptr) break;
    ctx.progress.current = next->name();
    ctx.Save();
    p = next;
  }
  say("stopped watching");
  return last;
}

}  // namespace pz::cli
