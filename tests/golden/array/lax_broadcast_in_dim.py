# lax.broadcast_in_dim and lax.broadcast
import jax.numpy as jnp
from jax import lax

x = jnp.arange(3.0)
print(lax.broadcast_in_dim(x, (2, 3), (1,)))
print(lax.broadcast_in_dim(x, (3, 2), (0,)))
print(lax.broadcast_in_dim(jnp.ones((1, 4)), (2, 3, 4), (1, 2)).shape)
print(lax.broadcast(x, (2,)).shape, lax.broadcast_in_dim(5.0, (2,), ()))
try:
  lax.broadcast_in_dim(x, (3, 2), (1,))
except TypeError as e:
  print("TypeError")
# expect: [[0. 1. 2.]
# expect:  [0. 1. 2.]]
# expect: [[0. 0.]
# expect:  [1. 1.]
# expect:  [2. 2.]]
# expect: (2, 3, 4)
# expect: (2, 3) [5. 5.]
# expect: TypeError
