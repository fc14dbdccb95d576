# Python scalars and lists mix with arrays in operators and creation functions
import jax.numpy as jnp

print(jnp.maximum(jnp.array([1, 5]), 3), jnp.exp(0.0), jnp.sqrt(4))  # expect: [3 5] 1.0 2.0
print(jnp.array([[1, 2], [3, 4]]) + jnp.array([10, 20]))  # expect: [[11 22]
# expect:  [13 24]]
print(jnp.asarray((1.5, 2)), jnp.array(jnp.arange(2)))  # expect: [1.5 2. ] [0 1]
print(jnp.array([jnp.array(1.0), 2.0]))  # expect: [1. 2.]
print(jnp.array([[1, 2]], dtype=jnp.bfloat16) * 0.5)  # expect: [[0.5 1]]
