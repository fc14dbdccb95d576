// `jax.experimental.checkify` (check, checkify, the error sets) for eager programs
// (checkify.cpp).
#pragma once

#include "eval/interpreter.h"

namespace pz::kernel {

void InstallCheckify(eval::Interpreter& interp);

}  // namespace pz::kernel
