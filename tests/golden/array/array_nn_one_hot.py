# jax.nn.one_hot turns labels into float32 rows; out-of-range labels give zeros
import jax
import jax.numpy as jnp

print(jax.nn.one_hot(jnp.array([0, 2, 1]), 3))  # expect: [[1. 0. 0.]
# expect:  [0. 0. 1.]
# expect:  [0. 1. 0.]]
print(jax.nn.one_hot(jnp.array([3, -1]), 3))  # expect: [[0. 0. 0.]
# expect:  [0. 0. 0.]]
print(jax.nn.one_hot(jnp.array([1]), 2, dtype=jnp.int32))  # expect: [[0 1]]
