# lax.fori_loop(..., unroll=2) and unroll=True give the same results as the plain loop
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def make_kernel(unroll):
    def kernel(x_ref, o_ref):
        def body(k, carry):
            o_ref[k, :] = x_ref[k, :] * carry
            return carry + 1.0

        last = lax.fori_loop(0, x_ref.shape[0], body, jnp.float32(1.0), unroll=unroll)
        o_ref[0, 0] = last
    return kernel


x = jnp.arange(15).reshape(5, 3).astype(jnp.float32)
shape = jax.ShapeDtypeStruct((5, 3), jnp.float32)
plain = pl.pallas_call(make_kernel(1), out_shape=shape, interpret=True)(x)
two = pl.pallas_call(make_kernel(2), out_shape=shape, interpret=True)(x)
full = pl.pallas_call(make_kernel(True), out_shape=shape, interpret=True)(x)
print(two)
print(jnp.array_equal(plain, two), jnp.array_equal(plain, full))
# expect: [[ 6.  1.  2.]
# expect:  [ 6.  8. 10.]
# expect:  [18. 21. 24.]
# expect:  [36. 40. 44.]
# expect:  [60. 65. 70.]]
# expect: True True
