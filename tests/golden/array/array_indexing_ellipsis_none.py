# Ellipsis and None in index expressions
import jax.numpy as jnp

x = jnp.arange(24).reshape(2, 3, 4)
print(x[..., 0])  # expect: [[ 0  4  8]
# expect:  [12 16 20]]
print(x[0, ...].shape, x[..., 1:3].shape)  # expect: (3, 4) (2, 3, 2)
print(x[:, None, 0].shape)  # expect: (2, 1, 4)
print(x[None, ..., None].shape)  # expect: (1, 2, 3, 4, 1)
print(x[1, ..., 2])  # expect: [14 18 22]
