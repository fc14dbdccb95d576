# eye: identity and offset diagonals
import jax.numpy as jnp

print(jnp.eye(3))  # expect: [[1. 0. 0.]
# expect:  [0. 1. 0.]
# expect:  [0. 0. 1.]]
print(jnp.eye(2, 3, dtype=jnp.int32))  # expect: [[1 0 0]
# expect:  [0 1 0]]
print(jnp.eye(3, k=1))  # expect: [[0. 1. 0.]
# expect:  [0. 0. 1.]
# expect:  [0. 0. 0.]]
print(jnp.identity(2))  # expect: [[1. 0.]
# expect:  [0. 1.]]
