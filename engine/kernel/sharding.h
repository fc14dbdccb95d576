// Devices, meshes, shardings, `jax.shard_map` and the collectives for the one CPU device the
// emulator is (sharding.cpp): what JAX reports and computes on a one-device CPU process.
#pragma once

#include "eval/interpreter.h"

namespace pz::kernel {

void InstallSharding(eval::Interpreter& interp);

}  // namespace pz::kernel
