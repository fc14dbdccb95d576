// Internal invariant checks. A failing PZ_CHECK is a bug in the engine, never a user mistake:
// user mistakes are reported as Diagnostics and never reach these macros.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace pz::detail {
[[noreturn]] inline void CheckFailed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "internal error (a bug in pallas-puzzles): %s at %s:%d\n", expr, file, line);
  std::abort();
}
}  // namespace pz::detail

#define PZ_CHECK(cond) \
  ((cond) ? static_cast<void>(0) : ::pz::detail::CheckFailed(#cond, __FILE__, __LINE__))
#define PZ_UNREACHABLE() ::pz::detail::CheckFailed("unreachable", __FILE__, __LINE__)
