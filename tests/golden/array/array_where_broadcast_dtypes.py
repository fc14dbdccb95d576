# where promotes its branches and broadcasts all three arguments
import jax.numpy as jnp

c = jnp.array([[True], [False]])
print(jnp.where(c, jnp.arange(3), -1.5))  # expect: [[ 0.   1.   2. ]
# expect:  [-1.5 -1.5 -1.5]]
print(jnp.where(c, jnp.ones(3, jnp.bfloat16), 0).dtype)  # expect: bfloat16
print(jnp.where(jnp.array([1, 0, 2]), 1, 0))  # expect: [1 0 1]
print(jnp.where(True, 2, jnp.zeros(2, jnp.int8)).dtype)  # expect: int8
