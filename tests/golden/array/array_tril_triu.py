# tril and triu with diagonal offsets
import jax.numpy as jnp

x = jnp.arange(1, 10).reshape(3, 3)
print(jnp.tril(x))  # expect: [[1 0 0]
# expect:  [4 5 0]
# expect:  [7 8 9]]
print(jnp.triu(x))  # expect: [[1 2 3]
# expect:  [0 5 6]
# expect:  [0 0 9]]
print(jnp.tril(x, -1))  # expect: [[0 0 0]
# expect:  [4 0 0]
# expect:  [7 8 0]]
print(jnp.triu(x, k=1))  # expect: [[0 2 3]
# expect:  [0 0 6]
# expect:  [0 0 0]]
print(jnp.tril(jnp.ones((2, 4), dtype=jnp.int32), 1))  # expect: [[1 1 0 0]
# expect:  [1 1 1 0]]
