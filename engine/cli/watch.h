// `watch`: checks a puzzle, then again each time its file is saved (inotify on Linux, with a
// polling fallback), clearing a terminal's screen before each check. When the puzzle passes it
// says so and, after a pause to read the result, moves on to the next unsolved puzzle (`s`
// stays on the solved one, `n` goes at once); `q`, Enter or the end of input stops. Without a
// terminal each key is a line of standard input, and the end of input ends every wait, so watch
// never hangs on an empty or closed standard input.
#pragma once

#include "cli/course_context.h"

namespace pz::cli {

// Returns the exit code of the last check.
int WatchAction(CourseContext& ctx, const course::PuzzleEntry& p);

}  // namespace pz::cli
