// Colour policy for terminal output, and line input from standard input.
#include "cli/terminal.h"

#include <unistd.h>

#include <cstdlib>

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

}  // namespace pz::cli
