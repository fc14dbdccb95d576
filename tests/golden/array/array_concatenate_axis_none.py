# concatenate with axis=None flattens first; stack with a negative axis
import jax.numpy as jnp

a = jnp.arange(4).reshape(2, 2)
print(jnp.concatenate([a, jnp.arange(3)], axis=None))  # expect: [0 1 2 3 0 1 2]
print(jnp.stack([a, a * 10], axis=-2))  # expect: [[[ 0  1]
# expect:   [ 0 10]]
# expect:
# expect:  [[ 2  3]
# expect:   [20 30]]]
print(jnp.split(jnp.arange(12).reshape(2, 6), [2, 3], axis=-1)[1])  # expect: [[2]
# expect:  [8]]
