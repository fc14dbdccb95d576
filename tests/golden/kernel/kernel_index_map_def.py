# index maps written as `def` functions: reversed blocks and a swapped 2-D block order
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

NUM_BLOCKS = 3


def forward(i):
    return (i,)


def reverse(i):
    return (NUM_BLOCKS - 1 - i,)


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


x = jnp.arange(12).astype(jnp.float32)
y = (jnp.arange(12) * 100).astype(jnp.float32)
out = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((12,), jnp.float32),
                     grid=(NUM_BLOCKS,),
                     in_specs=[pl.BlockSpec((4,), forward), pl.BlockSpec((4,), reverse)],
                     out_specs=pl.BlockSpec((4,), index_map=forward), interpret=True)(x, y)
print(out)


def rows_last(i, j):
    row = 1 - j
    return row, i


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


m = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
moved = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32),
                       grid=(2, 2), in_specs=[pl.BlockSpec((2, 2), rows_last)],
                       out_specs=pl.BlockSpec((2, 2), lambda i, j: (j, i)), interpret=True)(m)
print(moved)
# expect: [ 800.  901. 1002. 1103.  404.  505.  606.  707.    8.  109.  210.  311.]
# expect: [[ 8.  9. 10. 11.]
# expect:  [12. 13. 14. 15.]
# expect:  [ 0.  1.  2.  3.]
# expect:  [ 4.  5.  6.  7.]]
