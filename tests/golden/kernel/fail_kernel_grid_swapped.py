# a grid whose axes are swapped: both BlockSpecs walk (2, 4) blocks of the (16, 512) arrays, the
# grid says (4, 2). The index maps agree with each other, so the grid is blamed, at the
# pallas_call, not the index map that first leaves the array. (Real JAX's interpret mode does not
# check: it clamps the block index and returns a wrong result.)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


x = jnp.ones((16, 512))
out = pl.pallas_call(  # error: the grid (4, 2) does not match the BlockSpecs, which step through (2, 4) blocks
    double,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(4, 2),
    in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
    out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
    interpret=True,
)(x)
