# jnp.repeat with total_repeat_length pads with the last element, even when its count is 0
import jax.numpy as jnp

x = jnp.arange(5, dtype=jnp.int32)
print(jnp.repeat(x, jnp.array([1, 0, 1, 2, 0]), total_repeat_length=8))  # expect: [0 2 3 3 4 4 4 4]
print(jnp.repeat(jnp.arange(3), jnp.array([4, 4, 0]), total_repeat_length=10))  # expect: [0 0 0 0 1 1 1 1 2 2]
print(jnp.repeat(jnp.arange(3), jnp.array([4, 4, 0]), total_repeat_length=6))  # expect: [0 0 0 0 1 1]
print(jnp.repeat(jnp.array([5, 6, 7]), jnp.array([0, 0, 0]), total_repeat_length=4))  # expect: [7 7 7 7]
print(jnp.repeat(jnp.array([5, 6, 7]), 2, total_repeat_length=4))  # expect: [5 5 6 6]
m = jnp.array([[1, 2], [3, 4], [5, 6]])
print(jnp.repeat(m, jnp.array([1, 1, 0]), axis=0, total_repeat_length=4))  # expect: [[1 2]
# expect:  [3 4]
# expect:  [5 6]
# expect:  [5 6]]
