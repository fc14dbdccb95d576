// Installer of the statistics and matrix helpers (jnp_stats.cpp), run by InstallArrayModules.
#pragma once

#include "eval/array_object.h"

namespace pz::eval {

// jnp/np var, std, median, count_nonzero, outer, diag, diagonal, trace and the `linalg`
// submodules (norm, svd of singular values).
void InstallArrayStats(Interpreter& interp, const ArrayModules& modules);

}  // namespace pz::eval
