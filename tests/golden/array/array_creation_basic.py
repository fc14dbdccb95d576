# zeros, ones, full and empty with shapes and dtypes
import jax.numpy as jnp

print(jnp.zeros(3), jnp.zeros((2, 2), dtype=jnp.int32))  # expect: [0. 0. 0.] [[0 0]
# expect:  [0 0]]
print(jnp.ones((2, 3)).dtype, jnp.ones(2, jnp.bfloat16))  # expect: float32 [1 1]
print(jnp.full((2, 2), 7))  # expect: [[7 7]
# expect:  [7 7]]
print(jnp.full(3, 1.5).dtype, jnp.full((2,), True))  # expect: float32 [ True  True]
print(jnp.empty((2, 3)).shape, jnp.empty(4, dtype=jnp.int8).dtype)  # expect: (2, 3) int8
print(jnp.zeros(()).shape, jnp.zeros(()))  # expect: () 0.0
