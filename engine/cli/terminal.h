// Terminal facts the CLI renders by: colour only on a TTY and never with NO_COLOR; clearing the
// screen, paging long text through $PAGER and finding an editor, each only where a terminal
// asks for it, so that output into a pipe or a file stays plain.
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

// Clears the screen and its scrollback when standard output is a terminal; does nothing
// otherwise.
void ClearScreen();

// The rows a terminal needs to show `text` at `columns` columns (long lines wrap; ANSI colour
// sequences take no room).
int RowsNeeded(const std::string& text, int columns);

// Writes `text` to standard output, through $PAGER (default `less -R`, run by the shell) when
// standard output is a terminal and the text needs more rows than it has. No pager when PAGER
// is empty or `cat`; a pager that cannot be started falls back to printing, with a note.
void Page(const std::string& text);

// The editor to run, as git chooses one: $VISUAL, then $EDITOR (either may hold arguments),
// then the first of `editor`, `nano` and `vi` found on PATH; nullopt when there is none.
std::optional<std::string> FindEditor();

}  // namespace pz::cli
