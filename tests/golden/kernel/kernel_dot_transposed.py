# matmul with a transposed operand: jnp.dot(a, b.T) and lax.dot_general with NT dimensions
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

NT = (((1,), (1,)), ((), ()))


def nt_kernel(a_ref, b_ref, o1_ref, o2_ref, o3_ref):
    a = a_ref[...]
    b = b_ref[...]
    o1_ref[...] = jnp.dot(a, b.T)
    o2_ref[...] = lax.dot_general(a, b, NT, preferred_element_type=jnp.float32)
    o3_ref[...] = lax.dot_general(a, a, (((0,), (0,)), ((), ())))


a = (jnp.arange(12).reshape(3, 4) % 5 - 1).astype(jnp.float32)
b = (jnp.arange(8).reshape(2, 4) * 3 % 7 - 2).astype(jnp.float32)
shapes = (jax.ShapeDtypeStruct((3, 2), jnp.float32), jax.ShapeDtypeStruct((3, 2), jnp.float32),
          jax.ShapeDtypeStruct((4, 4), jnp.float32))
o1, o2, o3 = pl.pallas_call(nt_kernel, out_shape=shapes, interpret=True)(a, b)
print(o1)
print(jnp.array_equal(o1, o2), jnp.array_equal(o1, a @ b.T))
print(o3)
# expect: [[ 6. -5.]
# expect:  [-7.  8.]
# expect:  [-5.  1.]]
# expect: True True
# expect: [[14.  3. -3.  1.]
# expect:  [ 3. 10. -3. -1.]
# expect:  [-3. -3.  2.  2.]
# expect:  [ 1. -1.  2.  5.]]
