# isnan, isinf, isfinite
import jax.numpy as jnp

x = jnp.array([1.0, jnp.nan, jnp.inf, -jnp.inf, 0.0])
print(jnp.isnan(x))  # expect: [False  True False False False]
print(jnp.isinf(x))  # expect: [False False  True  True False]
print(jnp.isfinite(x))  # expect: [ True False False False  True]
print(jnp.isfinite(jnp.array([1, 2])))  # expect: [ True  True]
