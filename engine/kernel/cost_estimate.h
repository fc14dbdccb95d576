// `pl.estimate_cost`: the FLOPs, transcendentals and bytes of a plain-JAX function, counted with
// JAX's cost rules over the primitives an eager run of it records (cost_estimate.cpp).
#pragma once

#include "eval/interpreter.h"

namespace pz::kernel {

void InstallCostEstimate(eval::Interpreter& interp);

}  // namespace pz::kernel
