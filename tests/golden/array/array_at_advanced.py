# .at with slices, masks and 2-d indices
import jax.numpy as jnp

m = jnp.zeros((3, 3), jnp.int32)
print(m.at[1:, :2].set(5))  # expect: [[0 0 0]
# expect:  [5 5 0]
# expect:  [5 5 0]]
print(m.at[jnp.array([0, 2]), jnp.array([2, 0])].add(jnp.array([1, 2])))  # expect: [[0 0 1]
# expect:  [0 0 0]
# expect:  [2 0 0]]
print(m.at[-1].set(jnp.arange(3)))  # expect: [[0 0 0]
# expect:  [0 0 0]
# expect:  [0 1 2]]
print(jnp.arange(5).at[jnp.arange(5) % 2 == 0].set(-1))  # expect: [-1  1 -1  3 -1]
