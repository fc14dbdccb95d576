# Reductions over a single element (an axis of length 1, or a slice of one): the fold reads the
# same element whatever the result, and the generated unit must still compile without a warning
# (nvcc warned of the result's index, declared and never used).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, s_ref, o_ref):
    x = x_ref[...]
    first = jnp.max(x[1:2, 3])                 # one element, a scalar
    column = jnp.sum(x[:, 0:1], axis=1)         # one element per result
    s_ref[0] = jnp.min(jnp.max(x[2:3, 5:6], axis=0), axis=0)
    o_ref[...] = jnp.broadcast_to(column[:, None] * 2.0 + first, (8, 128)) + x


x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 64.0
s, o = pl.pallas_call(
    kernel,
    out_shape=(jax.ShapeDtypeStruct((1,), jnp.float32), jax.ShapeDtypeStruct((8, 128), jnp.float32)),
    out_specs=(pl.BlockSpec((1,), lambda: (0,)), pl.BlockSpec((8, 128), lambda: (0, 0))),
)(x)
print(s)
print(o[:, :3])
