// Colour policy, line input, screen clearing, paging and the editor lookup.
#include "cli/terminal.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace pz::cli {

bool UseColor(std::FILE* stream) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return isatty(fileno(stream)) != 0;
}

std::optional<std::string> ReadInputLine() {
  std::string text;
  char c = 0;
  ssize_t n = 0;
  while ((n = read(STDIN_FILENO, &c, 1)) == 1 && c != '\n') text += c;
  if (n <= 0 && text.empty()) return std::nullopt;
  return text;
}

void ClearScreen() {
  if (!isatty(STDOUT_FILENO)) return;
  // Erase the screen, then the scrollback (xterm's ED 3), then home the cursor.
  std::fputs("\033[2J\033[3J\033[H", stdout);
  std::fflush(stdout);
}

int RowsNeeded(const std::string& text, int columns) {
  if (columns <= 0) columns = 80;
  int rows = 0;
  int width = 0;  // of the current line, in characters
  bool escape = false;
  auto end_line = [&] {
    rows += width == 0 ? 1 : (width + columns - 1) / columns;
    width = 0;
  };
  for (unsigned char c : text) {
    if (escape) {
      escape = !(c >= 0x40 && c <= 0x7e && c != '[');
    } else if (c == 0x1b) {
      escape = true;
    } else if (c == '\n') {
      end_line();
    } else if ((c & 0xc0) != 0x80) {  // not a UTF-8 continuation byte
      width += c == '\t' ? 8 - width % 8 : 1;
    }
  }
  if (width > 0) end_line();
  return rows;
}

void Page(const std::string& text) {
  std::fflush(stdout);
  winsize size{};
  if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 ||
      RowsNeeded(text, size.ws_col) < size.ws_row) {
    Out(text);
    return;
  }
  const char* env = std::getenv("PAGER");
  std::string pager = env != nullptr ? env : "less -R";
  size_t first = pager.find_first_not_of(" \t");
  pager = first == std::string::npos ? "" : pager.substr(first);
  while (!pager.empty() && (pager.back() == ' ' || pager.back() == '\t')) pager.pop_back();
  if (pager.empty() || pager == "cat") {
    Out(text);
    return;
  }
  // A pager that quits early (or was never found) closes the pipe: no SIGPIPE for that.
  struct sigaction ignore {};
  struct sigaction saved {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &saved);
  FILE* pipe = popen(pager.c_str(), "w");
  int status = -1;
  if (pipe != nullptr) {
    std::fwrite(text.data(), 1, text.size(), pipe);
    status = pclose(pipe);
  }
  sigaction(SIGPIPE, &saved, nullptr);
  // The shell's 127: the pager's command was not found.
  if (pipe == nullptr || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
    std::fprintf(stderr, "pallas-puzzles: the pager `%s` could not be started; set $PAGER\n",
                 pager.c_str());
    Out(text);
  }
}

namespace {

bool OnPath(std::string_view program) {
  // Without PATH, the default search path of execvp.
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/bin:/usr/bin";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + std::string(program);
    struct stat info {};
    if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return true;
    }
    if (colon == std::string_view::npos) return false;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace

std::optional<std::string> FindEditor() {
  for (const char* variable : {"VISUAL", "EDITOR"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr &&
        std::string_view(value).find_first_not_of(" \t") != std::string_view::npos) {
      return std::string(value);
    }
  }
  for (const char* program : {"editor", "nano", "vi"}) {
    if (OnPath(program)) return std::string(program);
  }
  return std::nullopt;
}

}  // namespace pz::cli
