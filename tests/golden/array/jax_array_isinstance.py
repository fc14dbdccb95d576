# isinstance against jax.Array: JAX arrays are instances, numpy arrays and Python numbers are not
import jax
import jax.numpy as jnp
import numpy as np

print(isinstance(jnp.ones(3), jax.Array), isinstance(np.ones(3), jax.Array), isinstance(1.0, jax.Array))
print(isinstance(jnp.ones(3) + np.ones(3), jax.Array))
# expect: True False False
# expect: True
