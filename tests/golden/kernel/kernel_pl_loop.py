# pl.loop(lower, upper) decorates a loop body; step= and init_carry= are supported too
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def loop_kernel(x_ref, o_ref, c_ref):
    o_ref[...] = jnp.zeros_like(o_ref)

    @pl.loop(0, 4)
    def _(r):
        o_ref[r, :] = x_ref[r, :] * (r + 1).astype(jnp.float32)

    @pl.loop(1, 6, step=2)
    def _(c):
        o_ref[:, c] = -o_ref[:, c]

    @pl.loop(0, 4, init_carry=jnp.float32(0.0))
    def total(r, acc):
        return acc + x_ref[r, 0]

    c_ref[0] = total


x = jnp.arange(24).reshape(4, 6).astype(jnp.float32)
shapes = (jax.ShapeDtypeStruct((4, 6), jnp.float32), jax.ShapeDtypeStruct((1,), jnp.float32))
o, c = pl.pallas_call(loop_kernel, out_shape=shapes, interpret=True)(x)
print(o)
print(c)
# expect: [[  0.  -1.   2.  -3.   4.  -5.]
# expect:  [ 12. -14.  16. -18.  20. -22.]
# expect:  [ 36. -39.  42. -45.  48. -51.]
# expect:  [ 72. -76.  80. -84.  88. -92.]]
# expect: [36.]
