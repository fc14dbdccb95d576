# SMEM holds scalars: x_ref[i] works, but loading the whole (8,) SMEM array as a vector does not
# real JAX interpret=True (and InterpretParams) load the vector without complaint; only the TPU
# (Mosaic) lowering raises ValueError: Can only load scalars from SMEM
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0  # error: Can only load scalars from SMEM


x = jnp.arange(8).astype(jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
                     in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM)], interpret=True)(x)
print(out)
