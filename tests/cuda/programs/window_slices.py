# Loads and stores of parts of a block, some past the array's edge: with no shared memory to plan
# for (the same_global tests) these go straight to HBM through the window ("direct windows"),
# where reads past the edge give the poison and writes past it go nowhere.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[:, 0:64] = x_ref[:, 64:128] * 3.0
    o_ref[:, 64:128] = x_ref[:, 0:64] - 1.0
    o_ref[0:1, :] = jnp.max(x_ref[...], axis=0, keepdims=True)


x = jnp.sin(jnp.arange(20 * 128, dtype=jnp.float32)).reshape(20, 128)
spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((20, 128), jnp.float32), grid=(3,),
                     in_specs=[spec], out_specs=spec)(x)
print(out[::3, ::29])
