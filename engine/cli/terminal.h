// Terminal facts the CLI renders by: colour only on a TTY and never with NO_COLOR.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

namespace pz::cli {

// True when `stream` is a terminal and the NO_COLOR environment variable is unset or empty.
bool UseColor(std::FILE* stream);

// Writes `text` to standard output as it is.
inline void Out(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

// One line of standard input without its newline, read byte by byte so that nothing beyond it
// is buffered away from the next reader; nullopt at the end of input.
std::optional<std::string> ReadInputLine();

}  // namespace pz::cli
