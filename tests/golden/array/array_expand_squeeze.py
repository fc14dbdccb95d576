# expand_dims, squeeze and None indexing add and drop unit axes
import jax.numpy as jnp

x = jnp.arange(3)
print(jnp.expand_dims(x, 0).shape, jnp.expand_dims(x, -1).shape)  # expect: (1, 3) (3, 1)
print(jnp.expand_dims(x, (0, 2)).shape)  # expect: (1, 3, 1)
y = jnp.zeros((1, 3, 1))
print(jnp.squeeze(y).shape, y.squeeze(0).shape, jnp.squeeze(y, axis=-1).shape)
# expect: (3,) (3, 1) (1, 3)
print(x[None, :].shape, x[:, None].shape, x[jnp.newaxis].shape)  # expect: (1, 3) (3, 1) (1, 3)
