# A block index past the array on a squeezed (None) dimension is the call's error on both
# backends, at the index map, with the same message: the CUDA backend once checked only blocked
# dimensions, and ran the call.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


x = jnp.ones((2, 128), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 128), jnp.float32), grid=(2,),
                     in_specs=[pl.BlockSpec((None, 128), lambda i: (i + 1, 0))],
                     out_specs=pl.BlockSpec((None, 128), lambda i: (i, 0)))(x)
print(out.sum())
