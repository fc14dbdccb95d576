# broadcasting in arithmetic and with broadcast_to
import jax.numpy as jnp

col = jnp.arange(3).reshape(3, 1)
row = jnp.arange(4)
print(col + row)  # expect: [[0 1 2 3]
# expect:  [1 2 3 4]
# expect:  [2 3 4 5]]
print((col * row).shape)  # expect: (3, 4)
print(jnp.broadcast_to(row, (2, 4)))  # expect: [[0 1 2 3]
# expect:  [0 1 2 3]]
print(jnp.broadcast_to(jnp.array(5.0), (3,)))  # expect: [5. 5. 5.]
print((jnp.ones((2, 1, 3)) + jnp.ones((4, 1))).shape)  # expect: (2, 4, 3)
