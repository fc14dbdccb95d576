# lax.iota and lax.broadcasted_iota
import jax.numpy as jnp
from jax import lax

print(lax.iota(jnp.int32, 4))  # expect: [0 1 2 3]
print(lax.broadcasted_iota(jnp.int32, (2, 3), 0))  # expect: [[0 0 0]
# expect:  [1 1 1]]
print(lax.broadcasted_iota(jnp.int32, (2, 3), 1))  # expect: [[0 1 2]
# expect:  [0 1 2]]
print(lax.broadcasted_iota(jnp.float32, (2, 2), 1))  # expect: [[0. 1.]
# expect:  [0. 1.]]
