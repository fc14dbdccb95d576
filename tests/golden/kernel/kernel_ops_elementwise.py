# value ops inside kernels: exp, maximum, where, broadcasted_iota, sum(keepdims), astype
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl


def ops_kernel(x_ref, e_ref, r_ref, i_ref, s_ref):
    x = x_ref[...]
    e_ref[...] = jnp.exp(x * 0.5)
    rows = lax.broadcasted_iota(jnp.int32, x.shape, 0)
    cols = lax.broadcasted_iota(jnp.int32, x.shape, 1)
    r_ref[...] = jnp.where(cols > rows, jnp.maximum(x, 2.0), -x)
    i_ref[...] = rows * 10 + cols + x.astype(jnp.int32) * 100
    s_ref[...] = jnp.sum(x, axis=1, keepdims=True) + jnp.sum(x, axis=0, keepdims=True)


x = jnp.array([[1.0, -2.0, 3.5, 0.0], [4.0, 5.0, -6.0, 1.5], [0.25, 3.0, 2.0, -1.0]])
shapes = (jax.ShapeDtypeStruct((3, 4), jnp.float32), jax.ShapeDtypeStruct((3, 4), jnp.float32),
          jax.ShapeDtypeStruct((3, 4), jnp.int32), jax.ShapeDtypeStruct((3, 4), jnp.float32))
e, r, i, s = pl.pallas_call(ops_kernel, out_shape=shapes, interpret=True)(x)
print(jnp.allclose(e, jnp.exp(x * 0.5), rtol=1e-6), e.dtype)
print(r)
print(i)
print(s)
# expect: True float32
# expect: [[-1.    2.    3.5   2.  ]
# expect:  [-4.   -5.    2.    2.  ]
# expect:  [-0.25 -3.   -2.    2.  ]]
# expect: [[ 100 -199  302    3]
# expect:  [ 410  511 -588  113]
# expect:  [  20  321  222  -77]]
# expect: [[ 7.75  8.5   2.    3.  ]
# expect:  [ 9.75 10.5   4.    5.  ]
# expect:  [ 9.5  10.25  3.75  4.75]]
