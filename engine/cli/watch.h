// `watch`: checks the puzzle, then again each time its file is saved (inotify on Linux, with a
// polling fallback), until a key is pressed or standard input ends.
#pragma once

#include "cli/course_context.h"

namespace pz::cli {

int WatchAction(CourseContext& ctx, const course::PuzzleEntry& p);

}  // namespace pz::cli
