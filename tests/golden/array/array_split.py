# split into equal parts or at indices
import jax.numpy as jnp

x = jnp.arange(6)
for part in jnp.split(x, 3):
    print(part)  # expect: [0 1]
    # expect: [2 3]
    # expect: [4 5]
print(jnp.split(x, [1, 4]))
# expect: [Array([0], dtype=int32), Array([1, 2, 3], dtype=int32), Array([4, 5], dtype=int32)]
m = jnp.arange(8).reshape(2, 4)
left, right = jnp.split(m, 2, axis=1)
print(left)  # expect: [[0 1]
# expect:  [4 5]]
print(right.shape)  # expect: (2, 2)
