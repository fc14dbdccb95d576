# zeros_like, ones_like, full_like, empty_like keep shape and dtype
import jax.numpy as jnp

x = jnp.arange(6, dtype=jnp.int8).reshape(2, 3)
print(jnp.zeros_like(x))  # expect: [[0 0 0]
# expect:  [0 0 0]]
print(jnp.ones_like(x, dtype=jnp.float32))  # expect: [[1. 1. 1.]
# expect:  [1. 1. 1.]]
print(jnp.full_like(x, 4).dtype, jnp.full_like(x, 4.7))  # expect: int8 [[4 4 4]
# expect:  [4 4 4]]
print(jnp.empty_like(x).shape)  # expect: (2, 3)
