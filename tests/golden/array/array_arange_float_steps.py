# arange with float steps and linspace dtypes
import jax.numpy as jnp

print(jnp.arange(0, 1, 0.1))  # expect: [0.         0.1        0.2        0.3        0.4        0.5
# expect:  0.6        0.7        0.8        0.90000004]
print(jnp.arange(-1.5, 1.5))  # expect: [-1.5 -0.5  0.5]
print(jnp.linspace(0, 1, 6, dtype=jnp.bfloat16))
# expect: [0 0.200195 0.400391 0.601562 0.800781 1]
print(jnp.linspace(2, 3, 1), jnp.linspace(0, 1, 0).shape)  # expect: [2.] (0,)
print(jnp.arange(10, 0, -3), jnp.arange(0).shape)  # expect: [10  7  4  1] (0,)
