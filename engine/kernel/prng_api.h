// The Pallas TPU API of the core's hardware random number generator: `pltpu.prng_seed`,
// `pltpu.prng_random_bits` (traced into PrngSeed / PrngRandomBits instructions) and the stateful
// samplers built on them (`pltpu.stateful_bits`, `stateful_uniform`, `stateful_normal`,
// `stateful_bernoulli`). Mosaic's limits are raised while tracing in `tpu` semantics; JAX's
// interpret mode has no generator, so `interpret` semantics rejects them as JAX does.
#pragma once

#include "eval/interpreter.h"

namespace pz::kernel {

// Adds the generator API to the pltpu module.
void InstallPrngApi(eval::Interpreter& interp);

}  // namespace pz::kernel
