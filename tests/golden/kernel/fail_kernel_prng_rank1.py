# Mosaic draws the core's random bits in whole 2-d tiles: a 1-d draw fails to lower, in Mosaic's
# words (real JAX raises this when it compiles the kernel for a TPU).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(o_ref):
    pltpu.prng_seed(3)
    o_ref[...] = pltpu.prng_random_bits((128,))  # error: NotImplementedError: random_bits only supports rank>=2 outputs.


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128,), jnp.int32),
                     interpret=True)()
print(out[:2])
