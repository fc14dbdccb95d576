// Terminal facts the CLI renders by: colour only on a TTY and never with NO_COLOR.
#pragma once

#include <cstdio>

namespace pz::cli {

// True when `stream` is a terminal and the NO_COLOR environment variable is unset or empty.
bool UseColor(std::FILE* stream);

}  // namespace pz::cli
