# transpose, .T, swapaxes and moveaxis
import jax.numpy as jnp

x = jnp.arange(24).reshape(2, 3, 4)
print(x.T.shape, x.transpose().shape)  # expect: (4, 3, 2) (4, 3, 2)
print(x.transpose(1, 0, 2).shape, jnp.transpose(x, (2, 0, 1)).shape)  # expect: (3, 2, 4) (4, 2, 3)
print(jnp.swapaxes(x, 0, 2).shape, x.swapaxes(-1, -2).shape)  # expect: (4, 3, 2) (2, 4, 3)
print(jnp.moveaxis(x, 0, -1).shape, jnp.moveaxis(x, -1, 0).shape)  # expect: (3, 4, 2) (4, 2, 3)
m = jnp.arange(6).reshape(2, 3)
print(m.T)  # expect: [[0 3]
# expect:  [1 4]
# expect:  [2 5]]
