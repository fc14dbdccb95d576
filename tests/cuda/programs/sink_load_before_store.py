# A scratch value loaded, then overwritten before the load's first reader: the CUDA emitter moves
# array loads down to their readers, but never past a store into their ref (the result would be
# all 2.0 instead of (x + 1) * 2 + 2).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, s_ref):
    s_ref[...] = x_ref[...] + 1.0
    v = s_ref[...]
    s_ref[...] = jnp.full(s_ref.shape, 2.0, jnp.float32)
    o_ref[...] = v * 2.0 + s_ref[...]


x = jnp.arange(4 * 8 * 128, dtype=jnp.float32).reshape(32, 128) / 64.0
spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid=(4,),
                     in_specs=[spec], out_specs=spec,
                     scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)])(x)
print(out[::7, ::31])
