# a running max over column blocks starts from -inf, so all-negative rows come out right
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def rowmax_kernel(x_ref, o_ref):
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        o_ref[...] = jnp.full(o_ref.shape, -jnp.inf, jnp.float32)

    o_ref[...] = jnp.maximum(o_ref[...], jnp.max(x_ref[...], axis=1, keepdims=True))


x = -(jnp.arange(24).reshape(4, 6) % 7 + 1).astype(jnp.float32)
x = x.at[2, 5].set(-0.5).at[0, 0].set(-20.0)
out = pl.pallas_call(rowmax_kernel, out_shape=jax.ShapeDtypeStruct((4, 1), jnp.float32),
                     grid=(2, 3), in_specs=[pl.BlockSpec((2, 2), lambda i, k: (i, k))],
                     out_specs=pl.BlockSpec((2, 1), lambda i, k: (i, 0)), interpret=True)(x)
print(out[:, 0])  # expect: [-2.  -1.  -0.5 -1. ]
print(jnp.max(x, axis=1))  # expect: [-2.  -1.  -0.5 -1. ]


def wrong_init_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] = jnp.maximum(o_ref[...], jnp.max(x_ref[...], axis=1, keepdims=True))


zero = pl.pallas_call(wrong_init_kernel, out_shape=jax.ShapeDtypeStruct((4, 1), jnp.float32),
                      grid=(2, 3), in_specs=[pl.BlockSpec((2, 2), lambda i, k: (i, k))],
                      out_specs=pl.BlockSpec((2, 1), lambda i, k: (i, 0)), interpret=True)(x)
print(zero[:, 0])  # expect: [0. 0. 0. 0.]
