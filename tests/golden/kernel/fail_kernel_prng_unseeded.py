# Drawing from the core's generator before seeding it: on a TPU the bits depend on whatever ran
# before, so the emulator stops at the draw (real JAX compiles this for a TPU, and its interpret
# mode has no generator at all).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(o_ref):
    o_ref[...] = pltpu.prng_random_bits(o_ref.shape)  # error: RuntimeError: pltpu.prng_random_bits at grid step (0,) drew from the core's random number generator before any pltpu.prng_seed


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
                     grid=(1,), interpret=True)()
print(out[0, :2])
