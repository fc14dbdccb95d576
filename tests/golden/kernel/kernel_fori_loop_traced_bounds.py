# lax.fori_loop whose upper bound comes from pl.program_id: a different trip count per step
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def prefix_kernel(x_ref, o_ref):
    i = pl.program_id(0)

    def body(k, acc):
        return acc + x_ref[k]

    total = lax.fori_loop(0, i + 1, body, jnp.float32(0.0))
    o_ref[...] = jnp.full(o_ref.shape, total, jnp.float32)


x = jnp.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0])
out = pl.pallas_call(prefix_kernel, out_shape=jax.ShapeDtypeStruct((6,), jnp.float32), grid=(6,),
                     out_specs=pl.BlockSpec((1,), lambda i: (i,)), interpret=True)(x)
print(out)  # expect: [ 3.  4.  8.  9. 14. 23.]


def window_kernel(x_ref, o_ref):
    i = pl.program_id(0)

    def body(k, acc):
        return acc * 2 + x_ref[k]

    o_ref[0] = lax.fori_loop(i, 2 * i + 1, body, jnp.int32(0))


v = jnp.array([1, 0, 1, 1, 0, 1, 1], dtype=jnp.int32)
print(pl.pallas_call(window_kernel, out_shape=jax.ShapeDtypeStruct((4,), jnp.int32), grid=(4,),
                     out_specs=pl.BlockSpec((1,), lambda i: (i,)), interpret=True)(v))  # expect: [ 1  1  6 11]
