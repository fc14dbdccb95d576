// Runs a function on a thread with a large stack. The evaluator recurses on the C++ stack for
// every Python call and nested expression; its own limits (recursion depth, nesting) keep the
// depth bounded, and a large stack keeps those limits far below an overflow in every build mode
// (sanitizer builds use several times more stack per frame).
#pragma once

#include <cstddef>
#include <functional>

namespace pz {

// Stack size for evaluator threads: 1000 Python frames of an ASan build fit with room to spare.
inline constexpr size_t kEvaluatorStackBytes = size_t{1} << 30;

// Calls `fn` on a new thread with `stack_bytes` of stack and waits for it. Exceptions must not
// escape `fn`. Falls back to calling `fn` directly if a thread cannot be created.
void RunOnLargeStack(const std::function<void()>& fn, size_t stack_bytes = kEvaluatorStackBytes);

}  // namespace pz
