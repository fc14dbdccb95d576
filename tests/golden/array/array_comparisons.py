# comparisons give bool arrays; they broadcast against scalars
import jax.numpy as jnp

x = jnp.array([1, 5, 3])
y = jnp.array([2, 5, 1])
print(x < y, x <= y, x == y)  # expect: [ True False False] [ True  True False] [False  True False]
print(x != y, x > 2, 3 >= x)  # expect: [ True False  True] [False  True  True] [ True False  True]
print((x > 1).dtype)  # expect: bool
print(jnp.equal(x, 5), jnp.greater(x, y))  # expect: [False  True False] [False False  True]
