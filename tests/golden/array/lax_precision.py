# lax.Precision and the precision= argument of dot products: checked as JAX checks them; on a CPU
# every precision computes in float32, so the results do not change
import jax, jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
print(lax.Precision.HIGHEST, repr(lax.Precision.HIGHEST), lax.Precision.DEFAULT == lax.Precision('default'), lax.Precision('float32'))
a = jnp.ones((2, 2))
for p in ['foo', 3]:
    try:
        jnp.dot(a, a, precision=p)
    except ValueError as e:
        print(str(e).splitlines()[-1])
print(jnp.dot(a, a, precision=(lax.Precision.HIGHEST, lax.Precision.DEFAULT)).shape)
print(jnp.einsum("ij,jk->ik", a, a, precision="highest")[0, 0])
try:
    lax.Precision('bad')
except ValueError as e:
    print(e)


def kernel(a_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], a_ref[...], precision=lax.Precision.HIGHEST) + lax.dot_general(
        a_ref[...], a_ref[...], (((1,), (0,)), ((), ())), precision=lax.Precision.DEFAULT)


e = jnp.eye(8, dtype=jnp.float32)
print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32), interpret=True)(e)[0, :3])
# expect: HIGHEST Precision.HIGHEST True HIGHEST
# expect: but got foo.
# expect: but got 3.
# expect: (2, 2)
# expect: 2.0
# expect: 'bad' is not a valid Precision
# expect: [2. 0. 0.]
