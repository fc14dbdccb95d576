# a kernel that computes (16, 128) values for an output whose BlockSpec says (8, 128): the
# mismatch is the configuration's, so it is reported at the BlockSpec, with the store as a note
# (real JAX raises the same ValueError from the store)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.concatenate([x_ref[...], x_ref[...]], axis=0)


x = jnp.ones((16, 256))
out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((32, 256), x.dtype),
    grid=(2, 2),
    in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
    out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),  # error: ValueError: Invalid shape for `swap`. Ref shape: (8, 128). Expected shape: (8, 128). Value shape: (16, 128).
    interpret=True,
)(x)
