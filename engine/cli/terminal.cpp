// Colour policy for terminal output.
#include "cli/terminal.h"

#include <unistd.h>

#include <cstdlib>

namespace pz::cli {

bool UseColor(std::FILE* stream) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return isatty(fileno(stream)) != 0;
}

}  // namespace pz::cli
