# lax.fori_loop with static bounds and a tuple carry (running sum of rows, running max)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def loop_kernel(x_ref, sum_ref, max_ref):
    def body(r, carry):
        total, best = carry
        row = x_ref[r, :]
        return total + row, jnp.maximum(best, jnp.max(row))

    init = (jnp.zeros((x_ref.shape[1],), jnp.float32), jnp.float32(-1000.0))
    total, best = lax.fori_loop(0, x_ref.shape[0], body, init)
    sum_ref[...] = total
    max_ref[...] = jnp.full(max_ref.shape, best, jnp.float32)


x = jnp.array([[3.0, -1.0, 2.0], [0.0, 7.0, -5.0], [4.0, 4.0, 1.0], [-2.0, 0.0, 6.0]])
shapes = (jax.ShapeDtypeStruct((3,), jnp.float32), jax.ShapeDtypeStruct((1,), jnp.float32))
s, m = pl.pallas_call(loop_kernel, out_shape=shapes, interpret=True)(x)
print(s)  # expect: [ 5. 10.  4.]
print(m)  # expect: [7.]


def count_kernel(o_ref):
    def body(k, carry):
        evens, odds = carry
        return lax.cond(k % 2 == 0, lambda: (evens + k, odds), lambda: (evens, odds + k))

    evens, odds = lax.fori_loop(3, 10, body, (0, 0))
    o_ref[0] = evens
    o_ref[1] = odds


print(pl.pallas_call(count_kernel, out_shape=jax.ShapeDtypeStruct((2,), jnp.int32),
                     interpret=True)())  # expect: [18 24]
