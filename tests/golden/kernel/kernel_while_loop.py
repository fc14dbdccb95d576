# lax.while_loop inside a kernel: the trip count depends on the data of each block
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def next_pow2_kernel(x_ref, p_ref, n_ref):
    biggest = jnp.max(x_ref[...])

    def cond(carry):
        power, _ = carry
        return power < biggest

    def body(carry):
        power, steps = carry
        return power * 2, steps + 1

    power, steps = lax.while_loop(cond, body, (jnp.int32(1), jnp.int32(0)))
    p_ref[...] = jnp.full(p_ref.shape, power, jnp.int32)
    n_ref[...] = jnp.full(n_ref.shape, steps, jnp.int32)


x = jnp.array([3, 1, 2, 9, 4, 0, 1, 1, 17, 16, 5, 2], dtype=jnp.int32)
spec = pl.BlockSpec((3,), lambda i: (i,))
one = pl.BlockSpec((1,), lambda i: (i,))
shapes = (jax.ShapeDtypeStruct((4,), jnp.int32), jax.ShapeDtypeStruct((4,), jnp.int32))
powers, steps = pl.pallas_call(next_pow2_kernel, out_shape=shapes, grid=(4,), in_specs=[spec],
                               out_specs=(one, one), interpret=True)(x)
print(powers)  # expect: [ 4 16 32 16]
print(steps)  # expect: [2 4 5 4]
