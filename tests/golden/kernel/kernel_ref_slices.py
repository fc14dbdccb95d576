# static slices on refs: negative bounds, steps and `...` follow NumPy's rules (ints must be >= 0)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def slice_kernel(x_ref, m_ref, o_ref, p_ref):
    o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[-3:] = x_ref[1:-5]
    o_ref[:2] = x_ref[-2:]
    o_ref[2:5] = x_ref[::3]
    p_ref[...] = jnp.zeros_like(p_ref)
    p_ref[0:1, ...] = m_ref[-1:, ...]
    p_ref[1:, ::2] = m_ref[:-1, 1::2]
    p_ref[:, -1:] = m_ref[..., 0:1] * 10.0


x = jnp.arange(9).astype(jnp.float32)
m = jnp.arange(12).reshape(3, 4).astype(jnp.float32)
shapes = (jax.ShapeDtypeStruct((8,), jnp.float32), jax.ShapeDtypeStruct((3, 4), jnp.float32))
o, p = pl.pallas_call(slice_kernel, out_shape=shapes, interpret=True)(x, m)
print(o)
print(p)
# expect: [7. 8. 0. 3. 6. 1. 2. 3.]
# expect: [[ 8.  9. 10.  0.]
# expect:  [ 1.  0.  3. 40.]
# expect:  [ 5.  0.  7. 80.]]
