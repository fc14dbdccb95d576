# tile and repeat, including total_repeat_length
import jax.numpy as jnp

x = jnp.array([1, 2, 3])
print(jnp.tile(x, 2))  # expect: [1 2 3 1 2 3]
print(jnp.tile(x, (2, 2)))  # expect: [[1 2 3 1 2 3]
# expect:  [1 2 3 1 2 3]]
print(jnp.repeat(x, 2))  # expect: [1 1 2 2 3 3]
print(jnp.repeat(jnp.array([[1, 2], [3, 4]]), 2, axis=0))  # expect: [[1 2]
# expect:  [1 2]
# expect:  [3 4]
# expect:  [3 4]]
print(jnp.repeat(x, jnp.array([1, 0, 3])))  # expect: [1 3 3 3]
print(jnp.repeat(x, jnp.array([2, 1, 1]), total_repeat_length=6))  # expect: [1 1 2 3 3 3]
