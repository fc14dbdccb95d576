# clip with array bounds and maximum with broadcasting
import jax.numpy as jnp

x = jnp.arange(6).reshape(2, 3)
print(jnp.clip(x, jnp.array([1, 2, 3]), 4))  # expect: [[1 2 3]
# expect:  [3 4 4]]
print(jnp.maximum(x, jnp.array([[2], [4]])))  # expect: [[2 2 2]
# expect:  [4 4 5]]
print(jnp.minimum(x, 2.5))  # expect: [[0.  1.  2. ]
# expect:  [2.5 2.5 2.5]]
print(jnp.clip(x.astype(jnp.bfloat16), 0.5, 3.5))  # expect: [[0.5 1 2]
# expect:  [3 3.5 3.5]]
