// Private to the `collections` module: its parts in collections_module.cpp (the module, the dict
// subclasses defaultdict, Counter and OrderedDict), collections_deque.cpp (deque) and
// collections_abc.cpp (the `collections.abc` classes).
#pragma once

#include <memory>

#include "eval/interpreter.h"

namespace pz::eval {

// The `collections` module without namedtuple (class_modules.cpp adds it); also registers
// `collections.abc`.
std::shared_ptr<ModuleObject> MakeCollectionsModule(Interpreter& interp);
// The deque class: `type(deque())` (collections_deque.cpp).
TypeObject* MakeDequeType(Interpreter& interp);
// The `collections.abc` module (collections_abc.cpp).
std::shared_ptr<ModuleObject> MakeCollectionsAbcModule(Interpreter& interp);

}  // namespace pz::eval
