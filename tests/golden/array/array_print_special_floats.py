# nan and inf print by name in arrays
import jax.numpy as jnp

x = jnp.array([1.0, 0.0, -1.0])
print(x / 0)  # expect: [ inf  nan -inf]
print(jnp.log(x))  # expect: [  0. -inf  nan]
print(repr(jnp.array([jnp.inf, -jnp.inf, 2.5])))  # expect: Array([ inf, -inf,  2.5], dtype=float32)
print(jnp.array(jnp.nan))  # expect: nan
