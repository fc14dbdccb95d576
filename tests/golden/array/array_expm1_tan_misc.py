# expm1, tan, square, reciprocal and arctan2
import jax.numpy as jnp

x = jnp.array([0.5, 1.0])
print(jnp.expm1(x))  # expect: [0.6487213 1.7182817]
print(jnp.tan(x))  # expect: [0.5463025 1.5574077]
print(jnp.arctan2(jnp.array([1.0, -1.0]), jnp.array([-1.0, 2.0])))
# expect: [ 2.3561945 -0.4636476]
print(jnp.square(jnp.array([-3, 4])), jnp.reciprocal(jnp.array([4.0, 0.5])))
# expect: [ 9 16] [0.25 2.  ]
