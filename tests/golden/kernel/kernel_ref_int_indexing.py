# integer indices on refs select (and drop) dimensions; they work for loads and stores
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def index_kernel(x_ref, t_ref, o_ref):
    row = x_ref[1]          # shape (4,)
    col = x_ref[:, 2]       # shape (3,)
    one = x_ref[2, 3]       # shape ()
    deep = t_ref[1, 0]      # shape (3,) from a (2, 2, 3) ref
    o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[0] = row
    o_ref[1, :3] = col
    o_ref[2, 0] = one
    o_ref[2, 1:] = deep
    o_ref[0, 3] = t_ref[0, 1, 2]


x = jnp.arange(12).reshape(3, 4).astype(jnp.float32)
t = (jnp.arange(12).reshape(2, 2, 3) * 10).astype(jnp.float32)
out = pl.pallas_call(index_kernel, out_shape=jax.ShapeDtypeStruct((3, 4), jnp.float32),
                     interpret=True)(x, t)
print(out)
# expect: [[ 4.  5.  6. 50.]
# expect:  [ 2.  6. 10.  0.]
# expect:  [11. 60. 70. 80.]]
