# preferred_element_type accumulates bf16 and int8 products in a wider type
import jax.numpy as jnp
from jax import lax

a = jnp.ones((2, 4), jnp.bfloat16)
print(jnp.dot(a, a.T).dtype)  # expect: bfloat16
print(jnp.dot(a, a.T, preferred_element_type=jnp.float32).dtype)  # expect: float32
i = jnp.full((2, 2), 100, jnp.int8)
print(jnp.matmul(i, i, preferred_element_type=jnp.int32))  # expect: [[20000 20000]
# expect:  [20000 20000]]
print(lax.dot_general(a, a, (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32))
# expect: [[4. 4.]
# expect:  [4. 4.]]
print(jnp.einsum("ij,kj->ik", a, a, preferred_element_type=jnp.float32).dtype)  # expect: float32
