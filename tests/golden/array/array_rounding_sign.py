# sign, floor, ceil and round (round half to even)
import jax.numpy as jnp

x = jnp.array([-2.5, -1.5, -0.2, 0.0, 0.5, 1.5, 2.7])
print(jnp.sign(x))  # expect: [-1. -1. -1.  0.  1.  1.  1.]
print(jnp.floor(x))  # expect: [-3. -2. -1.  0.  0.  1.  2.]
print(jnp.ceil(x))  # expect: [-2. -1. -0.  0.  1.  2.  3.]
print(jnp.round(x))  # expect: [-2. -2. -0.  0.  0.  2.  3.]
print(jnp.round(jnp.array([1.234, 5.678]), 1))  # expect: [1.2       5.7000003]
print(jnp.sign(jnp.array([-3, 0, 4])))  # expect: [-1  0  1]
