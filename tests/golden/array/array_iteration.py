# iterating an array yields its rows
import jax.numpy as jnp

m = jnp.arange(6).reshape(3, 2)
for row in m:
    print(row)  # expect: [0 1]
    # expect: [2 3]
    # expect: [4 5]
print([int(v) for v in jnp.array([4, 5, 6])])  # expect: [4, 5, 6]
print(len(m), sum(jnp.array([1, 2, 3])))  # expect: 3 6
a, b = jnp.array([10, 20])
print(a, b)  # expect: 10 20
