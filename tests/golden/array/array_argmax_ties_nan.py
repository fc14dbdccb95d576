# argmax picks the first maximum; nan wins max and argmax
import jax.numpy as jnp

print(jnp.argmax(jnp.array([1, 3, 3, 2])), jnp.argmin(jnp.array([2, 0, 0])))  # expect: 1 1
x = jnp.array([1.0, jnp.nan, 5.0])
print(x.max(), jnp.argmax(x), jnp.argmin(x))  # expect: nan 1 1
print(jnp.maximum(x, 2.0), jnp.sum(x))  # expect: [ 2. nan  5.] nan
