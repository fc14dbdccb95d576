# A bfloat16 uniform draws 16-bit random bits, and Mosaic lowers 32-bit draws only: in `tpu`
# semantics the kernel fails at the call with Mosaic's assertion (real JAX raises it when it
# compiles the kernel for a TPU; its interpret mode runs it, see kernel_random_interpret.py).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(seed_ref, o_ref):
    key = jax.random.key(seed_ref[0])
    o_ref[...] = jax.random.uniform(key, o_ref.shape, dtype=jnp.bfloat16)  # error: AssertionError: Only 32-bit PRNG supported.


out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.bfloat16),
    grid_spec=pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(1,), in_specs=[],
        out_specs=pl.BlockSpec((8, 128), lambda i, s: (0, 0))),
    interpret=True)(jnp.array([7], jnp.int32))
print(out[0, :2])
