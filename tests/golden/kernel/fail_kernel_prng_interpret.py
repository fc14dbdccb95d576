# args: --semantics interpret
# JAX's interpret mode has no model of the core's random number generator: real JAX fails at
# pltpu.prng_seed with this error, and so does `--semantics interpret` (the default `tpu`
# semantics emulates the generator: kernel_prng_stateful.py).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(o_ref):
    pltpu.prng_seed(3)  # error: NotImplementedError: MLIR translation rule for primitive 'prng_seed' not found for platform cpu
    o_ref[...] = pltpu.prng_random_bits(o_ref.shape)


out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
                     interpret=True)()
print(out[0, :2])
