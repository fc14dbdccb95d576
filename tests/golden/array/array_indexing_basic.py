# integer and negative indices, slices with steps
import jax.numpy as jnp

x = jnp.arange(12).reshape(3, 4)
print(x[0], x[-1], x[1, 2], x[-1, -1])  # expect: [0 1 2 3] [ 8  9 10 11] 6 11
print(x[:, 1])  # expect: [1 5 9]
print(x[1:, ::2])  # expect: [[ 4  6]
# expect:  [ 8 10]]
print(x[::-1, 0])  # expect: [8 4 0]
print(x[0, 1:3], x[..., -1], x[-2:, ...].shape)  # expect: [1 2] [ 3  7 11] (2, 4)
print(jnp.arange(10)[1:8:3], jnp.arange(10)[8:2:-2])  # expect: [1 4 7] [8 6 4]
